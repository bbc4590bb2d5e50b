//! The bytes of a key file (see the module's header): magic, version, and how an entry
//! and a block are encoded and decoded.

use std::fmt::Write as _;
use std::io;

use super::entry::KeyEntry;

pub const MAGIC: &[u8; 8] = b"KSTMKEYS";
/// The version written: 2 keeps an MD5 ETag as its 16 bytes; 3 stores a block as it is
/// when LZ4 would save little of it ([`STORED`]).
pub const VERSION: u32 = 3;
/// The first version whose blocks may be stored as they are.
const FIRST_STORING: u32 = 3;
/// Set in the first word of a block stored as it is (its length in the other bits);
/// clear in an LZ4 block's (its length decompressed).
pub const STORED: u32 = 1 << 31;
/// The oldest version read (1: every ETag as text).
pub const OLDEST_VERSION: u32 = 1;
/// The entries of the writer's runs stay version 1's, so a listing resumed by a newer
/// keystorm reads the runs an older one wrote.
pub const RUN_VERSION: u32 = 1;

/// Version 2's ETag codes: none, an MD5 (its 16 bytes), a multipart MD5 (its 16 bytes
/// and the part count), or text whose length is the code less `ETAG_TEXT`.
const ETAG_NONE: u64 = 0;
const ETAG_MD5: u64 = 1;
const ETAG_MULTIPART: u64 = 2;
const ETAG_TEXT: u64 = 3;
/// Entries in every block but the last: a random pick reaches its block and walks it,
/// so 16 (rather than the 32 and 128 of files written before) halves that work and the
/// memory it reaches, for about a byte a key more (an index entry a block, and each
/// block's first key whole).
pub const ENTRIES_PER_BLOCK: u32 = 16;
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

/// Appends `entry`, as format `version` encodes it, to a block whose key before it was
/// `previous`.
pub fn put_entry(out: &mut Vec<u8>, previous: &[u8], entry: &KeyEntry, version: u32) {
    let key = entry.key.as_bytes();
    let shared = previous.iter().zip(key).take_while(|(a, b)| a == b).count();
    put_varint(out, shared as u64);
    put_varint(out, (key.len() - shared) as u64);
    out.extend_from_slice(&key[shared..]);
    put_varint(out, entry.size);
    let etag = entry.etag.as_deref().unwrap_or("");
    if version == 1 {
        put_varint(out, etag.len() as u64);
        out.extend_from_slice(etag.as_bytes());
    } else {
        put_etag(out, etag);
    }
    put_varint(out, entry.last_modified_ms.map_or(0, |ms| ms + 1));
}

/// Appends an ETag as version 2 codes it: an MD5 as S3 writes it (32 lower-case hex
/// digits, `-N` after a multipart one's) as its 16 bytes, which do not compress as
/// text; anything else as text. Whatever is coded comes back as it was given.
fn put_etag(out: &mut Vec<u8>, etag: &str) {
    if etag.is_empty() {
        put_varint(out, ETAG_NONE);
        return;
    }
    let (digest, parts) = match etag.split_once('-') {
        Some((digest, parts)) => (digest, Some(parts)),
        None => (etag, None),
    };
    let mut bytes = [0u8; 16];
    let md5 = digest.len() == 32
        && digest
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && hex::decode_to_slice(digest, &mut bytes).is_ok();
    // Only a count written as the number writes itself comes back the same.
    let parts = match parts {
        None => Some(None),
        Some(p) => p
            .parse::<u64>()
            .ok()
            .filter(|n| n.to_string() == p)
            .map(Some),
    };
    match (md5, parts) {
        (true, Some(None)) => {
            put_varint(out, ETAG_MD5);
            out.extend_from_slice(&bytes);
        }
        (true, Some(Some(n))) => {
            put_varint(out, ETAG_MULTIPART);
            out.extend_from_slice(&bytes);
            put_varint(out, n);
        }
        _ => {
            put_varint(out, etag.len() as u64 + ETAG_TEXT);
            out.extend_from_slice(etag.as_bytes());
        }
    }
}

/// A block's bytes in format `version`: its entries `raw` LZ4-compressed, their length
/// first (u32); or, from version 3, stored as they are (their length with [`STORED`]
/// first) when compressing them saves less than an eighth, so a pick walks them where
/// they lie with nothing to decompress. Objects of a fill carry MD5 ETags and times of
/// their own that LZ4 finds little to repeat in; runs of alike times and ETags still
/// compress.
pub fn block_bytes(raw: &[u8], version: u32) -> Vec<u8> {
    let compressed = lz4_flex::block::compress_prepend_size(raw);
    let stored_len = u32::try_from(raw.len()).ok().filter(|&n| n < STORED);
    match stored_len {
        Some(n) if version >= FIRST_STORING && compressed.len() > raw.len() - raw.len() / 8 => {
            let mut out = Vec::with_capacity(raw.len() + 4);
            out.extend_from_slice(&(n | STORED).to_le_bytes());
            out.extend_from_slice(raw);
            out
        }
        _ => compressed,
    }
}

/// A block as it lies in a file.
pub enum Block<'a> {
    /// LZ4-compressed, `size` bytes decompressed.
    Compressed { size: usize, lz4: &'a [u8] },
    /// Its entries as they are.
    Stored(&'a [u8]),
}

/// What is wrong with a block's bytes before its entries are read.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlockError {
    #[error("cut short")]
    CutShort,
    #[error("stored as {stored} bytes, but its index gives it {indexed}")]
    StoredLength { stored: usize, indexed: usize },
}

impl<'a> Block<'a> {
    /// The block whose bytes (as the index gives them) are `bytes`, in format
    /// `version`; what is wrong with them otherwise.
    pub fn of(bytes: &'a [u8], version: u32) -> Result<Block<'a>, BlockError> {
        let (word, rest) = bytes.split_first_chunk::<4>().ok_or(BlockError::CutShort)?;
        let word = u32::from_le_bytes(*word);
        if version >= FIRST_STORING && word & STORED != 0 {
            let stored = (word & !STORED) as usize;
            if stored != rest.len() {
                return Err(BlockError::StoredLength {
                    stored,
                    indexed: rest.len(),
                });
            }
            return Ok(Block::Stored(rest));
        }
        Ok(Block::Compressed {
            size: word as usize,
            lz4: rest,
        })
    }
}

/// Decodes a whole block of format `version` into `into` (cleared first).
pub fn get_block(raw: &[u8], into: &mut Vec<KeyEntry>, version: u32) -> io::Result<()> {
    into.clear();
    let mut at = 0;
    let mut key: Vec<u8> = Vec::new();
    let mut entry = KeyEntry::default();
    while at < raw.len() {
        next_entry(raw, &mut at, &mut key, &mut entry, version)?;
        into.push(entry.clone());
    }
    Ok(())
}

/// Decodes the entry at `*at` of a block of format `version` into `entry` (its strings
/// reused), moving `*at` past it; `key` holds the key before it (empty at the block's
/// start) and then this one.
pub fn next_entry(
    raw: &[u8],
    at: &mut usize,
    key: &mut Vec<u8>,
    entry: &mut KeyEntry,
    version: u32,
) -> io::Result<()> {
    next_key(raw, at, key)?;
    let text = std::str::from_utf8(key)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a key is not UTF-8"))?;
    entry.key.clear();
    entry.key.push_str(text);
    entry.size = get_varint(raw, at)?;
    match etag_field(raw, at, version)? {
        Etag::Text(etag) => set_etag(
            entry,
            |e| e.push_str(&String::from_utf8_lossy(etag)),
            etag.is_empty(),
        ),
        Etag::Md5(digest, parts) => set_etag(
            entry,
            |e| {
                let mut text = [0u8; 32];
                if hex::encode_to_slice(digest, &mut text).is_ok() {
                    e.push_str(std::str::from_utf8(&text).unwrap_or_default());
                }
                if let Some(n) = parts {
                    let _ = write!(e, "-{n}");
                }
            },
            false,
        ),
    }
    entry.last_modified_ms = get_varint(raw, at)?.checked_sub(1);
    Ok(())
}

/// Moves `*at` past the entry there keeping only its key in `key`, as [`next_entry`]
/// does but without making its strings: what a pick does with the entries before the
/// one it reads.
pub fn skip_entry(raw: &[u8], at: &mut usize, key: &mut Vec<u8>, version: u32) -> io::Result<()> {
    next_key(raw, at, key)?;
    get_varint(raw, at)?;
    etag_field(raw, at, version)?;
    get_varint(raw, at)?;
    Ok(())
}

/// Turns `key` (the key before, empty at a block's start) into the key of the entry at
/// `*at`: its shared bytes kept, its suffix appended.
fn next_key(raw: &[u8], at: &mut usize, key: &mut Vec<u8>) -> io::Result<()> {
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
    Ok(())
}

/// An entry's ETag as stored: text (empty: none), or an MD5's 16 bytes with the part
/// count of a multipart one.
enum Etag<'a> {
    Text(&'a [u8]),
    Md5(&'a [u8], Option<u64>),
}

/// The ETag field at `*at` of an entry of format `version`, moving `*at` past it.
fn etag_field<'a>(raw: &'a [u8], at: &mut usize, version: u32) -> io::Result<Etag<'a>> {
    let code = get_varint(raw, at)?;
    if version == 1 {
        return Ok(Etag::Text(take(raw, at, code, "an ETag")?));
    }
    match code {
        ETAG_NONE => Ok(Etag::Text(&[])),
        ETAG_MD5 | ETAG_MULTIPART => {
            let digest = take(raw, at, 16, "an ETag")?;
            let parts = match code {
                ETAG_MULTIPART => Some(get_varint(raw, at)?),
                _ => None,
            };
            Ok(Etag::Md5(digest, parts))
        }
        text => Ok(Etag::Text(take(raw, at, text - ETAG_TEXT, "an ETag")?)),
    }
}

/// Sets `entry`'s ETag to what `write` writes into its reused string; `None` if `none`.
fn set_etag(entry: &mut KeyEntry, write: impl FnOnce(&mut String), none: bool) {
    if none {
        entry.etag = None;
        return;
    }
    let e = entry.etag.get_or_insert_with(String::new);
    e.clear();
    write(e);
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
        for version in [1, 2] {
            let mut raw = Vec::new();
            let mut previous: &[u8] = b"";
            for e in &entries {
                put_entry(&mut raw, previous, e, version);
                previous = e.key.as_bytes();
            }
            // The second key stores only what follows "photos/2024/".
            assert!(raw.len() < 17 + 26 + 1 + 60);
            let mut back = Vec::new();
            get_block(&raw, &mut back, version).unwrap();
            assert_eq!(back, entries, "version {version}");
            assert!(get_block(&raw[..raw.len() - 2], &mut back, version).is_err());
        }
    }

    #[test]
    fn a_block_is_stored_as_it_is_unless_compressing_saves_an_eighth() {
        // Bytes LZ4 finds nothing to repeat in, and bytes it does.
        let mut rng = fastrand::Rng::with_seed(1);
        let noise: Vec<u8> = (0..600).map(|_| rng.u8(..)).collect();
        let alike = b"k/0123456789abcdef".repeat(30);
        for (raw, stored) in [(&noise[..], true), (&alike[..], false)] {
            let bytes = block_bytes(raw, VERSION);
            match Block::of(&bytes, VERSION).unwrap() {
                Block::Stored(entries) => {
                    assert!(stored);
                    assert_eq!((entries, bytes.len()), (raw, raw.len() + 4));
                }
                Block::Compressed { size, lz4 } => {
                    assert!(!stored);
                    assert!(bytes.len() < raw.len() / 2, "{}", bytes.len());
                    let back = lz4_flex::block::decompress(lz4, size).unwrap();
                    assert_eq!(back, raw);
                }
            }
            // Version 2 compresses every block, and its first word is only a length.
            let v2 = block_bytes(raw, 2);
            assert!(matches!(Block::of(&v2, 2), Ok(Block::Compressed { .. })));
        }
        // A stored block whose length disagrees with its index entry is refused.
        let bytes = block_bytes(&noise, VERSION);
        let e = Block::of(&bytes[..bytes.len() - 1], VERSION).err().unwrap();
        assert_eq!(
            e.to_string(),
            "stored as 600 bytes, but its index gives it 599"
        );
        let e = Block::of(&bytes[..3], VERSION).err().unwrap();
        assert_eq!(
            (e.to_string(), e),
            ("cut short".into(), BlockError::CutShort)
        );
    }

    #[test]
    fn version_2_keeps_an_md5_etag_as_its_bytes_and_any_other_as_it_was() {
        let md5 = "9e107d9d372bb6826bd81d3542a419d6";
        let coded = |etag: &str| {
            let mut raw = Vec::new();
            put_etag(&mut raw, etag);
            raw
        };
        assert_eq!(coded(md5).len(), 1 + 16);
        assert_eq!(coded(&format!("{md5}-12")).len(), 1 + 16 + 1);
        // Not an MD5 as S3 writes it: kept as text, byte for byte.
        for other in [
            "9E107D9D372BB6826BD81D3542A419D6",
            "9e107d9d372bb6826bd81d3542a419d",
            "9e107d9d372bb6826bd81d3542a419d6-012",
            "9e107d9d372bb6826bd81d3542a419d6-",
            "9e107d9d372bb6826bd81d3542a419d6-x",
            "\"quoted\"",
            "-",
        ] {
            assert_eq!(coded(other).len(), 1 + other.len(), "{other}");
        }
        for etag in [
            Some(md5.to_string()),
            Some(format!("{md5}-10000")),
            Some("9E107D9D372BB6826BD81D3542A419D6".to_string()),
            Some("9e107d9d372bb6826bd81d3542a419d6-012".to_string()),
            None,
        ] {
            let entry = KeyEntry {
                key: "k".into(),
                size: 1,
                etag: etag.clone(),
                last_modified_ms: None,
            };
            let mut raw = Vec::new();
            put_entry(&mut raw, b"", &entry, 2);
            let mut back = Vec::new();
            get_block(&raw, &mut back, 2).unwrap();
            assert_eq!(back, [entry], "{etag:?}");
        }
    }
}
