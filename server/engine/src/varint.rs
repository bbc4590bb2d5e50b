//! LEB128 varints (7 bits a byte, low bits first), as the audit's spill files and key
//! files store their lengths and sizes: into a buffer or a writer, out of a buffer or a
//! reader.

use std::io::{self, Read, Write};

/// The bytes of `v` and how many of them there are.
fn encode(mut v: u64) -> ([u8; 10], usize) {
    let mut buf = [0u8; 10];
    let mut n = 0;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            buf[n] = byte;
            return (buf, n + 1);
        }
        buf[n] = byte | 0x80;
        n += 1;
    }
}

/// Appends `v` to `out`.
pub fn put(out: &mut Vec<u8>, v: u64) {
    let (buf, n) = encode(v);
    out.extend_from_slice(&buf[..n]);
}

/// Writes `v`; returns how many bytes that took.
pub fn write(w: &mut impl Write, v: u64) -> io::Result<usize> {
    let (buf, n) = encode(v);
    w.write_all(&buf[..n])?;
    Ok(n)
}

fn too_long() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "a varint is too long")
}

fn cut_short() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "a varint is cut short")
}

/// The varint at `*at` in `buf`, moving `*at` past it. Inlined with a path of its own
/// for one byte, what most lengths and counts take: a key file's picks read several
/// for each entry they pass.
#[inline]
pub fn get(buf: &[u8], at: &mut usize) -> io::Result<u64> {
    match buf.get(*at) {
        Some(&byte) if byte & 0x80 == 0 => {
            *at += 1;
            Ok(u64::from(byte))
        }
        _ => get_long(buf, at),
    }
}

/// [`get`] of a varint of more than one byte (or none).
fn get_long(buf: &[u8], at: &mut usize) -> io::Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *buf.get(*at).ok_or_else(cut_short)?;
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(too_long())
}

/// The next varint of a stream, or `None` at its end (before its first byte).
pub fn read(r: &mut impl Read) -> io::Result<Option<u64>> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let mut byte = [0u8; 1];
        if r.read(&mut byte)? == 0 {
            return if shift == 0 {
                Ok(None)
            } else {
                Err(cut_short())
            };
        }
        v |= u64::from(byte[0] & 0x7f) << shift;
        if byte[0] & 0x80 == 0 {
            return Ok(Some(v));
        }
    }
    Err(too_long())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_from_a_buffer_and_a_stream() {
        let values = [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX];
        let mut buf = Vec::new();
        for v in values {
            put(&mut buf, v);
        }
        let (mut at, mut stream) = (0, &buf[..]);
        for v in values {
            assert_eq!(get(&buf, &mut at).unwrap(), v);
            assert_eq!(read(&mut stream).unwrap(), Some(v));
        }
        assert_eq!(read(&mut stream).unwrap(), None);
        // u64::MAX takes the last ten bytes: one fewer is cut short.
        let mut last = buf.len() - 10;
        assert!(get(&buf[..buf.len() - 1], &mut last).is_err());
        assert!(read(&mut &[0x80u8][..]).is_err());
    }
}
