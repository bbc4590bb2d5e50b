//! Multipart uploads in progress: parts kept (bytes, or only sizes in size-only mode)
//! until the upload is completed into one object — whose ETag is the MD5 of the parts'
//! MD5s followed by `-N`, as S3 and RGW write it — or aborted. Parts held count
//! against the memory budget until then.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use md5::{Digest, Md5};

use crate::budget::{Budget, OverBudget, part_cost};
use crate::data::Data;

/// Parts other than the last must be at least this large (S3's and RGW's minimum).
pub const MIN_PART_SIZE: u64 = 5 << 20;
/// Highest part number S3 accepts.
pub const MAX_PART_NUMBER: u32 = 10_000;

#[derive(Debug)]
pub struct Part {
    pub size: u64,
    pub md5: [u8; 16],
    /// The part's bytes, exactly sized; `None` in size-only mode.
    pub data: Option<Data>,
}

impl Part {
    /// What the part counts against the memory budget.
    pub fn cost(&self) -> u64 {
        part_cost(self.data.as_ref().map(|d| d.len()))
    }
}

#[derive(Debug)]
pub struct Upload {
    pub bucket: String,
    pub key: String,
    pub metadata: Box<[(Box<str>, Box<str>)]>,
    pub content_type: Option<Box<str>>,
    pub parts: BTreeMap<u32, Part>,
}

impl Upload {
    /// What the upload's parts count against the memory budget.
    fn cost(&self) -> u64 {
        self.parts.values().map(Part::cost).sum()
    }
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
    /// The object would not fit in the memory budget in the parts' place.
    OverBudget(OverBudget),
}

/// Why a part was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum PartError {
    NoSuchUpload,
    OverBudget(OverBudget),
}

/// A completed upload, ready to store as one object.
pub struct Assembled {
    pub bucket: String,
    pub key: String,
    pub size: u64,
    pub etag: [u8; 16],
    pub parts: u32,
    pub data: Option<Data>,
    /// What the upload's parts counted against the budget (freed once the object is
    /// stored in their place).
    pub held: u64,
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

    /// Stores a part (replacing one with the same number), charging `budget` for it
    /// less `freed` (budget reserved for it before); refused without the upload (or
    /// when it belongs to another bucket or key) or room in the budget.
    pub fn put_part(
        &self,
        target: (&str, &str, &str),
        number: u32,
        part: Part,
        budget: &Budget,
        freed: u64,
    ) -> Result<(), PartError> {
        let (id, bucket, key) = target;
        match self.lock().get_mut(id) {
            Some(u) if u.bucket == bucket && u.key == key => {
                let old = u.parts.get(&number).map_or(0, Part::cost);
                budget
                    .charge(part.cost(), old + freed)
                    .map_err(PartError::OverBudget)?;
                u.parts.insert(number, part);
                Ok(())
            }
            _ => Err(PartError::NoSuchUpload),
        }
    }

    /// Forgets the upload and its parts; returns what they counted against the budget.
    pub fn abort(&self, id: &str, bucket: &str, key: &str) -> Option<u64> {
        let mut open = self.lock();
        match open.get(id) {
            Some(u) if u.bucket == bucket && u.key == key => open.remove(id).map(|u| u.cost()),
            _ => None,
        }
    }

    /// Joins the listed parts (number and ETag, ascending) into one object and forgets
    /// the upload; the upload stays open when the list is refused, or when `fits`
    /// (given the object's size and what the parts hold) says the object has no room.
    pub fn complete(
        &self,
        id: &str,
        bucket: &str,
        key: &str,
        listed: &[(u32, String)],
        fits: impl FnOnce(&Upload, u64, u64) -> Result<(), OverBudget>,
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
        let held = upload.cost();
        fits(upload, size, held).map_err(CompleteError::OverBudget)?;
        let data = upload
            .parts
            .values()
            .next()
            .and_then(|p| p.data.as_ref())
            .map(|_| {
                // One allocation of the object's size, filled part by part.
                Data::filled(size as usize, |dst| {
                    let mut at = 0;
                    for (number, _) in listed {
                        if let Some(d) = upload.parts.get(number).and_then(|p| p.data.as_ref()) {
                            dst[at..at + d.len()].copy_from_slice(d);
                            at += d.len();
                        }
                    }
                })
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
            held,
            metadata: upload.metadata,
            content_type: upload.content_type,
        })
    }

    /// Uploads in progress (for inspection).
    pub fn open_count(&self) -> usize {
        self.lock().len()
    }
}
