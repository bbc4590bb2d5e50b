//! A bucket's objects, ordered by key, in as little memory as their keys and numbers
//! need: entries packed into chunks of a few KiB (see `chunk`), found through an
//! ordered map from each chunk's lowest possible key. A size-only object costs its key
//! and about a dozen bytes; object bytes sit in one exactly-sized allocation each.
//!
//! Listing walks the chunks in order from the marker, reading packed entries: a page
//! costs what it returns, never a scan of the bucket.
//!
//! GET and listing read the same table, so an object whose index entry a reshard lost
//! (`lose_on_reshard`) stays in it, its key kept in a small set of unlisted keys that
//! listing skips: memory grows with the entries lost, not with the keys. Writing the
//! key again lists it again, as RGW re-adds the entry; removing it forgets it.

mod chunk;
mod column;
mod entry;
mod meta;
mod zero_etag;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::sync::Arc;

use chunk::Chunk;

use crate::data::Data;
use entry::Fields;

pub use meta::{Meta, meta_len};
pub(crate) use zero_etag::cheap as size_only_etag_is_cheap;
pub use zero_etag::size_only_etag;

/// One object to store.
#[derive(Debug, Clone)]
pub struct Object {
    pub size: u64,
    pub etag: [u8; 16],
    /// Milliseconds since the Unix epoch.
    pub last_modified_ms: u64,
    pub content_type: Option<Box<str>>,
    /// User metadata, names lower-case without `x-amz-meta-`.
    pub metadata: Box<[(Box<str>, Box<str>)]>,
    /// The object's bytes, exactly sized; `None` in size-only mode.
    pub data: Option<Data>,
    /// Parts of a multipart upload (0: a single PUT); the ETag then ends in `-parts`.
    pub parts: u32,
}

impl Object {
    /// What the object counts against the memory budget under a `key_len`-byte key.
    pub fn cost(&self, key_len: usize) -> u64 {
        crate::budget::object_cost(
            key_len,
            self.data.as_ref().map(|d| d.len()),
            meta_len(self.content_type.as_deref(), &self.metadata),
        )
    }
}

/// A stored object, read in place.
#[derive(Debug, Clone, Copy)]
pub struct ObjectRef<'a> {
    pub key: &'a [u8],
    pub size: u64,
    /// Milliseconds since the Unix epoch.
    pub last_modified_ms: u64,
    pub parts: u32,
    /// `None`: a size-only object's, worked out from the size when asked (`etag()`).
    pub(crate) etag: Option<[u8; 16]>,
    pub meta: Option<&'a Meta>,
    pub data: Option<&'a Data>,
}

/// `"<md5 hex>"`, or `"<hex>-N"` for an object of N multipart parts.
pub fn etag_header(etag: &[u8; 16], parts: u32) -> String {
    match parts {
        0 => format!("\"{}\"", hex::encode(etag)),
        n => format!("\"{}-{n}\"", hex::encode(etag)),
    }
}

impl ObjectRef<'_> {
    /// The MD5 of its bytes (of their parts' MD5s for a multipart object).
    pub fn etag(&self) -> [u8; 16] {
        entry::etag_of(self.size, self.etag)
    }

    pub fn etag_header(&self) -> String {
        etag_header(&self.etag(), self.parts)
    }

    pub fn content_type(&self) -> Option<&str> {
        self.meta.and_then(|m| m.content_type.as_deref())
    }

    pub fn metadata(&self) -> &[(Box<str>, Box<str>)] {
        self.meta.map_or(&[], |m| &m.user)
    }

    /// What the object counts against the memory budget.
    pub fn cost(&self) -> u64 {
        crate::budget::object_cost(
            self.key.len(),
            self.data.map(|d| d.len()),
            self.meta.map(Meta::charged_len),
        )
    }
}

/// What an object that was replaced or removed held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Removed {
    pub size: u64,
    /// What it counted against the memory budget.
    pub cost: u64,
}

#[derive(Debug)]
pub struct Objects {
    /// Chunks by a key at or below their first: the chunk for a key is the last whose
    /// bound is at or below it.
    chunks: BTreeMap<Box<[u8]>, Chunk>,
    len: usize,
    /// Times are kept relative to this (milliseconds since the Unix epoch), so recent
    /// ones take few bytes.
    epoch_ms: u64,
    /// The last metadata stored, shared with the next object written alike.
    last_meta: Option<Arc<Meta>>,
    /// Where a new entry is encoded before it goes into its chunk.
    scratch: Vec<u8>,
    /// Keys of objects whose index entry was lost: readable, but never listed.
    unlisted: BTreeSet<Box<[u8]>>,
}

impl Default for Objects {
    fn default() -> Self {
        Objects::new(crate::clock::now_ms())
    }
}

impl Objects {
    /// An empty table keeping times relative to `epoch_ms`.
    pub fn new(epoch_ms: u64) -> Objects {
        Objects {
            chunks: BTreeMap::new(),
            len: 0,
            epoch_ms,
            last_meta: None,
            scratch: Vec::new(),
            unlisted: BTreeSet::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chunk a key belongs in, and its bound.
    fn chunk_for(&self, key: &[u8]) -> Option<(&[u8], &Chunk)> {
        self.chunks
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(key)))
            .next_back()
            .map(|(b, c)| (&**b, c))
    }

    fn view<'a>(&self, chunk: &'a Chunk, i: usize) -> ObjectRef<'a> {
        view(self.epoch_ms, chunk, i)
    }

    pub fn get(&self, key: &[u8]) -> Option<ObjectRef<'_>> {
        let (_, chunk) = self.chunk_for(key)?;
        let i = chunk.search(key).ok()?;
        Some(self.view(chunk, i))
    }

    /// Stores `object` under `key`, listed; returns what it replaced.
    pub fn insert(&mut self, key: &[u8], object: Object) -> Option<Removed> {
        self.forget_unlisted(key);
        let meta = self.share(object.content_type, object.metadata);
        let time = i128::from(object.last_modified_ms) - i128::from(self.epoch_ms);
        let fields = Fields {
            size: object.size,
            time: time.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
            parts: object.parts,
            etag: Some(object.etag),
        };
        let mut encoded = std::mem::take(&mut self.scratch);
        encoded.clear();
        entry::encode(&mut encoded, key, &fields);
        let held = (object.data, meta);
        let replaced = if self.chunk_for(key).is_some() {
            self.insert_in_place(key, &encoded, held)
        } else {
            // Below every bound (or the first object): the first chunk takes it and its
            // bound moves down to the key.
            let mut chunk = self.chunks.pop_first().map(|(_, c)| c).unwrap_or_default();
            chunk.insert(0, &encoded, held);
            self.len += 1;
            self.split_if_full(key, chunk);
            None
        };
        self.scratch = encoded;
        replaced
    }

    fn insert_in_place(
        &mut self,
        key: &[u8],
        encoded: &[u8],
        held: chunk::Held,
    ) -> Option<Removed> {
        let epoch = self.epoch_ms;
        let (_, chunk) = self
            .chunks
            .range_mut::<[u8], _>((Bound::Unbounded, Bound::Included(key)))
            .next_back()?;
        match chunk.search(key) {
            Ok(i) => {
                let size = view(epoch, chunk, i).size;
                let (data, meta) = chunk.replace(i, encoded, held);
                Some(Removed {
                    size,
                    cost: crate::budget::object_cost(
                        key.len(),
                        data.as_ref().map(|d| d.len()),
                        meta.as_deref().map(Meta::charged_len),
                    ),
                })
            }
            Err(i) => {
                chunk.insert(i, encoded, held);
                self.len += 1;
                if chunk.byte_len() > chunk::MAX_BYTES && chunk.len() >= 2 {
                    let tail = chunk.split();
                    self.chunks.insert(tail.key(0).into(), tail);
                }
                None
            }
        }
    }

    /// Puts `chunk` back under `bound`, split in two if it outgrew its size.
    fn split_if_full(&mut self, bound: &[u8], mut chunk: Chunk) {
        if chunk.byte_len() > chunk::MAX_BYTES && chunk.len() >= 2 {
            let tail = chunk.split();
            self.chunks.insert(tail.key(0).into(), tail);
        }
        self.chunks.insert(bound.into(), chunk);
    }

    /// Removes the object under `key`; returns what it held.
    pub fn remove(&mut self, key: &[u8]) -> Option<Removed> {
        self.forget_unlisted(key);
        let epoch = self.epoch_ms;
        let (bound, chunk) = self
            .chunks
            .range_mut::<[u8], _>((Bound::Unbounded, Bound::Included(key)))
            .next_back()?;
        let i = chunk.search(key).ok()?;
        let size = view(epoch, chunk, i).size;
        let (data, meta) = chunk.remove(i);
        self.len -= 1;
        let removed = Removed {
            size,
            cost: crate::budget::object_cost(
                key.len(),
                data.as_ref().map(|d| d.len()),
                meta.as_deref().map(Meta::charged_len),
            ),
        };
        if chunk.byte_len() < chunk::MIN_BYTES {
            let bound = bound.clone();
            self.join_small(bound);
        }
        Some(removed)
    }

    /// Drops the chunk under `bound` if it is empty, or joins the next chunk into it
    /// when both fit in one, so deletions leave no trail of near-empty chunks.
    fn join_small(&mut self, bound: Box<[u8]>) {
        let next = self
            .chunks
            .range::<[u8], _>((Bound::Excluded(&*bound), Bound::Unbounded))
            .next()
            .map(|(b, c)| (b.clone(), c.byte_len()));
        let Some(chunk) = self.chunks.get_mut(&bound) else {
            return;
        };
        if chunk.len() == 0 {
            self.chunks.remove(&bound);
            return;
        }
        if let Some((next_bound, next_len)) = next
            && chunk.byte_len() + next_len <= chunk::MAX_BYTES * 3 / 4
            && let Some(next) = self.chunks.remove(&next_bound)
            && let Some(chunk) = self.chunks.get_mut(&bound)
        {
            chunk.append(next);
        }
    }

    /// Whether listings show the object under `key` (its index entry was not lost).
    pub fn is_listed(&self, key: &[u8]) -> bool {
        self.unlisted.is_empty() || !self.unlisted.contains(key)
    }

    /// Drops the index entry of the object under `key`: it stays readable, but no
    /// listing shows it until it is written again. `false` if there is no such object
    /// or its entry is gone already.
    pub fn unlist(&mut self, key: &[u8]) -> bool {
        self.get(key).is_some() && self.unlisted.insert(key.into())
    }

    /// Objects listings do not show.
    pub fn unlisted_len(&self) -> usize {
        self.unlisted.len()
    }

    /// Keys of the objects listings show, in key order.
    pub fn listed_keys(&self) -> impl Iterator<Item = &[u8]> {
        self.iter().map(|o| o.key).filter(|k| self.is_listed(k))
    }

    fn forget_unlisted(&mut self, key: &[u8]) {
        if !self.unlisted.is_empty() {
            self.unlisted.remove(key);
        }
    }

    /// Objects from `lower` on, in key order.
    pub fn iter_from(&self, lower: Bound<&[u8]>) -> Iter<'_> {
        let (key, excluded) = match lower {
            Bound::Included(k) => (k, false),
            Bound::Excluded(k) => (k, true),
            Bound::Unbounded => return self.iter(),
        };
        match self.chunk_for(key) {
            Some((bound, chunk)) => {
                let at = match chunk.search(key) {
                    Ok(i) if excluded => i + 1,
                    Ok(i) | Err(i) => i,
                };
                Iter {
                    current: Some((chunk, at)),
                    rest: self
                        .chunks
                        .range::<[u8], _>((Bound::Excluded(bound), Bound::Unbounded)),
                    epoch_ms: self.epoch_ms,
                }
            }
            None => self.iter(),
        }
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter {
            current: None,
            rest: self
                .chunks
                .range::<[u8], _>((Bound::Unbounded, Bound::Unbounded)),
            epoch_ms: self.epoch_ms,
        }
    }

    /// Metadata to keep with an object: none, the same as the last object's (shared),
    /// or new.
    fn share(
        &mut self,
        content_type: Option<Box<str>>,
        user: Box<[(Box<str>, Box<str>)]>,
    ) -> Option<Arc<Meta>> {
        if content_type.is_none() && user.is_empty() {
            return None;
        }
        let meta = Meta { content_type, user };
        match &self.last_meta {
            Some(last) if **last == meta => Some(last.clone()),
            _ => {
                let meta = Arc::new(meta);
                self.last_meta = Some(meta.clone());
                Some(meta)
            }
        }
    }

    /// Heap bytes of the table itself: chunk buffers and their bounds (not object bytes
    /// or metadata, and not the ordered map's nodes).
    pub fn table_bytes(&self) -> usize {
        self.chunks
            .iter()
            .map(|(b, c)| b.len() + c.heap_bytes())
            .sum()
    }
}

fn view(epoch_ms: u64, chunk: &Chunk, i: usize) -> ObjectRef<'_> {
    let (key, f) = chunk.fields(i);
    let ms = (i128::from(epoch_ms) + i128::from(f.time)).clamp(0, i128::from(u64::MAX));
    ObjectRef {
        key,
        size: f.size,
        etag: f.etag,
        last_modified_ms: ms as u64,
        parts: f.parts,
        meta: chunk.meta(i).map(|m| &**m),
        data: chunk.data(i),
    }
}

/// Objects in key order.
pub struct Iter<'a> {
    current: Option<(&'a Chunk, usize)>,
    rest: std::collections::btree_map::Range<'a, Box<[u8]>, Chunk>,
    epoch_ms: u64,
}

impl<'a> Iterator for Iter<'a> {
    type Item = ObjectRef<'a>;

    fn next(&mut self) -> Option<ObjectRef<'a>> {
        loop {
            if let Some((chunk, i)) = &mut self.current
                && *i < chunk.len()
            {
                *i += 1;
                return Some(view(self.epoch_ms, chunk, *i - 1));
            }
            self.current = Some((self.rest.next()?.1, 0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(size: u64, data: Option<&[u8]>) -> Object {
        Object {
            size,
            etag: size_only_etag(size),
            last_modified_ms: 1_700_000_000_000 + size,
            content_type: None,
            metadata: Box::new([]),
            data: data.map(Data::from),
            parts: 0,
        }
    }

    fn keys(o: &Objects) -> Vec<Vec<u8>> {
        o.iter().map(|e| e.key.to_vec()).collect()
    }

    #[test]
    fn keys_stay_ordered_as_bytes_through_splits_and_joins() {
        let mut o = Objects::new(1_700_000_000_000);
        let mut rng = fastrand::Rng::with_seed(3);
        let mut expected = std::collections::BTreeMap::new();
        for n in 0..20_000u64 {
            let len = rng.usize(0..40);
            let key: Vec<u8> = (0..len).map(|_| rng.u8(b'a'..=b'e')).collect();
            let replaced = o.insert(&key, object(n, None));
            assert_eq!(replaced.map(|r| r.size), expected.insert(key, n));
        }
        assert!(o.chunks.len() > 10, "{} chunks", o.chunks.len());
        assert_eq!(o.len(), expected.len());
        assert_eq!(keys(&o), expected.keys().cloned().collect::<Vec<_>>());
        // Delete most, in an order unrelated to the keys.
        let all: Vec<Vec<u8>> = expected.keys().cloned().collect();
        for (i, k) in all.iter().enumerate() {
            if i % 7 != 0 {
                assert_eq!(o.remove(k).map(|r| r.size), expected.remove(k));
            }
        }
        assert_eq!(o.remove(b"not there"), None);
        assert_eq!(keys(&o), expected.keys().cloned().collect::<Vec<_>>());
        for (k, size) in &expected {
            let got = o.get(k).expect("still there");
            assert_eq!((got.key, got.size), (k.as_slice(), *size));
            assert_eq!(got.last_modified_ms, 1_700_000_000_000 + size);
        }
        // Bounds at, between and around keys.
        let probes: Vec<Vec<u8>> = all.iter().step_by(97).cloned().collect();
        for p in probes.iter().chain([&vec![], &b"zzz".to_vec()]) {
            for (bound, skip) in [
                (Bound::Included(&p[..]), false),
                (Bound::Excluded(&p[..]), true),
            ] {
                let from: Vec<Vec<u8>> = o.iter_from(bound).map(|e| e.key.to_vec()).collect();
                let want: Vec<Vec<u8>> = expected
                    .keys()
                    .filter(|k| if skip { *k > p } else { *k >= p })
                    .cloned()
                    .collect();
                assert_eq!(from, want);
            }
        }
        for k in all.iter() {
            o.remove(k);
        }
        assert!(o.is_empty() && o.chunks.is_empty());
    }

    #[test]
    fn an_unlisted_object_stays_readable_until_written_again_or_removed() {
        let mut o = Objects::new(1_700_000_000_000);
        for k in [b"a", b"b", b"c", b"d"] {
            o.insert(k, object(1, Some(b"x")));
        }
        assert!(o.unlist(b"b") && o.unlist(b"c"));
        assert!(!o.unlist(b"b"), "gone already");
        assert!(!o.unlist(b"z"), "no such object");
        assert_eq!(o.unlisted_len(), 2);
        assert!(!o.is_listed(b"b") && o.is_listed(b"a"));
        assert_eq!(
            o.get(b"b").unwrap().data.map(|d| &d[..]),
            Some(b"x".as_slice())
        );
        let listed: Vec<&[u8]> = o.listed_keys().collect();
        assert_eq!(listed, [b"a".as_slice(), b"d"]);
        assert_eq!(o.len(), 4, "the objects are all there");
        // Written again: listed again. Removed: forgotten.
        o.insert(b"b", object(2, None));
        o.remove(b"c");
        assert_eq!(o.unlisted_len(), 0);
        assert!(o.is_listed(b"b") && o.is_listed(b"c"));
        assert_eq!(o.listed_keys().count(), 3);
    }

    #[test]
    fn objects_keep_their_bytes_times_and_metadata() {
        let mut o = Objects::new(1_800_000_000_000);
        let mut a = object(3, Some(b"abc"));
        a.last_modified_ms = 5;
        a.content_type = Some("text/plain".into());
        a.metadata = Box::new([("k".into(), "v".into())]);
        a.etag = [9; 16];
        o.insert(b"a", a.clone());
        o.insert(b"b", a.clone());
        let (ga, gb) = (o.get(b"a").unwrap(), o.get(b"b").unwrap());
        assert_eq!(ga.data.map(|d| &d[..]), Some(b"abc".as_slice()));
        assert_eq!((ga.last_modified_ms, ga.etag()), (5, [9; 16]));
        assert_eq!(ga.content_type(), Some("text/plain"));
        assert_eq!(ga.metadata(), &[("k".into(), "v".into())]);
        assert!(
            std::ptr::eq(ga.meta.unwrap(), gb.meta.unwrap()),
            "written alike, shared"
        );
        let removed = o.insert(b"a", object(0, Some(b""))).unwrap();
        assert_eq!(removed.cost, ga_cost());
        assert_eq!(o.get(b"a").unwrap().content_type(), None);

        fn ga_cost() -> u64 {
            crate::budget::object_cost(1, Some(3), Some(10 + 32 + 2))
        }
    }
}
