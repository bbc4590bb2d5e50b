//! The bytes of a key file (see the module's header): magic, version, and how an entry
//! and a block are encoded and decoded.

use std::io;

use super::entry::KeyEntry;

pub const MAGIC: &[u8; 8] = b"KSTMKEYS";
pub const VERSION: u32 = 1;
/// Entries in every block but the last.
pub const ENTRIES_PER_BLOCK: u32 = 128;
pub const HEADER_LEN: u64 = 16;
pub const FOOTER_LEN: u64 = 32;
/// Bytes of one block's index entry.
pub const INDEX_ENTRY_LEN: u64 = 12;

pub use crate::varint::{get as get_varint, put as put_varint};

fn short(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{what} is cut short"))
}

/// `len` bytes at `*at`, moving `*at` past them.
pub fn take<'a>(buf: &'a [u8], at: &mut usize, len: u64, what: &str) -> io::Result<&'a [u8]> {
    let end = at
        .checked_add(usize::try_from(len).map_err(|_| short(what))?)
        .filter(|end| *end <= buf.len())
        .ok_or_else(|| short(what))?;
    let bytes = &buf[*at..end];
    *at = end;
    Ok(bytes)
}

/// Appends `entry` to a block whose key before it was `previous`.
pub fn put_entry(out: &mut Vec<u8>, previous: &[u8], entry: &KeyEntry) {
    let key = entry.key.as_bytes();
    let shared = previous.iter().zip(key).take_while(|(a, b)| a == b).count();
    put_varint(out, shared as u64);
    put_varint(out, (key.len() - shared) as u64);
    out.extend_from_slice(&key[shared..]);
    put_varint(out, entry.size);
    let etag = entry.etag.as_deref().unwrap_or("").as_bytes();
    put_varint(out, etag.len() as u64);
    out.extend_from_slice(etag);
    put_varint(out, entry.last_modified_ms.map_or(0, |ms| ms + 1));
}

/// Decodes a whole block into `into` (cleared first).
pub fn get_block(raw: &[u8], into: &mut Vec<KeyEntry>) -> io::Result<()> {
    into.clear();
    let mut at = 0;
    let mut key: Vec<u8> = Vec::new();
    let mut entry = KeyEntry::default();
    while at < raw.len() {
        next_entry(raw, &mut at, &mut key, &mut entry)?;
        into.push(entry.clone());
    }
    Ok(())
}

/// Decodes the entry at `*at` of a block into `entry` (its strings reused), moving
/// `*at` past it; `key` holds the key before it (empty at the block's start) and then
/// this one.
pub fn next_entry(
    raw: &[u8],
    at: &mut usize,
    key: &mut Vec<u8>,
    entry: &mut KeyEntry,
) -> io::Result<()> {
    let shared = get_varint(raw, at)? as usize;
    if shared > key.len() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "an entry shares more than the key before it",
        ));
    }
    key.truncate(shared);
    let len = get_varint(raw, at)?;
    key.extend_from_slice(take(raw, at, len, "a key")?);
    let text = std::str::from_utf8(key)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a key is not UTF-8"))?;
    entry.key.clear();
    entry.key.push_str(text);
    entry.size = get_varint(raw, at)?;
    let etag_len = get_varint(raw, at)?;
    let etag = take(raw, at, etag_len, "an ETag")?;
    if etag.is_empty() {
        entry.etag = None;
    } else {
        let text = String::from_utf8_lossy(etag);
        match &mut entry.etag {
            Some(e) => {
                e.clear();
                e.push_str(&text);
            }
            None => entry.etag = Some(text.into_owned()),
        }
    }
    entry.last_modified_ms = get_varint(raw, at)?.checked_sub(1);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_as_written_front_coded() {
        let entries = vec![
            KeyEntry {
                key: "photos/2024/a.jpg".into(),
                size: 0,
                etag: None,
                last_modified_ms: Some(0),
            },
            KeyEntry {
                key: "photos/2024/b é %+&.jpg".into(),
                size: 20 << 20,
                etag: Some("d41d8cd98f00b204e9800998ecf8427e-3".into()),
                last_modified_ms: None,
            },
            KeyEntry {
                key: "q".into(),
                size: 7,
                etag: Some("x".into()),
                last_modified_ms: Some(1_795_000_000_000),
            },
        ];
        let mut raw = Vec::new();
        let mut previous: &[u8] = b"";
        for e in &entries {
            put_entry(&mut raw, previous, e);
            previous = e.key.as_bytes();
        }
        // The second key stores only what follows "photos/2024/".
        assert!(raw.len() < 17 + 26 + 1 + 60);
        let mut back = Vec::new();
        get_block(&raw, &mut back).unwrap();
        assert_eq!(back, entries);
        assert!(get_block(&raw[..raw.len() - 2], &mut back).is_err());
    }
}
