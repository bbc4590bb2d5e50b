//! Appending to a run's event log: the one writer, used by the run as it emits events.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;

use super::RunEvent;
use super::line::encode;
use crate::torn_line::cut_torn_line;
use crate::{EVENTS_FILE, ResultsError};

/// `events.jsonl` open for appending, with the id the next event gets.
pub struct EventWriter {
    file: BufWriter<File>,
    next_id: u64,
}

impl EventWriter {
    /// Opens (or creates) the run folder's log. A line a killed run left half-written at
    /// the end is cut off first, and ids continue after the events already logged (an
    /// event's id is its line number).
    pub fn open(dir: &Path) -> Result<EventWriter, ResultsError> {
        let path = dir.join(EVENTS_FILE);
        let io_err = |source| ResultsError::Io {
            path: path.clone(),
            source,
        };
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&path)
            .map_err(io_err)?;
        cut_torn_line(&file).map_err(io_err)?;
        let next_id = count_lines(&file).map_err(io_err)?;
        Ok(EventWriter {
            file: BufWriter::new(file),
            next_id,
        })
    }

    /// Appends one event as `{"id": n, "event": ..., "data": ...}` and flushes it;
    /// returns its id. Errors are swallowed (and the id still used): the log is for
    /// watching, the interval files are what results rely on.
    pub fn append(&mut self, event: &RunEvent) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let Some(line) = encode(id, event) else {
            return id;
        };
        let _ = self
            .file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.write_all(b"\n"))
            .and_then(|_| self.file.flush());
        id
    }
}

/// Lines in the log, read in blocks from its start (the log of a long run is large).
fn count_lines(file: &File) -> std::io::Result<u64> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; 64 * 1024];
    let mut lines = 0u64;
    let mut at = 0u64;
    loop {
        match file.read_at(&mut buf, at) {
            Ok(0) => return Ok(lines),
            Ok(n) => {
                lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
                at += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
