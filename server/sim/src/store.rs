//! Buckets and objects. Keys are ordered (listing is a range scan from the marker,
//! never a full scan per page) and stored as bytes so prefix bounds are exact.
//! Per-object overhead is kept small so millions of size-only objects fit.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;

use crate::Storage;

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
}

impl Object {
    pub fn etag_header(&self) -> String {
        format!("\"{}\"", hex::encode(self.etag))
    }
}

pub type Objects = BTreeMap<Box<[u8]>, Object>;

#[derive(Debug)]
pub struct Bucket {
    pub created_ms: u64,
    pub objects: RwLock<Objects>,
}

/// All buckets of the target.
#[derive(Debug)]
pub struct Store {
    pub storage: Storage,
    buckets: RwLock<BTreeMap<String, Arc<Bucket>>>,
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Store {
    pub fn new(storage: Storage) -> Store {
        Store {
            storage,
            buckets: RwLock::new(BTreeMap::new()),
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

    pub fn write(&self) -> std::sync::RwLockWriteGuard<'_, Objects> {
        self.objects.write().unwrap_or_else(|p| p.into_inner())
    }
}
