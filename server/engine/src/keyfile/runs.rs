//! Sorted runs on disk: the writer's keys, a buffer at a time, sorted and written out,
//! then read back one entry per run at a time for the merge.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

use super::entry::KeyEntry;
use super::format::{RUN_VERSION, get_varint, put_entry};

/// Bytes read ahead per run during the merge.
const READ_AHEAD: usize = 64 * 1024;

/// Keys waiting to be sorted into a run, as the bytes of their records in one arena
/// (no allocation per key), with where each record and its key lie.
#[derive(Default)]
pub struct RunBuffer {
    arena: Vec<u8>,
    items: Vec<Item>,
}

/// A record in the arena: its offset and length, and its key's place inside it.
#[derive(Clone, Copy)]
struct Item {
    offset: u32,
    len: u32,
    key_at: u16,
    key_len: u32,
}

impl RunBuffer {
    /// Bytes held (records and their places).
    pub fn bytes(&self) -> usize {
        self.arena.len() + self.items.len() * std::mem::size_of::<Item>()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn push(&mut self, entry: &KeyEntry) {
        let offset = self.arena.len();
        put_entry(&mut self.arena, b"", entry, RUN_VERSION);
        // A record shares nothing: one byte of 0, the key's length, the key.
        let mut at = offset + 1;
        let _ = get_varint(&self.arena, &mut at);
        self.items.push(Item {
            offset: offset as u32,
            len: (self.arena.len() - offset) as u32,
            key_at: (at - offset) as u16,
            key_len: entry.key.len() as u32,
        });
    }

    fn key(&self, i: &Item) -> &[u8] {
        let start = i.offset as usize + usize::from(i.key_at);
        &self.arena[start..start + i.key_len as usize]
    }

    /// Writes the records sorted by key to a run file at `path`, and empties the buffer.
    pub fn write_run(&mut self, path: &Path) -> io::Result<()> {
        let mut items = std::mem::take(&mut self.items);
        items.sort_unstable_by(|a, b| self.key(a).cmp(self.key(b)));
        let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
        for i in &items {
            crate::varint::write(&mut w, u64::from(i.len))?;
            let start = i.offset as usize;
            w.write_all(&self.arena[start..start + i.len as usize])?;
        }
        w.flush()?;
        self.arena.clear();
        items.clear();
        self.items = items;
        Ok(())
    }
}

/// Writes `entries` (already sorted) to a run file at `path`.
pub fn write_sorted(
    path: &Path,
    entries: impl IntoIterator<Item = io::Result<KeyEntry>>,
) -> io::Result<()> {
    let mut w = BufWriter::with_capacity(READ_AHEAD, File::create(path)?);
    let mut record = Vec::new();
    for e in entries {
        record.clear();
        put_entry(&mut record, b"", &e?, RUN_VERSION);
        crate::varint::write(&mut w, record.len() as u64)?;
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
        let Some(len) = crate::varint::read(&mut self.reader)? else {
            return Ok(None);
        };
        self.record.resize(len as usize, 0);
        self.reader.read_exact(&mut self.record)?;
        super::format::get_block(&self.record, &mut self.decoded, RUN_VERSION)?;
        Ok(self.decoded.pop())
    }
}
