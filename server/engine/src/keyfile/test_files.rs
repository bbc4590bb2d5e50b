//! Key files for the tests of reading them: entries of varied keys, sizes, ETags and
//! times written through the writer, and files put together block by block, for a
//! block that holds what the writer never writes.

use std::path::{Path, PathBuf};

use super::entry::KeyEntry;
use super::format::{FOOTER_LEN, MAGIC, VERSION};
use super::{KeyFileWriter, Written};

/// Entry number `i` (before sorting): keys under 13 folders, some without an ETag or
/// a time.
pub fn entry(i: u64) -> KeyEntry {
    KeyEntry {
        key: format!("d{:02}/{:016x}", i % 13, crate::keyspace::mix64(2, i)),
        size: i % 5000,
        etag: (!i.is_multiple_of(3)).then(|| format!("{:032x}", i)),
        last_modified_ms: (!i.is_multiple_of(7)).then_some(1_790_000_000_000 + i),
    }
}

/// Entries `0..n` in key order: what a file of them gives back by number.
pub fn sorted(n: u64) -> Vec<KeyEntry> {
    let mut sorted: Vec<KeyEntry> = (0..n).map(entry).collect();
    sorted.sort_by(|a, b| a.key.cmp(&b.key));
    sorted
}

/// `n` keys given shuffled (and the first hundred twice).
pub fn written(n: u64) -> (tempfile::TempDir, PathBuf, Written) {
    written_in_runs_of(n, 8 << 20)
}

/// As [`written`], sorted through runs of `run_bytes`.
pub fn written_in_runs_of(n: u64, run_bytes: usize) -> (tempfile::TempDir, PathBuf, Written) {
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

/// A file of the version written now at `path`, of `keys` keys in `blocks` (each a
/// block's entries as they are before compressing) of `per_block` entries.
pub fn file_of_blocks(path: &Path, per_block: u32, keys: u64, blocks: &[Vec<u8>]) {
    let mut out = MAGIC.to_vec();
    out.extend(VERSION.to_le_bytes());
    out.extend(per_block.to_le_bytes());
    let mut index = Vec::new();
    for raw in blocks {
        let compressed = lz4_flex::block::compress_prepend_size(raw);
        index.extend((out.len() as u64).to_le_bytes());
        index.extend((compressed.len() as u32).to_le_bytes());
        out.extend(compressed);
    }
    let index_offset = out.len() as u64;
    out.extend(index);
    out.extend(index_offset.to_le_bytes());
    out.extend((blocks.len() as u64).to_le_bytes());
    out.extend(keys.to_le_bytes());
    out.extend(MAGIC);
    assert_eq!(
        out.len() as u64 - index_offset,
        blocks.len() as u64 * 12 + FOOTER_LEN
    );
    std::fs::write(path, out).unwrap();
}
