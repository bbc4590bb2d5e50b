//! One object as the object table packs it: its key and numbers as variable-length
//! integers in a run of bytes, so an object costs little more than its key.
//!
//! An entry is `varint(key length) key varint(size) varint(zigzag(ms since the table's
//! epoch)) varint(parts << 1 | has ETag) [16-byte ETag]`. The ETag is left out when it
//! is the one a size-only object gets (the MD5 of its size in zeros), which is then
//! worked out again only when the ETag is asked for (reads that need the size or key
//! alone never hash) — for objects up to `DERIVED_MAX`, whose digest costs little to
//! work out (see `zero_etag`); larger ones keep theirs, 16 bytes being nothing next to
//! their size.

pub use super::zero_etag::size_only_etag;

/// The largest object whose ETag is left out when it can be worked out from the size.
pub const DERIVED_MAX: u64 = super::zero_etag::LADDER_END;

/// The numbers of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fields {
    pub size: u64,
    /// Milliseconds relative to the table's epoch.
    pub time: i64,
    pub parts: u32,
    /// `None`: the size-only ETag, to be worked out from the size (`etag_of`).
    pub etag: Option<[u8; 16]>,
}

/// An entry's ETag, worked out from its size if it was left out.
pub fn etag_of(size: u64, etag: Option<[u8; 16]>) -> [u8; 16] {
    etag.unwrap_or_else(|| size_only_etag(size))
}

/// Whether an object's ETag can be left out and worked out again from its size.
fn derivable(size: u64, parts: u32, etag: &[u8; 16]) -> bool {
    parts == 0 && size <= DERIVED_MAX && *etag == size_only_etag(size)
}

/// Appends the entry for `key` with `fields` to `out`.
pub fn encode(out: &mut Vec<u8>, key: &[u8], f: &Fields) {
    put_varint(out, key.len() as u64);
    out.extend_from_slice(key);
    put_varint(out, f.size);
    put_varint(out, zigzag(f.time));
    let kept = f.etag.filter(|e| !derivable(f.size, f.parts, e));
    put_varint(out, (u64::from(f.parts) << 1) | u64::from(kept.is_some()));
    if let Some(etag) = kept {
        out.extend_from_slice(&etag);
    }
}

/// The key of the entry at the start of `bytes`.
pub fn key(bytes: &[u8]) -> &[u8] {
    let (len, at) = varint(bytes, 0);
    &bytes[at..at + len as usize]
}

/// The key and numbers of the entry at the start of `bytes`.
pub fn decode(bytes: &[u8]) -> (&[u8], Fields) {
    let (len, at) = varint(bytes, 0);
    let key_end = at + len as usize;
    let key = &bytes[at..key_end];
    let (size, at) = varint(bytes, key_end);
    let (time, at) = varint(bytes, at);
    let (flags, at) = varint(bytes, at);
    let etag = (flags & 1 == 1).then(|| {
        let mut e = [0; 16];
        e.copy_from_slice(&bytes[at..at + 16]);
        e
    });
    let fields = Fields {
        size,
        time: unzigzag(time),
        parts: (flags >> 1) as u32,
        etag,
    };
    (key, fields)
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The varint at `at` and where the next field starts. Entries are only ever read
/// from what `encode` wrote.
fn varint(bytes: &[u8], mut at: usize) -> (u64, usize) {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let b = bytes[at];
        at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return (v, at);
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_as_written() {
        static LONG: [u8; 1024] = [b'x'; 1024];
        let cases = [
            (b"".as_slice(), 0, 0, 0, size_only_etag(0)),
            (b"k".as_slice(), 1024, 5_000, 0, size_only_etag(1024)),
            (
                b"dir/a b".as_slice(),
                u64::MAX,
                -1_795_000_000_123,
                0,
                [0xab; 16],
            ),
            (LONG.as_slice(), 5 << 30, i64::MAX, 10_000, [7; 16]),
            (b"mp".as_slice(), 12, i64::MIN, 3, size_only_etag(12)),
        ];
        for (key, size, time, parts, etag) in cases {
            let fields = Fields {
                size,
                time,
                parts,
                etag: Some(etag),
            };
            let mut out = vec![0xee];
            encode(&mut out, key, &fields);
            assert_eq!(self::key(&out[1..]), key);
            let (read_key, read) = decode(&out[1..]);
            assert_eq!(read_key, key);
            assert_eq!(etag_of(read.size, read.etag), etag);
            assert_eq!(
                Fields { etag: None, ..read },
                Fields {
                    etag: None,
                    ..fields
                }
            );
            assert_eq!(
                read.etag.is_none(),
                parts == 0 && size <= DERIVED_MAX,
                "left out when derivable"
            );
        }
    }

    #[test]
    fn large_objects_keep_their_etag() {
        let size = DERIVED_MAX + 1;
        let fields = Fields {
            size,
            time: 0,
            parts: 0,
            etag: Some(size_only_etag(size)),
        };
        let mut out = Vec::new();
        encode(&mut out, b"big", &fields);
        assert_eq!(out.len(), 1 + 3 + 4 + 1 + 1 + 16);
        assert_eq!(decode(&out), (b"big".as_slice(), fields));
    }

    #[test]
    fn a_size_only_entry_is_its_key_and_a_few_bytes() {
        let mut out = Vec::new();
        let fields = Fields {
            size: 1024,
            time: 3_600_000,
            parts: 0,
            etag: Some(size_only_etag(1024)),
        };
        encode(&mut out, b"0123456789abcdef", &fields);
        // Key length, key, two bytes of size, four of time, one of flags.
        assert_eq!(out.len(), 1 + 16 + 2 + 4 + 1);
        let mut with_etag = Vec::new();
        encode(
            &mut with_etag,
            b"0123456789abcdef",
            &Fields {
                etag: Some([1; 16]),
                ..fields
            },
        );
        assert_eq!(with_etag.len(), out.len() + 16);
    }
}
