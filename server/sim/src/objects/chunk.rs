//! A run of neighbouring objects of one bucket: their entries packed back to back in
//! key order (see `entry`), where each starts, and the object bytes and metadata of
//! those that have any. Buffers are sized to what they hold plus at most an eighth, so
//! a chunk costs its entries' bytes and a few bytes more per object; a chunk is small
//! enough that inserting in the middle (a memmove) stays cheap.

use std::sync::Arc;

use super::column::{Column, grow, trim};
use super::entry::{self, Fields};
use super::meta::Meta;
use crate::data::Data;

/// A chunk past this many bytes of entries is split in two.
pub const MAX_BYTES: usize = 8 * 1024;
/// A chunk below this many bytes is joined with the next when both fit in one.
pub const MIN_BYTES: usize = MAX_BYTES / 4;

#[derive(Debug, Default)]
pub struct Chunk {
    bytes: Vec<u8>,
    starts: Vec<u32>,
    data: Column<Data>,
    meta: Column<Arc<Meta>>,
}

/// An entry's bytes and metadata, as taken out of a chunk.
pub type Held = (Option<Data>, Option<Arc<Meta>>);

impl Chunk {
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Bytes of packed entries.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    fn span(&self, i: usize) -> std::ops::Range<usize> {
        let start = self.starts[i] as usize;
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.bytes.len(), |s| *s as usize);
        start..end
    }

    pub fn key(&self, i: usize) -> &[u8] {
        entry::key(&self.bytes[self.starts[i] as usize..])
    }

    /// Where `key` is (`Ok`) or would go (`Err`).
    pub fn search(&self, key: &[u8]) -> Result<usize, usize> {
        self.starts
            .binary_search_by(|&s| entry::key(&self.bytes[s as usize..]).cmp(key))
    }

    pub fn fields(&self, i: usize) -> (&[u8], Fields) {
        entry::decode(&self.bytes[self.starts[i] as usize..])
    }

    pub fn data(&self, i: usize) -> Option<&Data> {
        self.data.get(i)
    }

    pub fn meta(&self, i: usize) -> Option<&Arc<Meta>> {
        self.meta.get(i)
    }

    /// Inserts an encoded entry as entry `i`.
    pub fn insert(&mut self, i: usize, encoded: &[u8], held: Held) {
        let at = self.starts.get(i).map_or(self.bytes.len(), |s| *s as usize);
        grow(&mut self.bytes, encoded.len());
        self.bytes.extend_from_slice(encoded);
        self.bytes[at..].rotate_right(encoded.len());
        for s in &mut self.starts[i..] {
            *s += encoded.len() as u32;
        }
        grow(&mut self.starts, 1);
        self.starts.insert(i, at as u32);
        let n = self.len() - 1;
        self.data.insert(i, n, held.0);
        self.meta.insert(i, n, held.1);
    }

    /// Puts an encoded entry in the place of entry `i`; returns what `i` held.
    pub fn replace(&mut self, i: usize, encoded: &[u8], held: Held) -> Held {
        let span = self.span(i);
        let old_len = span.len();
        if encoded.len() > old_len {
            grow(&mut self.bytes, encoded.len() - old_len);
        }
        self.bytes.splice(span, encoded.iter().copied());
        for s in &mut self.starts[i + 1..] {
            *s = (*s as usize + encoded.len() - old_len) as u32;
        }
        trim(&mut self.bytes);
        let n = self.len();
        (
            self.data.replace(i, n, held.0),
            self.meta.replace(i, n, held.1),
        )
    }

    /// Takes entry `i` out; returns what it held.
    pub fn remove(&mut self, i: usize) -> Held {
        let span = self.span(i);
        let len = span.len();
        self.bytes.drain(span);
        self.starts.remove(i);
        for s in &mut self.starts[i..] {
            *s -= len as u32;
        }
        trim(&mut self.bytes);
        trim(&mut self.starts);
        (self.data.remove(i), self.meta.remove(i))
    }

    /// Moves the entries from about the middle byte on into a new chunk.
    pub fn split(&mut self) -> Chunk {
        let half = self.bytes.len() / 2;
        let at = self
            .starts
            .partition_point(|&s| (s as usize) < half)
            .clamp(1, self.len().max(2) - 1);
        let from = self.starts[at] as usize;
        let tail = Chunk {
            bytes: self.bytes[from..].to_vec(),
            starts: self.starts[at..].iter().map(|s| s - from as u32).collect(),
            data: self.data.split_off(at),
            meta: self.meta.split_off(at),
        };
        self.bytes.truncate(from);
        self.starts.truncate(at);
        trim(&mut self.bytes);
        trim(&mut self.starts);
        tail
    }

    /// Appends `other`'s entries, which all sort after this chunk's.
    pub fn append(&mut self, other: Chunk) {
        let (mine, theirs) = (self.len(), other.len());
        let offset = self.bytes.len() as u32;
        grow(&mut self.bytes, other.bytes.len());
        self.bytes.extend_from_slice(&other.bytes);
        grow(&mut self.starts, theirs);
        self.starts.extend(other.starts.iter().map(|s| s + offset));
        self.data.append(mine, other.data, theirs);
        self.meta.append(mine, other.meta, theirs);
    }

    /// Heap bytes the chunk's buffers hold (capacity included; not the object bytes
    /// and metadata they point to).
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
            + self.starts.capacity() * 4
            + self.data.heap_bytes()
            + self.meta.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(key: &str, size: u64) -> Vec<u8> {
        let mut out = Vec::new();
        entry::encode(
            &mut out,
            key.as_bytes(),
            &Fields {
                size,
                time: 0,
                parts: 0,
                etag: Some(entry::size_only_etag(size)),
            },
        );
        out
    }

    fn keys(c: &Chunk) -> Vec<String> {
        (0..c.len())
            .map(|i| String::from_utf8_lossy(c.key(i)).into_owned())
            .collect()
    }

    #[test]
    fn entries_stay_in_order_through_every_change() {
        let mut c = Chunk::default();
        for (i, k) in ["b", "d", "a", "c"].iter().enumerate() {
            let at = c.search(k.as_bytes()).unwrap_err();
            let data = Data::from(vec![i as u8; i].as_slice());
            c.insert(at, &encoded(k, i as u64), (Some(data), None));
        }
        assert_eq!(keys(&c), ["a", "b", "c", "d"]);
        assert_eq!(c.fields(0).1.size, 2);
        assert_eq!(c.data(0).map(|d| d.len()), Some(2));
        let i = c.search(b"b").unwrap();
        let old = c.replace(i, &encoded("b", 300), (None, None));
        assert_eq!(old.0.map(|d| d.len()), Some(0));
        assert_eq!(c.fields(i), (b"b".as_slice(), c.fields(i).1));
        assert_eq!(c.fields(i).1.size, 300);
        assert_eq!(c.fields(i + 1).1.size, 3, "the next entry moved along");
        let tail = c.split();
        assert_eq!(
            (keys(&c), keys(&tail)),
            (
                vec!["a".into(), "b".into()],
                vec!["c".to_string(), "d".into()]
            )
        );
        assert_eq!(tail.data(1).map(|d| d[0]), Some(1));
        let removed = c.remove(0);
        assert_eq!(removed.0.map(|d| d.len()), Some(2));
        c.append(tail);
        assert_eq!(keys(&c), ["b", "c", "d"]);
        assert_eq!(c.data(2).map(|d| d.len()), Some(1));
        assert_eq!(c.search(b"c"), Ok(1));
        assert_eq!(c.search(b"bb"), Err(1));
    }
}
