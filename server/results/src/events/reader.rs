//! Reading a run's event log from a file (or any buffered input), one line at a time.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use super::line::{self, EventHead, Logged, RawEvent};
use crate::EVENTS_FILE;

/// Reads `events.jsonl` line by line, keeping one line in memory. A line that does not
/// parse (the torn end of a killed run, or one still being written) and an event this
/// version does not know are skipped; a read error ends the log.
pub struct EventReader<R> {
    input: R,
    line: Vec<u8>,
}

impl EventReader<BufReader<File>> {
    /// The run folder's log; `None` before the run has logged anything.
    pub fn open(dir: &Path) -> Option<Self> {
        let file = File::open(dir.join(EVENTS_FILE)).ok()?;
        Some(EventReader::new(BufReader::new(file)))
    }
}

impl<R: BufRead> EventReader<R> {
    pub fn new(input: R) -> Self {
        EventReader {
            input,
            line: Vec::new(),
        }
    }

    /// The next event this version knows.
    pub fn next_event(&mut self) -> Option<Logged> {
        self.next_decoded(|l| line::decode(l, None))
    }

    /// The next event named one of `names` (e.g. `["listing", "transfer"]`); the others
    /// are passed over without being built.
    pub fn next_of(&mut self, names: &[&str]) -> Option<Logged> {
        self.next_decoded(|l| line::decode(l, Some(names)))
    }

    /// The next well-formed line, whatever its event.
    pub fn next_raw(&mut self) -> Option<RawEvent> {
        self.next_decoded(line::decode_raw)
    }

    /// The id and name of the next well-formed line.
    pub fn next_head(&mut self) -> Option<EventHead> {
        self.next_decoded(line::decode_head)
    }

    fn next_decoded<T>(&mut self, mut decode: impl FnMut(&[u8]) -> Option<T>) -> Option<T> {
        loop {
            self.line.clear();
            match self.input.read_until(b'\n', &mut self.line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            if let Some(t) = decode(&self.line) {
                return Some(t);
            }
        }
    }
}
