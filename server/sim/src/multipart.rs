//! Multipart uploads in progress: parts kept (bytes, or only sizes in size-only mode)
//! until the upload is completed into one object — whose ETag is the MD5 of the parts'
//! MD5s followed by `-N`, as S3 and RGW write it — or aborted.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::{Bytes, BytesMut};
use md5::{Digest, Md5};

/// Parts other than the last must be at least this large (S3's and RGW's minimum).
pub const MIN_PART_SIZE: u64 = 5 << 20;
/// Highest part number S3 accepts.
pub const MAX_PART_NUMBER: u32 = 10_000;

#[derive(Debug)]
pub struct Part {
    pub size: u64,
    pub md5: [u8; 16],
    pub data: Option<Bytes>,
}

#[derive(Debug)]
pub struct Upload {
    pub bucket: String,
    pub key: String,
    pub metadata: Box<[(Box<str>, Box<str>)]>,
    pub content_type: Option<Box<str>>,
    pub parts: BTreeMap<u32, Part>,
}

#[derive(Debug, Default)]
pub struct Uploads {
    next: AtomicU64,
    open: Mutex<HashMap<String, Upload>>,
}

/// Why a completion was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum CompleteError {
    NoSuchUpload,
    InvalidPart,
    InvalidPartOrder,
    EntityTooSmall,
}

/// A completed upload, ready to store as one object.
pub struct Assembled {
    pub bucket: String,
    pub key: String,
    pub size: u64,
    pub etag: [u8; 16],
    pub parts: u32,
    pub data: Option<Bytes>,
    pub metadata: Box<[(Box<str>, Box<str>)]>,
    pub content_type: Option<Box<str>>,
}

impl Uploads {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Upload>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn create(&self, upload: Upload) -> String {
        let id = format!(
            "ks-{:016x}",
            self.next.fetch_add(1, Ordering::Relaxed) ^ 0x6b65_7973_746f_726d
        );
        self.lock().insert(id.clone(), upload);
        id
    }

    /// Stores a part (replacing one with the same number); `false` without the upload
    /// (or when it belongs to another bucket or key).
    pub fn put_part(&self, id: &str, bucket: &str, key: &str, number: u32, part: Part) -> bool {
        match self.lock().get_mut(id) {
            Some(u) if u.bucket == bucket && u.key == key => {
                u.parts.insert(number, part);
                true
            }
            _ => false,
        }
    }

    pub fn abort(&self, id: &str, bucket: &str, key: &str) -> bool {
        let mut open = self.lock();
        match open.get(id) {
            Some(u) if u.bucket == bucket && u.key == key => open.remove(id).is_some(),
            _ => false,
        }
    }

    /// Joins the listed parts (number and ETag, ascending) into one object and forgets
    /// the upload; the upload stays open when the list is refused.
    pub fn complete(
        &self,
        id: &str,
        bucket: &str,
        key: &str,
        listed: &[(u32, String)],
    ) -> Result<Assembled, CompleteError> {
        let mut open = self.lock();
        let upload = match open.get(id) {
            Some(u) if u.bucket == bucket && u.key == key => u,
            _ => return Err(CompleteError::NoSuchUpload),
        };
        if listed.is_empty() {
            return Err(CompleteError::InvalidPart);
        }
        if listed.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(CompleteError::InvalidPartOrder);
        }
        let mut digests = Md5::new();
        let mut size = 0;
        for (i, (number, etag)) in listed.iter().enumerate() {
            let part = upload.parts.get(number).ok_or(CompleteError::InvalidPart)?;
            if etag.trim_matches('"') != hex::encode(part.md5) {
                return Err(CompleteError::InvalidPart);
            }
            if i + 1 < listed.len() && part.size < MIN_PART_SIZE {
                return Err(CompleteError::EntityTooSmall);
            }
            digests.update(part.md5);
            size += part.size;
        }
        let data = upload
            .parts
            .values()
            .next()
            .and_then(|p| p.data.as_ref())
            .map(|_| {
                let mut all = BytesMut::with_capacity(size as usize);
                for (number, _) in listed {
                    if let Some(d) = upload.parts.get(number).and_then(|p| p.data.as_ref()) {
                        all.extend_from_slice(d);
                    }
                }
                all.freeze()
            });
        let Some(upload) = open.remove(id) else {
            return Err(CompleteError::NoSuchUpload);
        };
        Ok(Assembled {
            bucket: upload.bucket,
            key: upload.key,
            size,
            etag: digests.finalize().into(),
            parts: listed.len() as u32,
            data,
            metadata: upload.metadata,
            content_type: upload.content_type,
        })
    }

    /// Uploads in progress (for inspection).
    pub fn open_count(&self) -> usize {
        self.lock().len()
    }
}
