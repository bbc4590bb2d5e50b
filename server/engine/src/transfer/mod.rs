//! Moving data in bulk between a bucket and a local folder: one stream tops out at
//! tens of MB/s, so many objects move at once, and large ones in parallel parts
//! (ranged GETs down, multipart uploads up). Transfers resume: a file or object that is
//! already complete — same size, same ETag computed locally — is skipped. Keys become
//! paths through [`paths`], which keeps every key inside the folder.
//!
//! Memory is bounded by the settings (objects in flight × parts in flight × part size),
//! not by the number of objects: keys stream from a listing (down) or a folder walk
//! (up) through bounded queues.

mod download;
pub mod etag;
pub mod paths;
mod upload;
mod walk;

use std::sync::Mutex;
use std::time::Instant;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

pub use download::{DownloadJob, download};
pub use upload::{UploadJob, upload};

use crate::ops::{ErrorClass, OpKind};

/// Items waiting in a transfer's queue, per worker.
pub(crate) const QUEUE_PER_WORKER: usize = 8;
/// Failure messages kept for the outcome; the rest are only counted.
const MAX_FAILURES_KEPT: usize = 20;
/// Suffix of a file being downloaded; renamed to its name once complete.
pub const PARTIAL_SUFFIX: &str = ".keystorm-partial";

#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error(transparent)]
    List(#[from] crate::listing::ListError),
    #[error("local folder: {0}")]
    Folder(std::io::Error),
    #[error("bucket {0}")]
    Bucket(String),
}

/// How hard to push, for both directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransferSettings {
    /// Objects (files) moving at once.
    pub concurrency: u32,
    /// Size of a multipart part (up) or of a ranged GET (down).
    pub part_size: u64,
    /// Objects larger than this move in parts.
    pub parts_above: u64,
    /// Parts in flight per object.
    pub part_concurrency: u32,
    /// Skip what is already complete at the other end.
    pub resume: bool,
}

impl Default for TransferSettings {
    fn default() -> Self {
        TransferSettings {
            concurrency: 16,
            part_size: 16 << 20,
            parts_above: 64 << 20,
            part_concurrency: 4,
            resume: true,
        }
    }
}

/// One request of a transfer, for latency recording.
#[derive(Debug, Clone, Copy)]
pub struct RequestEvent {
    pub worker: usize,
    pub op: OpKind,
    pub start: Instant,
    pub end: Instant,
    /// Bytes moved, or why it failed.
    pub outcome: Result<u64, ErrorClass>,
}

pub trait TransferObserver: Send + Sync {
    fn request(&self, event: RequestEvent);
}

impl TransferObserver for () {
    fn request(&self, _: RequestEvent) {}
}

/// MiB/s of single objects (streams), over the objects of at least 1 MiB.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StreamRates {
    pub streams: u64,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TransferOutcome {
    /// `download` or `upload`.
    pub direction: String,
    /// Objects moved, and their bytes.
    pub objects: u64,
    pub bytes: u64,
    /// Objects already complete at the other end.
    pub skipped: u64,
    pub skipped_bytes: u64,
    pub failed: u64,
    /// Symbolic links an upload did not follow (all of them, or with `follow_symlinks`
    /// those leading back to a folder above them).
    #[serde(default)]
    pub symlinks_skipped: u64,
    pub seconds: f64,
    /// Bytes moved / seconds, in MiB/s.
    pub mib_per_sec: f64,
    /// Per-object rates.
    pub per_stream: StreamRates,
    /// The first failures' messages.
    pub failures: Vec<String>,
    /// False when stopped before the end.
    pub complete: bool,
}

/// Totals shared by the workers of one transfer.
pub(crate) struct Tally {
    started: Instant,
    inner: Mutex<TallyInner>,
}

struct TallyInner {
    objects: u64,
    bytes: u64,
    skipped: u64,
    skipped_bytes: u64,
    failed: u64,
    symlinks_skipped: u64,
    failures: Vec<String>,
    /// KiB/s of each object of at least 1 MiB.
    rates: Histogram<u64>,
}

impl Tally {
    pub fn new() -> Tally {
        Tally {
            started: Instant::now(),
            inner: Mutex::new(TallyInner {
                objects: 0,
                bytes: 0,
                skipped: 0,
                skipped_bytes: 0,
                failed: 0,
                symlinks_skipped: 0,
                failures: Vec::new(),
                rates: Histogram::new_with_bounds(1, 1 << 40, 3)
                    .expect("static histogram bounds are valid"),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TallyInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn moved(&self, bytes: u64, since: Instant) {
        let mut t = self.lock();
        t.objects += 1;
        t.bytes += bytes;
        let secs = since.elapsed().as_secs_f64();
        if bytes >= 1 << 20 && secs > 0.0 {
            let _ = t
                .rates
                .record(((bytes as f64 / 1024.0 / secs) as u64).max(1));
        }
    }

    pub fn skipped(&self, bytes: u64) {
        let mut t = self.lock();
        t.skipped += 1;
        t.skipped_bytes += bytes;
    }

    pub fn symlink_skipped(&self) {
        self.lock().symlinks_skipped += 1;
    }

    pub fn failed(&self, message: String) {
        let mut t = self.lock();
        t.failed += 1;
        if t.failures.len() < MAX_FAILURES_KEPT {
            t.failures.push(message);
        }
    }

    pub fn outcome(&self, direction: &str, complete: bool) -> TransferOutcome {
        let t = self.lock();
        let seconds = self.started.elapsed().as_secs_f64();
        let mib = |kib: u64| kib as f64 / 1024.0;
        TransferOutcome {
            direction: direction.to_string(),
            objects: t.objects,
            bytes: t.bytes,
            skipped: t.skipped,
            skipped_bytes: t.skipped_bytes,
            failed: t.failed,
            symlinks_skipped: t.symlinks_skipped,
            seconds,
            mib_per_sec: if seconds > 0.0 {
                t.bytes as f64 / 1048576.0 / seconds
            } else {
                0.0
            },
            per_stream: if t.rates.is_empty() {
                StreamRates::default()
            } else {
                StreamRates {
                    streams: t.rates.len(),
                    min: mib(t.rates.min()),
                    p50: mib(t.rates.value_at_quantile(0.5)),
                    p90: mib(t.rates.value_at_quantile(0.9)),
                    max: mib(t.rates.max()),
                }
            },
            failures: t.failures.clone(),
            complete,
        }
    }
}

/// The byte ranges (inclusive) of an object of `size` in parts of `part_size`.
pub(crate) fn ranges(size: u64, part_size: u64) -> impl Iterator<Item = (u64, u64)> {
    let part = part_size.max(1);
    (0..size.div_ceil(part)).map(move |i| (i * part, ((i + 1) * part).min(size) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_the_object_exactly() {
        assert_eq!(ranges(10, 4).collect::<Vec<_>>(), [(0, 3), (4, 7), (8, 9)]);
        assert_eq!(ranges(8, 4).collect::<Vec<_>>(), [(0, 3), (4, 7)]);
        assert_eq!(ranges(0, 4).count(), 0);
    }
}
