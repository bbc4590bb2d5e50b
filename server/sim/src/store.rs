//! Buckets: their objects (see `objects`), usage totals kept with every change, the
//! RGW-like index, and the memory budget every write is charged against.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::budget::{Budget, OverBudget};
use crate::index::{BucketIndex, InstanceIds};
use crate::reshard_log::ReshardLog;
use crate::{IndexConfig, Storage};

pub use crate::objects::{Object, ObjectRef, Objects, etag_header};

#[derive(Debug)]
pub struct Bucket {
    pub created_ms: u64,
    pub objects: RwLock<Objects>,
    pub index: BucketIndex,
    /// Bytes stored, and bytes allocated in 4 KiB units (RGW's `size_actual`); kept
    /// with every change of `objects`, so usage is read without a scan.
    size: AtomicU64,
    size_actual: AtomicU64,
    budget: Arc<Budget>,
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
    /// What the target may hold, shared with every bucket.
    pub budget: Arc<Budget>,
    /// The delays applied, drawn against applied.
    pub delays: crate::delay_record::DelayRecord,
}

impl Store {
    /// A target holding at most `max_memory` bytes by its own accounting.
    pub fn new(storage: Storage, index_config: IndexConfig, max_memory: u64) -> Store {
        Store {
            storage,
            index_config,
            reshards: ReshardLog::default(),
            instance_ids: InstanceIds::new(),
            buckets: RwLock::new(BTreeMap::new()),
            uploads: crate::multipart::Uploads::default(),
            budget: Arc::new(Budget::new(max_memory)),
            delays: Default::default(),
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
                created_ms: crate::clock::now_ms(),
                objects: RwLock::new(Objects::default()),
                size: AtomicU64::new(0),
                size_actual: AtomicU64::new(0),
                budget: self.budget.clone(),
                index: BucketIndex::new(
                    self.index_config
                        .default_shards
                        .clamp(1, crate::reshard_log::MAX_SHARDS),
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

    /// Stores `object` under `key`, replacing what was there, unless the memory budget
    /// has no room for it.
    pub fn put(&self, key: &[u8], object: Object) -> Result<(), OverBudget> {
        self.put_freeing(key, object, 0)
    }

    /// [`put`](Self::put) for a write that also frees `freed` bytes of budget it
    /// took before (a reservation, the parts of a completed multipart upload).
    pub fn put_freeing(&self, key: &[u8], object: Object, freed: u64) -> Result<(), OverBudget> {
        let size = object.size;
        let cost = object.cost(key.len());
        let mut objects = self.write();
        let old = objects.get(key).map_or(0, |o| o.cost());
        self.budget.charge(cost, old + freed)?;
        if let Some(old) = objects.insert(key, object) {
            self.account(old.size, false);
        }
        self.account(size, true);
        Ok(())
    }

    /// What writing an object of `cost` under `key` would free: the cost of the
    /// object there now, if any.
    pub fn cost_of(&self, key: &[u8]) -> u64 {
        self.read().get(key).map_or(0, |o| o.cost())
    }

    /// Removes these keys (missing ones are fine).
    pub fn delete<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>) {
        let mut objects = self.write();
        for k in keys {
            if let Some(old) = objects.remove(k) {
                self.account(old.size, false);
                self.budget.release(old.cost);
            }
        }
    }

    /// Drops the index entries of these keys (see [`Objects::unlist`]); returns how
    /// many it dropped (objects gone meanwhile, or unlisted already, are not).
    pub fn unlist(&self, keys: &[Box<[u8]>]) -> u64 {
        if keys.is_empty() {
            return 0;
        }
        let mut objects = self.write();
        keys.iter().filter(|k| objects.unlist(k)).count() as u64
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
    fn usage_follows_puts_overwrites_and_deletes() {
        let store = Store::new(Storage::SizeOnly, IndexConfig::default(), u64::MAX);
        assert!(store.create_bucket("b"));
        let b = store.bucket("b").unwrap();
        b.put(b"a", object(10)).unwrap();
        b.put(b"b", object(5000)).unwrap();
        b.put(b"a", object(20)).unwrap();
        let u = b.usage();
        assert_eq!((u.objects, u.size, u.size_actual), (2, 5020, 4096 + 8192));
        b.delete([b"a".as_slice(), b"missing".as_slice()]);
        let u = b.usage();
        assert_eq!((u.objects, u.size, u.size_actual), (1, 5000, 8192));
    }

    #[test]
    fn the_budget_follows_puts_overwrites_and_deletes() {
        let with_bytes = |n: usize| Object {
            data: Some(crate::data::Data::from(vec![7; n].as_slice())),
            ..object(n as u64)
        };
        let one = with_bytes(1000).cost(1);
        let store = Store::new(Storage::Memory, IndexConfig::default(), 2 * one);
        store.create_bucket("b");
        let b = store.bucket("b").unwrap();
        b.put(b"a", with_bytes(1000)).unwrap();
        b.put(b"b", with_bytes(1000)).unwrap();
        assert_eq!(store.budget.used(), 2 * one);
        let e = b.put(b"c", with_bytes(1000)).unwrap_err();
        assert_eq!(e.wanted, one);
        // An overwrite of the same size fits in a full budget; a larger one does not.
        b.put(b"a", with_bytes(1000)).unwrap();
        assert!(b.put(b"a", with_bytes(1001)).is_err());
        assert_eq!(b.read().get(b"a").unwrap().data.unwrap().len(), 1000);
        b.delete([b"b".as_slice()]);
        assert_eq!(store.budget.used(), one);
        b.put(b"c", with_bytes(1000)).unwrap();
        assert_eq!(b.usage().objects, 2);
    }
}
