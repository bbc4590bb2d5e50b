//! Reading one region of a key file with `pread`: what is asked for, or, once reads
//! follow one another through the region (a pass over the file's blocks, or over its
//! index), [`READ_AHEAD`] bytes at a time, so a pass makes one system call per many
//! blocks rather than one per block. A read that does not follow the last one (a
//! random pick) reads only its own bytes: picks do not pay for bytes they skip.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// How much a sequential read brings in at once.
pub const READ_AHEAD: usize = 128 << 10;

/// Bytes of one region of a file, the last read's kept.
#[derive(Default)]
pub struct ReadAhead {
    /// Bytes of the file from `start`.
    buf: Vec<u8>,
    start: u64,
    /// Where the last read asked for ended: a read from there follows it.
    next: Option<u64>,
}

impl ReadAhead {
    /// `len` bytes of `file` at `offset`: from what was read before where it holds
    /// them, else read now (with what follows them, when this read follows the last).
    pub fn bytes(&mut self, file: &File, offset: u64, len: usize) -> io::Result<&[u8]> {
        let end = offset.checked_add(len as u64).ok_or_else(past_the_end)?;
        let follows = self.next == Some(offset);
        self.next = Some(end);
        let held = offset >= self.start && end <= self.start + self.buf.len() as u64;
        if !held {
            let want = if follows { len.max(READ_AHEAD) } else { len };
            self.buf.resize(want, 0);
            let got = match read_at_most(file, &mut self.buf, offset) {
                Ok(got) => got,
                Err(e) => {
                    self.buf.clear();
                    return Err(e);
                }
            };
            self.buf.truncate(got);
            self.start = offset;
            if got < len {
                return Err(past_the_end());
            }
        }
        let from = (offset - self.start) as usize;
        Ok(&self.buf[from..from + len])
    }
}

/// Reads into `buf` from `offset` until it is full or the file ends; how much it read.
fn read_at_most(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

fn past_the_end() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "past the end")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file of `len` bytes, byte `i` being `i % 251`.
    fn file_of(len: usize) -> (tempfile::TempDir, File) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        File::create(&path).unwrap().write_all(&bytes).unwrap();
        (dir, File::open(&path).unwrap())
    }

    fn expected(offset: u64, len: usize) -> Vec<u8> {
        (offset..offset + len as u64)
            .map(|i| (i % 251) as u8)
            .collect()
    }

    #[test]
    fn reads_that_follow_one_another_are_served_from_one_read_ahead() {
        let len = 3 * READ_AHEAD + 100;
        let (_dir, file) = file_of(len);
        let mut r = ReadAhead::default();
        let mut offset = 0u64;
        let mut refills = 0;
        // Pieces of uneven lengths, each from where the last ended, to the file's end.
        for n in (1..).map(|k| 1 + k * 37 % 700) {
            if offset as usize + n > len {
                break;
            }
            let before = (r.start, r.buf.len());
            assert_eq!(r.bytes(&file, offset, n).unwrap(), expected(offset, n));
            refills += usize::from((r.start, r.buf.len()) != before);
            offset += n as u64;
        }
        // The first read is its own; after it, one read a READ_AHEAD (and the tail).
        assert!(refills <= 1 + len / READ_AHEAD + 1, "{refills} reads");
        assert!(offset as usize > len - 700);
        // Past the end is an error, and the next read from elsewhere still works.
        let e = r.bytes(&file, len as u64 - 10, 11).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(r.bytes(&file, 5, 10).unwrap(), expected(5, 10));
    }

    #[test]
    fn a_read_that_does_not_follow_the_last_reads_only_its_own_bytes() {
        let (_dir, file) = file_of(2 * READ_AHEAD);
        let mut r = ReadAhead::default();
        for (offset, len) in [(1000u64, 40usize), (70_000, 12), (10, 300), (200_000, 64)] {
            assert_eq!(r.bytes(&file, offset, len).unwrap(), expected(offset, len));
            assert_eq!(r.buf.len(), len, "at {offset}");
        }
        // Following the last read: the read ahead, clipped at the file's end.
        let at = 200_064u64;
        assert_eq!(r.bytes(&file, at, 8).unwrap(), expected(at, 8));
        assert_eq!(r.buf.len(), 2 * READ_AHEAD - at as usize);
        // Behind it, within what is held: no read, the same bytes.
        assert_eq!(
            r.bytes(&file, at + 100, 50).unwrap(),
            expected(at + 100, 50)
        );
        assert_eq!(r.start, at);
    }
}
