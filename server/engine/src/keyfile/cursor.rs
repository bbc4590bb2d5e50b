//! Reading keys by number: a cursor (one per worker) holds one block and decodes its
//! entries only as far as the one asked for, into one reused entry (the entries before
//! it only as far as their keys, which the next key's front coding needs). Key number
//! `i` costs its block's index entry and the block unless its block is the one at
//! hand: found in the file mapped into memory ([`KeyFile::mapped`], what picks use,
//! with no system call), or read with `pread` (passes, and picks where a file cannot be
//! mapped: a pick reads its index entry and its block, a pass reads ahead, many blocks
//! a call); a pass decodes each entry once. A compressed block is
//! decompressed into the cursor's buffer; a stored one in a mapped file is walked
//! where it lies, with nothing copied.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::sync::Arc;

use super::entry::KeyEntry;
use super::error::KeyFileError;
use super::format::{Block, HEADER_LEN, INDEX_ENTRY_LEN, next_entry, skip_entry};
use super::mapped::Mapped;
use super::read_ahead::ReadAhead;
use super::reader::{KeyFile, index_entry};

/// A block larger than this decompressed is refused (the writer's are a few KiB).
const MAX_BLOCK: usize = 64 << 20;

/// Where a cursor's bytes come from: the file read where needed (its blocks and its
/// index each through a read-ahead of their own, so a pass reads many blocks a system
/// call), or the file mapped into memory.
enum Source {
    File {
        file: File,
        blocks: ReadAhead,
        index: ReadAhead,
    },
    Mapped(Arc<Mapped>),
}

/// Which part of the file a read is of.
#[derive(Clone, Copy)]
enum Region {
    Blocks,
    Index,
}

impl Source {
    /// `len` bytes of the file at `offset`, in `region`.
    fn bytes(&mut self, region: Region, offset: u64, len: usize) -> io::Result<&[u8]> {
        match self {
            Source::File {
                file,
                blocks,
                index,
            } => match region {
                Region::Blocks => blocks.bytes(file, offset, len),
                Region::Index => index.bytes(file, offset, len),
            },
            Source::Mapped(map) => usize::try_from(offset)
                .ok()
                .and_then(|at| map.bytes().get(at..at.checked_add(len)?))
                .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "past the end")),
        }
    }
}

/// Where the entries of the block at hand are.
enum Held {
    /// In the cursor's buffer (decompressed, or read with a `pread`).
    Buffer,
    /// At these bytes of the mapped file, stored as they are.
    Mapped(Range<usize>),
}

/// Reads keys by number, one block at hand, decoded only as far as asked.
pub struct Cursor {
    source: Source,
    keys: KeyFile,
    block: Option<u64>,
    /// Where the block at hand's entries are: in `raw`, or in the mapped file.
    held: Held,
    /// The block at hand's entries when they are not walked in the mapped file.
    raw: Vec<u8>,
    /// Where in the block's entries the next entry starts, and its number in the block.
    at: usize,
    next: u64,
    /// The key of the entry before `at`.
    key: Vec<u8>,
    /// The last entry decoded whole: number `next - 1`, once `get` returned it.
    entry: KeyEntry,
}

impl KeyFile {
    /// A reader of its own (one decompressed block, and a file handle unless the file
    /// is mapped).
    pub fn cursor(&self) -> Result<Cursor, KeyFileError> {
        Cursor::new(self)
    }
}

impl Cursor {
    /// A cursor of `keys`, with no block at hand yet.
    fn new(keys: &KeyFile) -> Result<Cursor, KeyFileError> {
        let source = match &keys.map {
            Some(map) => Source::Mapped(map.clone()),
            None => Source::File {
                file: File::open(&keys.path).map_err(|e| KeyFileError::io(&keys.path, e))?,
                blocks: ReadAhead::default(),
                index: ReadAhead::default(),
            },
        };
        Ok(Cursor {
            source,
            keys: keys.clone(),
            block: None,
            held: Held::Buffer,
            raw: Vec::new(),
            at: 0,
            next: 0,
            key: Vec::new(),
            entry: KeyEntry::default(),
        })
    }

    /// Key number `i` (in key order), or `None` past the last.
    pub fn get(&mut self, i: u64) -> Result<Option<&KeyEntry>, KeyFileError> {
        if i >= self.keys.keys {
            return Ok(None);
        }
        let per = u64::from(self.keys.entries_per_block);
        let (block, number) = (i / per, i % per);
        if self.block != Some(block) {
            self.load(block)?;
        } else if number + 1 < self.next {
            // Behind the walk: from the block's start again.
            self.restart();
        }
        if number + 1 == self.next {
            return Ok(Some(&self.entry));
        }
        if let Err(e) = self.walk_to(block, number) {
            // Whatever was decoded is not to be trusted: the block is read again.
            self.block = None;
            return Err(e);
        }
        Ok(Some(&self.entry))
    }

    /// Walks the block at hand to its entry `number` (at or after the next), decoding
    /// only the keys of the entries before it and then that entry whole.
    fn walk_to(&mut self, block: u64, number: u64) -> Result<(), KeyFileError> {
        let version = self.keys.version;
        let bad =
            |e: io::Error| KeyFileError::format(&self.keys.path, format!("block {block}: {e}"));
        let short = || {
            KeyFileError::format(
                &self.keys.path,
                format!("block {block} holds fewer keys than its place says"),
            )
        };
        let raw: &[u8] = match (&self.held, &self.source) {
            (Held::Mapped(range), Source::Mapped(map)) => {
                map.bytes().get(range.clone()).unwrap_or_default()
            }
            _ => &self.raw,
        };
        while self.next < number {
            if self.at >= raw.len() {
                return Err(short());
            }
            skip_entry(raw, &mut self.at, &mut self.key, version).map_err(bad)?;
            self.next += 1;
        }
        if self.at >= raw.len() {
            return Err(short());
        }
        next_entry(raw, &mut self.at, &mut self.key, &mut self.entry, version).map_err(bad)?;
        self.next += 1;
        Ok(())
    }

    fn restart(&mut self) {
        self.at = 0;
        self.next = 0;
        self.key.clear();
    }

    fn load(&mut self, block: u64) -> Result<(), KeyFileError> {
        let path = &self.keys.path;
        let io = |e| KeyFileError::io(path, e);
        self.block = None;
        if block >= self.keys.blocks {
            return Err(KeyFileError::format(path, format!("no block {block}")));
        }
        let (offset, len) = index_entry(
            self.source
                .bytes(
                    Region::Index,
                    self.keys.index_offset + block * INDEX_ENTRY_LEN,
                    INDEX_ENTRY_LEN as usize,
                )
                .map_err(io)?,
        );
        if offset < HEADER_LEN || offset.saturating_add(u64::from(len)) > self.keys.index_offset {
            return Err(KeyFileError::format(path, "a block lies outside the file"));
        }
        let mapped = matches!(self.source, Source::Mapped(_));
        let bytes = self
            .source
            .bytes(Region::Blocks, offset, len as usize)
            .map_err(io)?;
        let bad = |m: String| KeyFileError::format(path, format!("block {block}: {m}"));
        match Block::of(bytes, self.keys.version).map_err(|e| bad(e.to_string()))? {
            Block::Stored(_) if mapped => {
                // Inside the file (checked above), so inside the mapping.
                let start = offset as usize + 4;
                self.held = Held::Mapped(start..start + (len as usize - 4));
            }
            Block::Stored(entries) => {
                self.raw.clear();
                self.raw.extend_from_slice(entries);
                self.held = Held::Buffer;
            }
            Block::Compressed { size, lz4 } => {
                if size > MAX_BLOCK {
                    return Err(bad(format!(
                        "{size} bytes decompressed is more than a block holds"
                    )));
                }
                self.raw.resize(size, 0);
                let got = lz4_flex::block::decompress_into(lz4, &mut self.raw)
                    .map_err(|e| bad(e.to_string()))?;
                self.raw.truncate(got);
                self.held = Held::Buffer;
            }
        }
        self.restart();
        self.block = Some(block);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::KeyFileWriter;
    use super::super::format::{VERSION, put_entry};
    use super::super::test_files::{entry, file_of_blocks, sorted, written};
    use super::*;

    #[test]
    fn a_mapped_file_gives_the_same_keys_in_any_order_whatever_its_block_size() {
        let n = 5_000;
        let sorted = sorted(n);
        let dir = tempfile::tempdir().unwrap();
        // The size written now, and those of files written before (128, 1,024).
        for per_block in [super::super::ENTRIES_PER_BLOCK, 128, 1024, 1] {
            let path = dir.path().join(format!("{per_block}.keys"));
            let mut w = KeyFileWriter::create(&path, dir.path())
                .unwrap()
                .writing_blocks_of(per_block);
            for i in (0..n).rev() {
                w.push(entry(i)).unwrap();
            }
            assert_eq!(w.finish().unwrap().keys, n);
            let file = KeyFile::open(&path).unwrap();
            assert_eq!(file.entries_per_block, per_block);
            let mapped = file.mapped().unwrap();
            let (mut read, mut map) = (file.cursor().unwrap(), mapped.cursor().unwrap());
            let mut rng = fastrand::Rng::with_seed(per_block.into());
            // In order, then at random, then back and forth inside one block.
            let picks = (0..n).chain((0..3 * n).map(|_| rng.u64(0..n))).chain([
                40,
                39,
                38,
                0,
                1,
                0,
                41,
                31,
                32,
                33,
                32,
                n - 1,
                n - 2,
            ]);
            for i in picks {
                let want = Some(&sorted[i as usize]);
                assert_eq!(map.get(i).unwrap(), want, "{per_block}: key {i}");
                assert_eq!(read.get(i).unwrap(), want, "{per_block}: key {i}");
            }
            assert_eq!(map.get(n).unwrap(), None);
        }
        // Nothing but the key files is left.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
    }

    #[test]
    fn stored_and_compressed_blocks_read_alike_from_a_mapped_file_or_not() {
        // Blocks by turns of keys whose ETags and times LZ4 finds nothing to repeat
        // in (stored as they are), and of keys alike but for their names (compressed).
        let per = u64::from(super::super::ENTRIES_PER_BLOCK);
        let n = per * 40 + 5;
        let mix = crate::keyspace::mix64;
        let entries: Vec<KeyEntry> = (0..n)
            .map(|i| {
                let noisy = (i / per).is_multiple_of(2);
                KeyEntry {
                    key: format!("k/{i:06}"),
                    size: i,
                    etag: Some(match noisy {
                        true => format!("{:016x}{:016x}", mix(3, i), mix(4, i)),
                        false => "0".repeat(32),
                    }),
                    last_modified_ms: Some(
                        1_790_000_000_000 + noisy as u64 * (mix(5, i) % 86_400_000),
                    ),
                }
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mixed.keys");
        let mut w = KeyFileWriter::create(&path, dir.path()).unwrap();
        for e in entries.iter().rev() {
            w.push(e.clone()).unwrap();
        }
        assert_eq!(w.finish().unwrap().keys, n);
        let file = KeyFile::open(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let stored: Vec<bool> = (0..file.blocks)
            .map(|b| {
                let at = (file.index_offset + b * INDEX_ENTRY_LEN) as usize;
                let (offset, len) = index_entry(&bytes[at..at + INDEX_ENTRY_LEN as usize]);
                let block = &bytes[offset as usize..][..len as usize];
                matches!(Block::of(block, VERSION), Ok(Block::Stored(_)))
            })
            .collect();
        let by_turns: Vec<bool> = (0..41).map(|b| b % 2 == 0).collect();
        assert_eq!(stored, by_turns);
        let mapped = file.mapped().unwrap();
        let (mut read, mut map) = (file.cursor().unwrap(), mapped.cursor().unwrap());
        let mut rng = fastrand::Rng::with_seed(8);
        let picks = (0..n).chain((0..4 * n).map(|_| rng.u64(0..n))).chain([
            per + 3,
            per + 2,
            2,
            1,
            0,
            n - 1,
            n - 5,
            n - 2,
        ]);
        for i in picks {
            let want = Some(&entries[i as usize]);
            assert_eq!(map.get(i).unwrap(), want, "key {i}");
            assert_eq!(read.get(i).unwrap(), want, "key {i}");
        }
    }

    #[test]
    fn a_corrupt_block_is_an_error_from_a_mapped_file_too() {
        let (dir, path, _) = written(3000);
        let mut bytes = std::fs::read(&path).unwrap();
        // The second block's stated length, past anything a block holds.
        let index = u64::from_le_bytes(bytes[bytes.len() - 32..][..8].try_into().unwrap());
        let second =
            u64::from_le_bytes(bytes[index as usize + 12..][..8].try_into().unwrap()) as usize;
        bytes[second..second + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let bad = dir.path().join("bad.keys");
        std::fs::write(&bad, &bytes).unwrap();
        let file = KeyFile::open(&bad).unwrap().mapped().unwrap();
        let mut c = file.cursor().unwrap();
        let per = u64::from(file.entries_per_block);
        assert!(c.get(0).unwrap().is_some());
        let e = c.get(per).unwrap_err().to_string();
        assert!(e.contains("block 1:"), "{e}");
        // Asked again, never an entry left from before.
        assert!(c.get(per).is_err());
        assert!(c.get(per + 1).is_err());
        assert!(c.get(2 * per).unwrap().is_some());
    }

    #[test]
    fn a_cursor_that_fails_inside_a_block_forgets_the_block() {
        // Two blocks of 32 keys; the second's entry 10 shares more bytes than the key
        // before it has, so a walk that reaches it fails there.
        let keys: Vec<KeyEntry> = (0..64)
            .map(|i| KeyEntry {
                key: format!("k{i:03}"),
                size: i,
                etag: None,
                last_modified_ms: None,
            })
            .collect();
        let blocks: Vec<Vec<u8>> = keys
            .chunks(32)
            .enumerate()
            .map(|(b, chunk)| {
                let (mut raw, mut previous) = (Vec::new(), "");
                for (n, e) in chunk.iter().enumerate() {
                    if (b, n) == (1, 10) {
                        raw.extend([100, 0, 0, 0, 0]);
                    } else {
                        put_entry(&mut raw, previous.as_bytes(), e, VERSION);
                    }
                    previous = &e.key;
                }
                raw
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.keys");
        file_of_blocks(&path, 32, 64, &blocks);
        let file = KeyFile::open(&path).unwrap();
        for file in [file.mapped().unwrap(), file] {
            let mut c = file.cursor().unwrap();
            assert_eq!(c.get(35).unwrap(), Some(&keys[35]));
            let e = c.get(44).unwrap_err().to_string();
            assert!(
                e.contains("block 1: an entry shares more than the key before it"),
                "{e}"
            );
            // Behind the failure, inside the same block: decoded again from the block's
            // start, never the entry decoded before the failure.
            assert_eq!(c.get(41).unwrap(), Some(&keys[41]));
            assert!(c.get(42).is_err());
            assert_eq!(c.get(32).unwrap(), Some(&keys[32]));
            assert_eq!(c.get(31).unwrap(), Some(&keys[31]));
            assert!(c.get(63).is_err());
        }
    }
}
