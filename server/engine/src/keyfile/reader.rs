//! Opening a key file: the header and footer checked, and the index checked once
//! without being kept, so a file that is cut short or not a key file is refused before
//! a phase starts. Reading keys by number is the cursors' (`KeyFile::cursor`, beside
//! them): they read the file where needed, or the same file mapped into memory once
//! ([`KeyFile::mapped`], what a run's picks use).

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::KeyFileError;
use super::format::{FOOTER_LEN, HEADER_LEN, INDEX_ENTRY_LEN, MAGIC, OLDEST_VERSION, VERSION};
use super::mapped::Mapped;

/// Index entries checked at a time when a file is opened.
const INDEX_CHUNK: u64 = 4096;

/// An open key file: where its index is, shared by its cursors.
#[derive(Debug, Clone)]
pub struct KeyFile {
    pub(super) path: PathBuf,
    /// The format version its entries are in.
    pub(super) version: u32,
    pub(super) keys: u64,
    pub(super) entries_per_block: u32,
    pub(super) blocks: u64,
    pub(super) index_offset: u64,
    /// The whole file in memory, shared by the cursors, once [`KeyFile::mapped`].
    pub(super) map: Option<Arc<Mapped>>,
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
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(KeyFileError::Version {
                path: path.display().to_string(),
                found: version,
                oldest: OLDEST_VERSION,
                newest: VERSION,
            });
        }
        let entries_per_block = u32::from_le_bytes(header[12..16].try_into().unwrap_or_default());
        if entries_per_block == 0 {
            return Err(bad("zero entries per block"));
        }
        let mut footer = [0u8; FOOTER_LEN as usize];
        f.read_exact_at(&mut footer, len - FOOTER_LEN).map_err(io)?;
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
        let file = KeyFile {
            path: path.to_path_buf(),
            version,
            keys,
            entries_per_block,
            blocks,
            index_offset,
            map: None,
        };
        // Every block inside the file, checked a chunk of the index at a time.
        let mut raw = Vec::new();
        let mut first = 0;
        while first < blocks {
            let n = INDEX_CHUNK.min(blocks - first);
            raw.resize((n * INDEX_ENTRY_LEN) as usize, 0);
            f.read_exact_at(&mut raw, index_offset + first * INDEX_ENTRY_LEN)
                .map_err(io)?;
            let in_bounds = raw
                .chunks_exact(INDEX_ENTRY_LEN as usize)
                .map(index_entry)
                .all(|(offset, n)| {
                    offset >= HEADER_LEN && offset.saturating_add(u64::from(n)) <= index_offset
                });
            if !in_bounds {
                return Err(bad("a block lies outside the file"));
            }
            first += n;
        }
        Ok(file)
    }

    /// Whether the file at `path` is meant to be a key file: named `.keys`, or
    /// beginning as one does, or cut short inside that beginning (whatever else is
    /// wrong with it, `open` says). An empty or cut `.keys` file is a key file that
    /// `open` refuses, never an empty listing of another kind.
    pub fn is_one(path: &Path) -> bool {
        if path.extension().is_some_and(|e| e == "keys") {
            return true;
        }
        let mut start = Vec::with_capacity(MAGIC.len());
        File::open(path)
            .and_then(|f| f.take(MAGIC.len() as u64).read_to_end(&mut start))
            .is_ok()
            && !start.is_empty()
            && MAGIC.starts_with(&start)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keys in the file.
    pub fn keys(&self) -> u64 {
        self.keys
    }

    /// The same file mapped into memory, so that its cursors read blocks without a
    /// system call (random picks); refused if the file at its path is no longer the
    /// length it had when opened.
    pub fn mapped(&self) -> Result<KeyFile, KeyFileError> {
        let io = |e| KeyFileError::io(&self.path, e);
        let f = File::open(&self.path).map_err(io)?;
        let len = self.index_offset + self.blocks * INDEX_ENTRY_LEN + FOOTER_LEN;
        if f.metadata().map_err(io)?.len() != len {
            return Err(KeyFileError::format(
                &self.path,
                "its length changed since it was opened",
            ));
        }
        Ok(KeyFile {
            map: Some(Arc::new(Mapped::new(&f, len).map_err(io)?)),
            ..self.clone()
        })
    }
}

/// (offset, compressed length) of an index entry.
pub(super) fn index_entry(c: &[u8]) -> (u64, u32) {
    (
        u64::from_le_bytes(c[..8].try_into().unwrap_or_default()),
        u32::from_le_bytes(c[8..12].try_into().unwrap_or_default()),
    )
}

#[cfg(test)]
mod tests {
    use super::super::KeyFileWriter;
    use super::super::test_files::{entry, sorted, written, written_in_runs_of};
    use super::*;

    #[test]
    fn every_key_comes_back_once_in_key_order_by_number() {
        let n = 10_000;
        let (dir, path, done) = written(n);
        assert_eq!((done.keys, done.repeated), (n, 100));
        assert_eq!(done.bytes, std::fs::metadata(&path).unwrap().len());
        let file = KeyFile::open(&path).unwrap();
        assert_eq!(file.keys(), n);
        let sorted = sorted(n);
        let mut c = file.cursor().unwrap();
        for (i, want) in sorted.iter().enumerate() {
            assert_eq!(c.get(i as u64).unwrap(), Some(want), "key {i}");
        }
        assert_eq!(c.get(n).unwrap(), None);
        // Random picks from a second cursor, out of order.
        let mut other = file.cursor().unwrap();
        for i in [
            9_999, 0, 5_000, 127, 128, 129, 127, 126, 126, 1_024, 1_025, 1_023,
        ] {
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
    fn a_resumable_writer_cut_then_lost_resumes_from_its_cut() {
        let n = 20_000;
        let (_a, straight, _) = written(n);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.keys");
        let mut order: Vec<u64> = (0..n).chain(0..100).collect();
        fastrand::Rng::with_seed(4).shuffle(&mut order);
        let (before, after) = order.split_at(order.len() / 2);
        let mut w = super::super::KeyFileWriter::resumable(&path, None)
            .unwrap()
            .unwrap();
        for &i in before {
            w.push(entry(i)).unwrap();
        }
        let cut = w.cut().unwrap();
        // Keys after the cut that the crash loses, some of them in a run of their own.
        for &i in &after[..3000] {
            w.push(entry(i)).unwrap();
        }
        w.cut().unwrap();
        for &i in &after[3000..4000] {
            w.push(entry(i)).unwrap();
        }
        drop(w);
        // The resume takes the runs of the cut; the rest is given again.
        let mut w = super::super::KeyFileWriter::resumable(&path, Some(&cut))
            .unwrap()
            .unwrap();
        for &i in after {
            w.push(entry(i)).unwrap();
        }
        let done = w.finish().unwrap();
        assert_eq!((done.keys, done.repeated), (n, 100));
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(&straight).unwrap()
        );
        assert!(!super::super::runs_dir(&path).exists(), "runs removed");
        // A cut whose runs are gone cannot be resumed.
        assert!(
            super::super::KeyFileWriter::resumable(&path, Some(&cut))
                .unwrap()
                .is_none()
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
    fn an_empty_or_cut_key_file_is_one_that_open_refuses() {
        let (dir, path, _) = written(300);
        let bytes = std::fs::read(&path).unwrap();
        let empty = dir.path().join("empty.keys");
        std::fs::write(&empty, b"").unwrap();
        let header_only = dir.path().join("header");
        std::fs::write(&header_only, &bytes[..5]).unwrap();
        let half = dir.path().join("half.keys");
        std::fs::write(&half, &bytes[..bytes.len() / 2]).unwrap();
        for (file, name) in [
            (&empty, "empty.keys"),
            (&header_only, "header"),
            (&half, "half.keys"),
        ] {
            assert!(KeyFile::is_one(file), "{name}");
            let e = KeyFile::open(file).unwrap_err().to_string();
            assert!(
                e.contains(&format!("{name} is not a keystorm key file")),
                "{e}"
            );
        }
        // An empty file of JSON lines is an empty listing of that kind, not a key file.
        let lines = dir.path().join("empty.jsonl");
        std::fs::write(&lines, b"").unwrap();
        assert!(!KeyFile::is_one(&lines));
        std::fs::write(&lines, b"{\"key\":\"a\",\"size\":1}\n").unwrap();
        assert!(!KeyFile::is_one(&lines));
        assert!(KeyFile::is_one(&path));
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
            e.contains("format version 9; this keystorm reads versions 1 to 3"),
            "{e}"
        );
    }

    #[test]
    fn files_of_every_version_read_alike() {
        let n = 3000;
        let (_a, v3, _) = written(n);
        let dir = tempfile::tempdir().unwrap();
        let older = [1, 2].map(|version| {
            let path = dir.path().join(format!("v{version}.keys"));
            let mut w = KeyFileWriter::create(&path, dir.path())
                .unwrap()
                .writing_version(version);
            for i in 0..n {
                w.push(entry(i)).unwrap();
            }
            w.finish().unwrap();
            path
        });
        let [v1, v2] = &older;
        let files = [v1, v2, &v3].map(|p| KeyFile::open(p).unwrap());
        assert_eq!(files.each_ref().map(|f| f.version), [1, 2, 3]);
        let mut cursors = files.map(|f| f.cursor().unwrap());
        for i in 0..n {
            let want = cursors[2].get(i).unwrap().cloned();
            for c in &mut cursors[..2] {
                assert_eq!(c.get(i).unwrap().cloned(), want, "key {i}");
            }
        }
        // Version 2 keeps the MD5-shaped ETags as 16 bytes, not 32 characters.
        let size = |p: &Path| std::fs::metadata(p).unwrap().len();
        assert!(size(v2) < size(v1), "{} >= {}", size(v2), size(v1));
    }

    #[test]
    fn a_file_whose_length_changed_since_it_was_opened_is_not_mapped() {
        let (_dir, path, _) = written(1000);
        let file = KeyFile::open(&path).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.push(0);
        std::fs::write(&path, &bytes).unwrap();
        let e = file.mapped().unwrap_err().to_string();
        assert!(e.contains("its length changed since it was opened"), "{e}");
    }
}
