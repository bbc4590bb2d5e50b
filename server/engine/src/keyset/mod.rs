//! Reading keys keystorm did not write: a key file (made earlier, or by listing the
//! bucket at a phase's start) opened as the set of keys a phase picks from. A run reads
//! its shard's part of the file (positions `I, I + N, I + 2N, …` under `--shard I/N`),
//! mapped into memory once and shared, each worker through a reader of its own that
//! holds one block; picks are uniform, Zipf over a keyed shuffle of the positions (hot
//! keys spread over the key space, not clustered by name), or epochs: every position
//! exactly N times, each epoch in an order of its own, with no per-key state (see
//! [`permutation`] and [`epochs`]).

mod epochs;
mod permutation;

use std::path::Path;
use std::sync::Arc;

pub use epochs::{EpochPick, EpochPicks};
pub use permutation::Permutation;

use crate::keyfile::{Cursor, KeyEntry, KeyFile, KeyFileError};
use crate::keyspace::mix64;
use keystorm_results::Shard;

/// Salt of the shuffle that spreads Zipf's hot ranks over the positions.
const SALT_HOT: u64 = 0x4b45_5953_484f_5400;

/// The keys a phase reads: a key file, the bucket they are in, and this run's part.
#[derive(Debug)]
pub struct KeySet {
    file: KeyFile,
    bucket: String,
    /// The prefix listed, for list pages of a mix (`None`: the whole bucket).
    prefix: Option<String>,
    shard: Shard,
    part: u64,
    hot: Permutation,
}

impl KeySet {
    /// The key file at `path`, keys in `bucket`, this run's part of it by `shard`.
    pub fn open(
        path: &Path,
        bucket: &str,
        prefix: Option<String>,
        shard: Shard,
        seed: u64,
    ) -> Result<KeySet, KeyFileError> {
        let opened = KeyFile::open(path)?;
        // Mapped, picks read without a system call; where the file cannot be mapped,
        // they read it.
        let file = opened.mapped().unwrap_or_else(|e| {
            tracing::warn!("{e}: picking keys by reading the file instead");
            opened
        });
        let part = shard.share_of(file.keys());
        Ok(KeySet {
            bucket: bucket.to_string(),
            prefix,
            shard,
            part,
            hot: Permutation::new(part.max(1), mix64(seed ^ SALT_HOT, part)),
            file,
        })
    }

    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    pub fn prefix(&self) -> Option<&str> {
        self.prefix.as_deref()
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Keys in the whole file.
    pub fn keys(&self) -> u64 {
        self.file.keys()
    }

    /// Keys of this run's part: the positions it picks among.
    pub fn part_keys(&self) -> u64 {
        self.part
    }

    /// The part position a Zipf pick of `rank` (0 = hottest) reads: ranks shuffled
    /// over the part, so hot keys are not neighbours by name.
    pub fn hot(&self, rank: u64) -> u64 {
        self.hot.apply(rank)
    }

    /// A reader of its own (one per worker).
    pub fn reader(self: &Arc<Self>) -> Result<KeyReader, KeyFileError> {
        Ok(KeyReader {
            cursor: self.file.cursor()?,
            set: self.clone(),
        })
    }
}

/// One worker's way into a key set: one decoded block of the shared mapping.
pub struct KeyReader {
    set: Arc<KeySet>,
    cursor: Cursor,
}

impl KeyReader {
    pub fn set(&self) -> &KeySet {
        &self.set
    }

    /// The key at part position `j` (< part keys).
    pub fn at(&mut self, j: u64) -> Result<&KeyEntry, KeyFileError> {
        let i = self.set.shard.global(j);
        let file = &self.set.file;
        self.cursor.get(i)?.ok_or_else(|| {
            KeyFileError::format(file.path(), format!("key {i} is past the file's end"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyfile::KeyFileWriter;

    fn file(n: u64) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.keys");
        let mut w = KeyFileWriter::create(&path, dir.path()).unwrap();
        for i in 0..n {
            w.push(KeyEntry {
                key: format!("k{i:06}"),
                size: i,
                etag: None,
                last_modified_ms: None,
            })
            .unwrap();
        }
        w.finish().unwrap();
        (dir, path)
    }

    #[test]
    fn the_parts_of_the_shards_hold_every_key_once() {
        let (_dir, path) = file(5003);
        let mut seen = vec![0u32; 5003];
        for index in 0..3 {
            let shard = Shard::new(index, 3).unwrap();
            let set = Arc::new(KeySet::open(&path, "b", None, shard, 1).unwrap());
            let mut r = set.reader().unwrap();
            for j in 0..set.part_keys() {
                seen[r.at(j).unwrap().size as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
    }
}
