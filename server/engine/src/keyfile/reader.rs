//! Reading a key file: the header, footer and index checked and kept at open; then
//! cursors (one per worker) that each read and decode one block at a time, so key
//! number `i` costs one block read unless its block is the one at hand.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::entry::KeyEntry;
use super::error::KeyFileError;
use super::format::{
    ENTRIES_PER_BLOCK, FOOTER_LEN, HEADER_LEN, INDEX_ENTRY_LEN, MAGIC, VERSION, get_block,
};

/// An open key file: its index, shared by its cursors.
#[derive(Debug, Clone)]
pub struct KeyFile {
    path: PathBuf,
    keys: u64,
    entries_per_block: u32,
    /// Per block: offset and compressed length.
    index: Arc<[(u64, u32)]>,
}

impl KeyFile {
    pub fn open(path: &Path) -> Result<KeyFile, KeyFileError> {
        let io = |e| KeyFileError::io(path, e);
        let bad = |m: &str| KeyFileError::format(path, m);
        let mut f = File::open(path).map_err(io)?;
        let len = f.metadata().map_err(io)?.len();
        if len < HEADER_LEN + FOOTER_LEN {
            return Err(bad("too short for a header and a footer"));
        }
        let mut header = [0u8; HEADER_LEN as usize];
        f.read_exact(&mut header).map_err(io)?;
        if &header[..8] != MAGIC {
            return Err(bad("no keystorm key file header"));
        }
        let version = u32::from_le_bytes(header[8..12].try_into().unwrap_or_default());
        if version != VERSION {
            return Err(KeyFileError::Version {
                path: path.display().to_string(),
                found: version,
                supported: VERSION,
            });
        }
        let entries_per_block = u32::from_le_bytes(header[12..16].try_into().unwrap_or_default());
        if entries_per_block == 0 {
            return Err(bad("zero entries per block"));
        }
        let mut footer = [0u8; FOOTER_LEN as usize];
        f.seek(SeekFrom::End(-(FOOTER_LEN as i64))).map_err(io)?;
        f.read_exact(&mut footer).map_err(io)?;
        let word =
            |n: usize| u64::from_le_bytes(footer[n * 8..n * 8 + 8].try_into().unwrap_or_default());
        if &footer[24..] != MAGIC {
            return Err(bad(
                "no footer: the file is cut short, or was not written to its end",
            ));
        }
        let (index_offset, blocks, keys) = (word(0), word(1), word(2));
        let fits = blocks
            .checked_mul(INDEX_ENTRY_LEN)
            .and_then(|i| i.checked_add(index_offset))
            .and_then(|i| i.checked_add(FOOTER_LEN))
            == Some(len);
        let counted = blocks.saturating_sub(1) * u64::from(entries_per_block) < keys
            && keys <= blocks * u64::from(entries_per_block);
        if !fits || !(counted || keys == 0 && blocks <= 1) {
            return Err(bad("its footer does not match its length"));
        }
        let mut raw = vec![0u8; (blocks * INDEX_ENTRY_LEN) as usize];
        f.seek(SeekFrom::Start(index_offset)).map_err(io)?;
        f.read_exact(&mut raw).map_err(io)?;
        let index: Arc<[(u64, u32)]> = raw
            .chunks_exact(INDEX_ENTRY_LEN as usize)
            .map(|c| {
                (
                    u64::from_le_bytes(c[..8].try_into().unwrap_or_default()),
                    u32::from_le_bytes(c[8..].try_into().unwrap_or_default()),
                )
            })
            .collect();
        let in_bounds = index.iter().all(|(offset, n)| {
            *offset >= HEADER_LEN && offset.saturating_add(u64::from(*n)) <= index_offset
        });
        if !in_bounds {
            return Err(bad("a block lies outside the file"));
        }
        Ok(KeyFile {
            path: path.to_path_buf(),
            keys,
            entries_per_block,
            index,
        })
    }

    /// Whether the file at `path` begins as a key file does (whatever else is wrong
    /// with it, `open` says).
    pub fn is_one(path: &Path) -> bool {
        let mut magic = [0u8; 8];
        File::open(path)
            .and_then(|mut f| f.read_exact(&mut magic))
            .is_ok()
            && &magic == MAGIC
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keys in the file.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// A reader of its own (a file handle and one decoded block).
    pub fn cursor(&self) -> Result<Cursor, KeyFileError> {
        Ok(Cursor {
            file: File::open(&self.path).map_err(|e| KeyFileError::io(&self.path, e))?,
            keys: self.clone(),
            block: None,
            compressed: Vec::new(),
            entries: Vec::with_capacity(ENTRIES_PER_BLOCK as usize),
        })
    }
}

/// Reads keys by number, one block at hand.
pub struct Cursor {
    file: File,
    keys: KeyFile,
    block: Option<usize>,
    compressed: Vec<u8>,
    entries: Vec<KeyEntry>,
}

impl Cursor {
    /// Key number `i` (in key order), or `None` past the last.
    pub fn get(&mut self, i: u64) -> Result<Option<&KeyEntry>, KeyFileError> {
        if i >= self.keys.keys {
            return Ok(None);
        }
        let per = u64::from(self.keys.entries_per_block);
        let block = (i / per) as usize;
        if self.block != Some(block) {
            self.load(block)?;
        }
        let entry = self.entries.get((i % per) as usize);
        if entry.is_none() {
            return Err(KeyFileError::format(
                &self.keys.path,
                format!("block {block} holds fewer keys than its place says"),
            ));
        }
        Ok(entry)
    }

    fn load(&mut self, block: usize) -> Result<(), KeyFileError> {
        let path = self.keys.path.clone();
        let (offset, len) = self.keys.index[block];
        self.compressed.resize(len as usize, 0);
        self.file
            .seek(SeekFrom::Start(offset))
            .and_then(|_| self.file.read_exact(&mut self.compressed))
            .map_err(|e| KeyFileError::io(&path, e))?;
        let raw = lz4_flex::block::decompress_size_prepended(&self.compressed)
            .map_err(|e| KeyFileError::format(&path, format!("block {block}: {e}")))?;
        self.block = None;
        get_block(&raw, &mut self.entries)
            .map_err(|e| KeyFileError::format(&path, format!("block {block}: {e}")))?;
        self.block = Some(block);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::KeyFileWriter;
    use super::*;

    fn entry(i: u64) -> KeyEntry {
        KeyEntry {
            key: format!("d{:02}/{:016x}", i % 13, crate::keyspace::mix64(2, i)),
            size: i % 5000,
            etag: (!i.is_multiple_of(3)).then(|| format!("{:032x}", i)),
            last_modified_ms: (!i.is_multiple_of(7)).then_some(1_790_000_000_000 + i),
        }
    }

    /// `n` keys given shuffled (and the first hundred twice).
    fn written(n: u64) -> (tempfile::TempDir, PathBuf, super::super::Written) {
        written_in_runs_of(n, 8 << 20)
    }

    fn written_in_runs_of(
        n: u64,
        run_bytes: usize,
    ) -> (tempfile::TempDir, PathBuf, super::super::Written) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.keys");
        let mut w = KeyFileWriter::with_run_bytes(&path, dir.path(), run_bytes).unwrap();
        let mut order: Vec<u64> = (0..n).chain(0..n.min(100)).collect();
        fastrand::Rng::with_seed(4).shuffle(&mut order);
        for i in order {
            w.push(entry(i)).unwrap();
        }
        let done = w.finish().unwrap();
        (dir, path, done)
    }

    #[test]
    fn every_key_comes_back_once_in_key_order_by_number() {
        let n = 10_000;
        let (dir, path, done) = written(n);
        assert_eq!((done.keys, done.repeated), (n, 100));
        assert_eq!(done.bytes, std::fs::metadata(&path).unwrap().len());
        let file = KeyFile::open(&path).unwrap();
        assert_eq!(file.keys(), n);
        let mut sorted: Vec<KeyEntry> = (0..n).map(entry).collect();
        sorted.sort_by(|a, b| a.key.cmp(&b.key));
        let mut c = file.cursor().unwrap();
        for (i, want) in sorted.iter().enumerate() {
            assert_eq!(c.get(i as u64).unwrap(), Some(want), "key {i}");
        }
        assert_eq!(c.get(n).unwrap(), None);
        // Random picks from a second cursor, out of order.
        let mut other = file.cursor().unwrap();
        for i in [9_999, 0, 5_000, 1_023, 1_024, 1_025] {
            assert_eq!(other.get(i).unwrap(), Some(&sorted[i as usize]));
        }
        // Front-coded and compressed: well under the keys' own bytes.
        let raw: usize = sorted.iter().map(|e| e.key.len() + 32 + 8 + 8).sum();
        assert!((done.bytes as usize) < raw / 2, "{} bytes", done.bytes);
        // Nothing but the key file is left.
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }

    #[test]
    fn many_small_runs_merged_in_passes_give_the_same_file() {
        // 4 KiB runs: about 170 of them, more than are merged at once.
        let (_a, whole, _) = written(10_000);
        let (_b, passes, done) = written_in_runs_of(10_000, 4096);
        assert_eq!((done.keys, done.repeated), (10_000, 100));
        assert_eq!(
            std::fs::read(&whole).unwrap(),
            std::fs::read(&passes).unwrap()
        );
    }

    #[test]
    fn an_empty_listing_is_a_key_file_of_no_keys() {
        let (_dir, path, done) = written(0);
        assert_eq!(done.keys, 0);
        let file = KeyFile::open(&path).unwrap();
        assert_eq!(file.keys(), 0);
        assert_eq!(file.cursor().unwrap().get(0).unwrap(), None);
    }

    #[test]
    fn a_file_cut_short_or_of_another_kind_is_refused_by_name() {
        let (dir, path, _) = written(3000);
        let bytes = std::fs::read(&path).unwrap();
        let cut = dir.path().join("cut.keys");
        std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
        let e = KeyFile::open(&cut).unwrap_err().to_string();
        assert!(
            e.contains("cut.keys is not a keystorm key file (no footer"),
            "{e}"
        );
        let other = dir.path().join("keys.jsonl");
        std::fs::write(&other, "{\"key\":\"a\",\"size\":1}\n".repeat(10)).unwrap();
        let e = KeyFile::open(&other).unwrap_err().to_string();
        assert!(e.contains("no keystorm key file header"), "{e}");
        let mut newer = bytes.clone();
        newer[8] = 9;
        let future = dir.path().join("future.keys");
        std::fs::write(&future, &newer).unwrap();
        let e = KeyFile::open(&future).unwrap_err().to_string();
        assert!(
            e.contains("format version 9; this keystorm reads version 1"),
            "{e}"
        );
    }
}
