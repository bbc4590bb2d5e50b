//! What a transfer counts as it goes (objects, bytes, skips, failures, per-request
//! latency) and how it ended.

use std::sync::Mutex;
use std::time::Instant;

use hdrhistogram::Histogram;

use keystorm_types::{ErrorClass, OpKind};

pub(crate) use keystorm_results::{StreamRates, TransferOutcome};

/// Failure messages kept for the outcome; the rest are only counted.
const MAX_FAILURES_KEPT: usize = 20;
/// Why a transfer stopped.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error(transparent)]
    List(#[from] crate::listing::ListError),
    #[error("local folder: {0}")]
    Folder(std::io::Error),
    #[error("bucket {0}")]
    Bucket(String),
}

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
