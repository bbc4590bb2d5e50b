//! The metadata scan: LIST does not return user metadata, so reading it for every
//! object takes a HEAD per key. Listers (any [`crate::listing`] mode) feed a bounded
//! queue of keys to HEAD workers on the shared connection pool; the queue's bound keeps
//! memory fixed and lets the listers run only as far ahead as the HEADs can follow.
//! LIST pages and HEADs are measured separately.

mod metadata;

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

pub use metadata::{MetadataName, MetadataSummary};

use crate::listing::{self, KeySink, ListError, ListJob, ListOutcome, ListOutputs, PageObserver};
use crate::ops::ErrorClass;
use crate::pool::{QueueWorker, spawn_pool};
use crate::s3::{HeadOutcome, ListEntry, S3Client};

/// Keys waiting for a HEAD, per HEAD worker.
const QUEUE_PER_WORKER: usize = 16;

/// One scan to run.
#[derive(Debug, Clone)]
pub struct ScanJob {
    pub list: ListJob,
    /// HEAD requests in flight.
    pub head_concurrency: u32,
}

/// What happened to one HEAD request, for latency recording.
#[derive(Debug, Clone, Copy)]
pub struct HeadEvent {
    pub worker: usize,
    pub start: Instant,
    pub end: Instant,
    pub outcome: Result<(), ErrorClass>,
}

/// Told about every HEAD as it finishes.
pub trait HeadObserver: Send + Sync {
    fn head(&self, event: HeadEvent);
}

impl HeadObserver for () {
    fn head(&self, _: HeadEvent) {}
}

#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error(transparent)]
    List(#[from] ListError),
    #[error("cannot write the output file: {0}")]
    Output(std::io::Error),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScanOutcome {
    pub listing: ListOutcome,
    /// HEADs that answered.
    pub heads: u64,
    /// HEADs that failed (404s included).
    pub head_errors: u64,
    /// Keys gone between LIST and HEAD (404).
    pub missing: u64,
    pub head_concurrency: u32,
    pub seconds: f64,
    pub metadata: MetadataSummary,
}

impl ScanOutcome {
    pub fn heads_per_sec(&self) -> f64 {
        if self.seconds > 0.0 {
            self.heads as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// Lists the job's keys and HEADs every one; `out` gets a JSON line per object (key,
/// size, ETag, last-modified, metadata).
pub async fn scan(
    client: &S3Client,
    job: &ScanJob,
    list_observer: Arc<dyn PageObserver>,
    head_observer: Arc<dyn HeadObserver>,
    out: Option<KeySink>,
    stop: CancellationToken,
) -> Result<ScanOutcome, ScanError> {
    let started = Instant::now();
    let workers = (0..job.head_concurrency.max(1) as usize)
        .map(|worker| HeadWorker {
            worker,
            client: client.clone(),
            bucket: job.list.bucket.clone(),
            observer: head_observer.clone(),
            out: out.clone(),
            tally: Tally::default(),
            line: String::new(),
            failure: None,
        })
        .collect();
    let (tx, mut heads) = spawn_pool(workers, QUEUE_PER_WORKER, &stop);
    let outputs = ListOutputs {
        keys_file: None,
        entries: Some(tx),
        checkpoint: None,
    };
    let listing = listing::list(client, &job.list, list_observer, outputs, stop.clone()).await;
    let mut tally = Tally::default();
    let mut failure = None;
    while let Some(joined) = heads.join_next().await {
        match joined {
            Ok(Ok(t)) => tally.merge(t),
            Ok(Err(e)) => {
                failure.get_or_insert(e);
            }
            Err(e) => {
                failure.get_or_insert(std::io::Error::other(format!(
                    "a HEAD worker stopped unexpectedly: {e}"
                )));
            }
        }
    }
    let listing = listing?;
    if let Some(e) = failure {
        return Err(ScanError::Output(e));
    }
    if let Some(out) = &out {
        out.lock()
            .unwrap_or_else(|e| e.into_inner())
            .flush()
            .map_err(ScanError::Output)?;
    }
    Ok(ScanOutcome {
        listing,
        heads: tally.heads,
        head_errors: tally.errors,
        missing: tally.missing,
        head_concurrency: job.head_concurrency.max(1),
        seconds: started.elapsed().as_secs_f64(),
        metadata: tally.metadata,
    })
}

#[derive(Default)]
struct Tally {
    heads: u64,
    errors: u64,
    missing: u64,
    metadata: MetadataSummary,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.heads += other.heads;
        self.errors += other.errors;
        self.missing += other.missing;
        self.metadata.merge(&other.metadata);
    }
}

struct HeadWorker {
    worker: usize,
    client: S3Client,
    bucket: String,
    observer: Arc<dyn HeadObserver>,
    out: Option<KeySink>,
    tally: Tally,
    line: String,
    /// Why the output could not be written (the worker stops there).
    failure: Option<std::io::Error>,
}

impl QueueWorker<ListEntry> for HeadWorker {
    type Done = Result<Tally, std::io::Error>;

    async fn one(&mut self, entry: ListEntry) -> bool {
        let start = Instant::now();
        let r = self.client.head_object(&self.bucket, &entry.key).await;
        let end = Instant::now();
        self.observer.head(HeadEvent {
            worker: self.worker,
            start,
            end,
            outcome: r.as_ref().map(|_| ()).map_err(|e| e.class),
        });
        match r {
            Ok(head) => {
                self.tally.heads += 1;
                self.tally.metadata.add(&head.metadata);
                if let Some(out) = &self.out {
                    self.line.clear();
                    object_line(&mut self.line, &entry.key, &head);
                    let written = out
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .write_all(self.line.as_bytes());
                    if let Err(e) = written {
                        self.failure = Some(e);
                        return false;
                    }
                }
            }
            Err(e) => {
                self.tally.errors += 1;
                if e.class == ErrorClass::Http(404) {
                    self.tally.missing += 1;
                }
            }
        }
        true
    }

    fn done(self) -> Self::Done {
        match self.failure {
            Some(e) => Err(e),
            None => Ok(self.tally),
        }
    }
}

/// One JSON line: key, size, ETag, last-modified and the user metadata.
fn object_line(out: &mut String, key: &str, head: &HeadOutcome) {
    let metadata: serde_json::Map<String, serde_json::Value> = head
        .metadata
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
        .collect();
    let json = serde_json::json!({
        "key": key,
        "size": head.size,
        "etag": head.etag,
        "last_modified": head.last_modified,
        "metadata": metadata,
    });
    let _ = writeln!(out, "{json}");
}
