//! Sorted runs on disk: the writer's keys, a buffer at a time, sorted and written out,
//! then read back one entry per run at a time for the merge.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

use super::entry::KeyEntry;
use super::format::{get_varint, put_entry, take};

/// Bytes read ahead per run during the merge.
const READ_AHEAD: usize = 64 * 1024;

/// Writes `entries` (sorted here) to a run file at `path`.
pub fn write_run(path: &Path, entries: &mut [KeyEntry]) -> io::Result<()> {
    entries.sort_unstable_by(|a, b| a.key.cmp(&b.key));
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut record = Vec::new();
    for e in entries.iter() {
        // Each record stands alone (nothing shared with the one before), framed by its
        // length.
        record.clear();
        put_entry(&mut record, b"", e);
        let mut len = Vec::with_capacity(5);
        super::format::put_varint(&mut len, record.len() as u64);
        w.write_all(&len)?;
        w.write_all(&record)?;
    }
    w.flush()
}

/// A run being read back, its next entry at hand.
pub struct Run {
    reader: BufReader<File>,
    record: Vec<u8>,
    decoded: Vec<KeyEntry>,
}

impl Run {
    pub fn open(path: &Path) -> io::Result<Run> {
        Ok(Run {
            reader: BufReader::with_capacity(READ_AHEAD, File::open(path)?),
            record: Vec::new(),
            decoded: Vec::with_capacity(1),
        })
    }

    /// The run's next entry, or `None` at its end.
    pub fn next_entry(&mut self) -> io::Result<Option<KeyEntry>> {
        let Some(len) = read_varint(&mut self.reader)? else {
            return Ok(None);
        };
        self.record.resize(len as usize, 0);
        self.reader.read_exact(&mut self.record)?;
        let mut at = 0;
        let record = take(&self.record, &mut at, len, "a run record")?;
        super::format::get_block(record, &mut self.decoded)?;
        Ok(self.decoded.pop())
    }
}

/// The next varint of a stream, `None` at its end.
fn read_varint(r: &mut impl Read) -> io::Result<Option<u64>> {
    let mut buf = Vec::with_capacity(10);
    let mut byte = [0u8; 1];
    loop {
        if r.read(&mut byte)? == 0 {
            return if buf.is_empty() {
                Ok(None)
            } else {
                Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "a run is cut short",
                ))
            };
        }
        buf.push(byte[0]);
        if byte[0] & 0x80 == 0 {
            let mut at = 0;
            return get_varint(&buf, &mut at).map(Some);
        }
    }
}
