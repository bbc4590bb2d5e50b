//! Buckets and objects. Keys are ordered (listing is a range scan from the marker,
//! never a full scan per page) and stored as bytes so prefix bounds are exact.
//! Per-object overhead is kept small so millions of size-only objects fit.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;

use crate::index::{BucketIndex, InstanceIds};
use crate::reshard::ReshardLog;
use crate::{IndexConfig, Storage};

/// One stored object.
#[derive(Debug, Clone)]
pub struct Object {
    pub size: u64,
    pub etag: [u8; 16],
    /// Milliseconds since the Unix epoch.
    pub last_modified_ms: u64,
    pub content_type: Option<Box<str>>,
    /// User metadata, names lower-case without `x-amz-meta-`.
    pub metadata: Box<[(Box<str>, Box<str>)]>,
    /// `None` in size-only mode.
    pub data: Option<Bytes>,
    /// Parts of a multipart upload (0: a single PUT); the ETag then ends in `-parts`.
    pub parts: u32,
}

impl Object {
    pub fn etag_header(&self) -> String {
        match self.parts {
            0 => format!("\"{}\"", hex::encode(self.etag)),
            n => format!("\"{}-{n}\"", hex::encode(self.etag)),
        }
    }
}

pub type Objects = BTreeMap<Key, Object>;

/// Key bytes kept inside the key itself up to this length.
const INLINE_KEY: usize = 30;

/// An object key. Keys up to 30 bytes (most keys a load generator writes) sit inline
/// in the map's nodes, so a listing walks node memory in order instead of following
/// one heap pointer per key: on a bucket of millions that pointer is a cache miss, and
/// was most of what a list page cost the target. Longer keys live on the heap.
#[derive(Debug, Clone)]
pub enum Key {
    Inline { len: u8, bytes: [u8; INLINE_KEY] },
    Heap(Box<[u8]>),
}

impl From<&[u8]> for Key {
    fn from(key: &[u8]) -> Key {
        if key.len() <= INLINE_KEY {
            let mut bytes = [0; INLINE_KEY];
            bytes[..key.len()].copy_from_slice(key);
            Key::Inline {
                len: key.len() as u8,
                bytes,
            }
        } else {
            Key::Heap(key.into())
        }
    }
}

impl From<Vec<u8>> for Key {
    fn from(key: Vec<u8>) -> Key {
        if key.len() <= INLINE_KEY {
            Key::from(key.as_slice())
        } else {
            Key::Heap(key.into_boxed_slice())
        }
    }
}

impl std::ops::Deref for Key {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Key::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Key::Heap(b) => b,
        }
    }
}

impl std::borrow::Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        self
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        **self == **other
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

#[derive(Debug)]
pub struct Bucket {
    pub created_ms: u64,
    pub objects: RwLock<Objects>,
    pub index: BucketIndex,
    /// Bytes stored, and bytes allocated in 4 KiB units (RGW's `size_actual`); kept
    /// with every change of `objects`, so usage is read without a scan.
    size: AtomicU64,
    size_actual: AtomicU64,
}

/// RGW rounds each object up to 4 KiB for its allocated size.
const ALLOCATION: u64 = 4096;

/// A bucket's usage, as RGW's stats report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub objects: u64,
    pub size: u64,
    pub size_actual: u64,
}

/// All buckets of the target.
#[derive(Debug)]
pub struct Store {
    pub storage: Storage,
    pub index_config: IndexConfig,
    /// Reshards done, for inspection.
    pub reshards: ReshardLog,
    /// Bucket instance ids.
    pub instance_ids: InstanceIds,
    buckets: RwLock<BTreeMap<String, Arc<Bucket>>>,
    /// Multipart uploads in progress, by upload id.
    pub uploads: crate::multipart::Uploads,
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Store {
    pub fn new(storage: Storage, index_config: IndexConfig) -> Store {
        Store {
            storage,
            index_config,
            reshards: ReshardLog::default(),
            instance_ids: InstanceIds::new(),
            buckets: RwLock::new(BTreeMap::new()),
            uploads: crate::multipart::Uploads::default(),
        }
    }

    pub fn bucket(&self, name: &str) -> Option<Arc<Bucket>> {
        self.buckets
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
            .cloned()
    }

    /// Creates a bucket; `false` if it already existed.
    pub fn create_bucket(&self, name: &str) -> bool {
        let mut b = self.buckets.write().unwrap_or_else(|p| p.into_inner());
        if b.contains_key(name) {
            return false;
        }
        b.insert(
            name.to_string(),
            Arc::new(Bucket {
                created_ms: now_ms(),
                objects: RwLock::new(BTreeMap::new()),
                size: AtomicU64::new(0),
                size_actual: AtomicU64::new(0),
                index: BucketIndex::new(
                    self.index_config
                        .default_shards
                        .clamp(1, crate::reshard::MAX_SHARDS),
                    self.instance_ids.next(),
                ),
            }),
        );
        true
    }

    /// Deletes an empty bucket.
    pub fn delete_bucket(&self, name: &str) -> Result<(), DeleteBucketError> {
        let mut b = self.buckets.write().unwrap_or_else(|p| p.into_inner());
        let bucket = b.get(name).ok_or(DeleteBucketError::NoSuchBucket)?;
        if !bucket
            .objects
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
        {
            return Err(DeleteBucketError::NotEmpty);
        }
        b.remove(name);
        Ok(())
    }

    /// (name, creation ms) of every bucket, by name.
    pub fn bucket_list(&self) -> Vec<(String, u64)> {
        self.buckets
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(n, b)| (n.clone(), b.created_ms))
            .collect()
    }

    pub fn object_count(&self, bucket: &str) -> Option<u64> {
        self.bucket(bucket)
            .map(|b| b.objects.read().unwrap_or_else(|p| p.into_inner()).len() as u64)
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum DeleteBucketError {
    NoSuchBucket,
    NotEmpty,
}

impl Bucket {
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, Objects> {
        self.objects.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Objects> {
        self.objects.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds (`add`) or takes away an object of `size` bytes from the usage totals;
    /// called with the write lock held.
    fn account(&self, size: u64, add: bool) {
        let actual = size.div_ceil(ALLOCATION) * ALLOCATION;
        if add {
            self.size.fetch_add(size, Ordering::Relaxed);
            self.size_actual.fetch_add(actual, Ordering::Relaxed);
        } else {
            self.size.fetch_sub(size, Ordering::Relaxed);
            self.size_actual.fetch_sub(actual, Ordering::Relaxed);
        }
    }

    /// Stores `object` under `key`, replacing what was there.
    pub fn put(&self, key: Key, object: Object) {
        let size = object.size;
        let mut objects = self.write();
        if let Some(old) = objects.insert(key, object) {
            self.account(old.size, false);
        }
        self.account(size, true);
    }

    /// Removes these keys (missing ones are fine).
    pub fn delete<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>) {
        let mut objects = self.write();
        for k in keys {
            if let Some(old) = objects.remove(k) {
                self.account(old.size, false);
            }
        }
    }

    pub fn usage(&self) -> Usage {
        let objects = self.read();
        Usage {
            objects: objects.len() as u64,
            size: self.size.load(Ordering::Relaxed),
            size_actual: self.size_actual.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(size: u64) -> Object {
        Object {
            size,
            etag: [0; 16],
            last_modified_ms: 0,
            content_type: None,
            metadata: Box::new([]),
            data: None,
            parts: 0,
        }
    }

    #[test]
    fn keys_order_as_bytes_whether_inline_or_not() {
        let long = [b'a'; 31];
        let keys: Vec<&[u8]> = vec![b"", b"a", &long, b"ab", b"a\xff", &long[..30], b"b"];
        let mut map = BTreeMap::new();
        for k in &keys {
            map.insert(Key::from(*k), ());
        }
        let mut sorted = keys.clone();
        sorted.sort();
        let walked: Vec<&[u8]> = map.keys().map(|k| &**k).collect();
        assert_eq!(walked, sorted);
        assert!(matches!(Key::from(&long[..30]), Key::Inline { .. }));
        assert!(matches!(Key::from(&long[..]), Key::Heap(_)));
        assert!(map.contains_key(&long[..]));
        assert_eq!(std::mem::size_of::<Key>(), 32);
    }

    #[test]
    fn usage_follows_puts_overwrites_and_deletes() {
        let store = Store::new(Storage::SizeOnly, IndexConfig::default());
        assert!(store.create_bucket("b"));
        let b = store.bucket("b").unwrap();
        b.put(b"a".as_slice().into(), object(10));
        b.put(b"b".as_slice().into(), object(5000));
        b.put(b"a".as_slice().into(), object(20));
        let u = b.usage();
        assert_eq!((u.objects, u.size, u.size_actual), (2, 5020, 4096 + 8192));
        b.delete([b"a".as_slice(), b"missing".as_slice()]);
        let u = b.usage();
        assert_eq!((u.objects, u.size, u.size_actual), (1, 5000, 8192));
    }
}
