//! One side of a comparison on disk: records of (key, size, tag) appended to one of a
//! fixed number of files chosen by a hash of the key, so the two sides' records of one
//! key always land in partitions of the same number, and read back one file at a time.
//! A record is the key's length (varint), its bytes, the size (varint), the tag's
//! length (varint) and its bytes (an ETag, or nothing).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::keyspace::mix64;

/// Bytes buffered per partition file before a write.
const BUFFER: usize = 64 * 1024;

/// A partition written: where, and how many records.
pub(super) struct Part {
    pub path: PathBuf,
    pub records: u64,
    /// Bytes of records written (flushed or still buffered).
    pub bytes: u64,
}

/// How much of each partition a checkpoint accounts for: bytes and records.
pub(super) type Cut = Vec<(u64, u64)>;

pub(super) struct Spill {
    salt: u64,
    writers: Vec<BufWriter<File>>,
    parts: Vec<Part>,
}

impl Spill {
    /// `parts` empty files named `{name}-{n}` in `dir`, for keys hashed with `salt`.
    pub fn create(dir: &Path, name: &str, salt: u64, parts: usize) -> io::Result<Spill> {
        let mut writers = Vec::with_capacity(parts);
        let mut written = Vec::with_capacity(parts);
        for n in 0..parts {
            let path = dir.join(format!("{name}-{n}"));
            writers.push(BufWriter::with_capacity(BUFFER, File::create(&path)?));
            written.push(Part {
                path,
                records: 0,
                bytes: 0,
            });
        }
        Ok(Spill {
            salt,
            writers,
            parts: written,
        })
    }

    /// The files of an earlier `create` in `dir`, cut back to what `cut` accounts for
    /// and appended to from there; `None` when a file is missing or shorter than the
    /// cut (it was compared and removed, or is not this spill's).
    pub fn reopen(dir: &Path, name: &str, salt: u64, cut: &Cut) -> io::Result<Option<Spill>> {
        let mut writers = Vec::with_capacity(cut.len());
        let mut parts = Vec::with_capacity(cut.len());
        for (n, &(bytes, records)) in cut.iter().enumerate() {
            let path = dir.join(format!("{name}-{n}"));
            let file = match std::fs::OpenOptions::new().write(true).open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e),
            };
            if file.metadata()?.len() < bytes {
                return Ok(None);
            }
            file.set_len(bytes)?;
            let mut file = file;
            io::Seek::seek(&mut file, io::SeekFrom::Start(bytes))?;
            writers.push(BufWriter::with_capacity(BUFFER, file));
            parts.push(Part {
                path,
                records,
                bytes,
            });
        }
        Ok(Some(Spill {
            salt,
            writers,
            parts,
        }))
    }

    /// Everything pushed so far, flushed to disk: what a checkpoint may account for.
    pub fn cut(&mut self) -> io::Result<Cut> {
        for w in &mut self.writers {
            w.flush()?;
        }
        Ok(self.parts.iter().map(|p| (p.bytes, p.records)).collect())
    }

    pub fn push(&mut self, key: &[u8], size: u64, tag: &[u8]) -> io::Result<()> {
        let n = (hash(self.salt, key) % self.writers.len() as u64) as usize;
        let w = &mut self.writers[n];
        let mut bytes = crate::varint::write(w, key.len() as u64)?;
        w.write_all(key)?;
        bytes += key.len() + crate::varint::write(w, size)?;
        bytes += crate::varint::write(w, tag.len() as u64)?;
        w.write_all(tag)?;
        bytes += tag.len();
        self.parts[n].records += 1;
        self.parts[n].bytes += bytes as u64;
        Ok(())
    }

    /// The partitions, flushed and closed.
    pub fn finish(self) -> io::Result<Vec<Part>> {
        for mut w in self.writers {
            w.flush()?;
        }
        Ok(self.parts)
    }
}

/// Calls `f` with each record of the partition at `path`, in the order written; stops
/// at the first error `f` returns.
pub(super) fn read_records(
    path: &Path,
    mut f: impl FnMut(&[u8], u64, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut r = BufReader::with_capacity(BUFFER, File::open(path)?);
    let (mut key, mut tag) = (Vec::new(), Vec::new());
    while let Some(len) = crate::varint::read(&mut r)? {
        key.resize(len as usize, 0);
        r.read_exact(&mut key)?;
        let size = crate::varint::read(&mut r)?.ok_or_else(|| truncated(path))?;
        let tag_len = crate::varint::read(&mut r)?.ok_or_else(|| truncated(path))?;
        tag.resize(tag_len as usize, 0);
        r.read_exact(&mut tag)?;
        f(&key, size, &tag)?;
    }
    Ok(())
}

fn truncated(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("{}: a record is cut short", path.display()),
    )
}

/// A hash of `key` that differs with `salt` (each split level uses its own).
pub(super) fn hash(salt: u64, key: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325 ^ salt;
    for chunk in key.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = mix64(h, u64::from_le_bytes(word));
    }
    mix64(h, key.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_as_written_each_in_the_partition_of_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = Spill::create(dir.path(), "x", 7, 4).unwrap();
        let keys: Vec<String> = (0..1000).map(|i| format!("k/{i:05}")).collect();
        for (i, k) in keys.iter().enumerate() {
            spill.push(k.as_bytes(), i as u64 * 1_000_003, b"").unwrap();
        }
        spill.push(b"", u64::MAX, b"tag").unwrap();
        let parts = spill.finish().unwrap();
        assert_eq!(parts.iter().map(|p| p.records).sum::<u64>(), 1001);
        assert!(
            parts.iter().all(|p| p.records > 150),
            "spread over the parts"
        );
        let mut back = Vec::new();
        for (n, p) in parts.iter().enumerate() {
            read_records(&p.path, |k, size, tag| {
                assert_eq!(hash(7, k) % 4, n as u64);
                assert_eq!(tag.is_empty(), !k.is_empty());
                back.push((String::from_utf8(k.to_vec()).unwrap(), size));
                Ok(())
            })
            .unwrap();
        }
        back.sort();
        assert_eq!(back[0], (String::new(), u64::MAX));
        assert_eq!(back[1], ("k/00000".to_string(), 0));
        assert_eq!(back[1000], ("k/00999".to_string(), 999 * 1_000_003));
    }

    #[test]
    fn a_reopened_spill_holds_exactly_what_its_cut_accounted_for() {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = Spill::create(dir.path(), "x", 2, 4).unwrap();
        for i in 0..100 {
            spill
                .push(format!("before-{i}").as_bytes(), i, b"")
                .unwrap();
        }
        let cut = spill.cut().unwrap();
        for i in 0..50 {
            spill.push(format!("after-{i}").as_bytes(), i, b"").unwrap();
        }
        drop(spill);
        let mut again = Spill::reopen(dir.path(), "x", 2, &cut).unwrap().unwrap();
        again.push(b"resumed", 7, b"").unwrap();
        let parts = again.finish().unwrap();
        let mut keys = Vec::new();
        for p in &parts {
            read_records(&p.path, |k, _, _| {
                keys.push(String::from_utf8(k.to_vec()).unwrap());
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(keys.len(), 101);
        assert_eq!(parts.iter().map(|p| p.records).sum::<u64>(), 101);
        assert!(keys.iter().all(|k| !k.starts_with("after-")), "{keys:?}");
        assert!(keys.contains(&"resumed".to_string()));
        // A cut longer than the file (its partitions were compared and removed) is not
        // resumed from.
        std::fs::remove_file(&parts[0].path).unwrap();
        assert!(Spill::reopen(dir.path(), "x", 2, &cut).unwrap().is_none());
    }

    #[test]
    fn a_cut_record_is_an_error_not_a_short_answer() {
        let dir = tempfile::tempdir().unwrap();
        let mut spill = Spill::create(dir.path(), "x", 1, 1).unwrap();
        spill.push(b"abcdef", 300, b"e").unwrap();
        let part = spill.finish().unwrap().remove(0);
        let bytes = std::fs::read(&part.path).unwrap();
        std::fs::write(&part.path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(read_records(&part.path, |_, _, _| Ok(())).is_err());
    }
}
