//! The metadata scan: LIST does not return user metadata, so reading it for every
//! object takes a HEAD per key. Listers (any [`crate::listing`] mode) feed a bounded
//! queue of keys to HEAD workers on the shared connection pool; the queue's bound keeps
//! memory fixed and lets the listers run only as far ahead as the HEADs can follow.
//! LIST pages and HEADs are measured separately.
//!
//! A scan saves its progress with its listing's checkpoint: both are cut together (see
//! [`crate::listing::quiesce`]), so a resumed scan HEADs only the keys of the pages the
//! cut did not account for, and its tally of metadata counts every object once.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

pub(crate) use keystorm_results::MetadataSummary;

use crate::inventory::{Feed, InventoryError, InventoryWriter, Row, Written};
use crate::listing::{
    self, CheckpointError, Checkpointing, ConsumerCut, KeySink, ListCheckpoint, ListError, ListJob,
    ListOutcome, ListOutputs, PageObserver, Quiesce,
};
use crate::pool::{QueueWorker, spawn_pool};
use keystorm_s3::{HeadOutcome, S3Client};
use keystorm_types::ErrorClass;
use keystorm_types::ListEntry;

/// Keys waiting for a HEAD, per HEAD worker.
const QUEUE_PER_WORKER: usize = 16;

/// One scan to run.
#[derive(Debug, Clone)]
pub struct ScanJob {
    pub list: ListJob,
    /// HEAD workers: HEAD requests in flight.
    pub head_workers: u32,
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
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Inventory(#[from] InventoryError),
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
    /// HEAD workers (HEAD requests in flight at most).
    pub head_workers: u32,
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
/// size, ETag, last-modified, metadata). With `progress`, the scan saves its progress
/// with the listing's and resumes from what it saved.
pub async fn scan(
    client: &S3Client,
    job: &ScanJob,
    list_observer: Arc<dyn PageObserver>,
    head_observer: Arc<dyn HeadObserver>,
    out: Option<KeySink>,
    progress: Option<Checkpointing>,
    stop: CancellationToken,
) -> Result<ScanOutcome, ScanError> {
    let out = out.map(Out::Lines);
    scan_with(
        client,
        job,
        list_observer,
        head_observer,
        out,
        progress,
        stop,
    )
    .await
}

/// Lists the job's keys and HEADs every one into an inventory with a metadata column:
/// the listing's columns and the metadata HEAD returned. The inventory is put in place
/// once the listing completed; objects whose HEAD failed have no row.
pub async fn scan_into(
    client: &S3Client,
    job: &ScanJob,
    list_observer: Arc<dyn PageObserver>,
    head_observer: Arc<dyn HeadObserver>,
    inventory: InventoryWriter,
    stop: CancellationToken,
) -> Result<(ScanOutcome, Option<Written>), ScanError> {
    let (rows, feed) = Feed::start::<Row>(inventory);
    let out = Some(Out::Rows(rows));
    let scanned = scan_with(client, job, list_observer, head_observer, out, None, stop).await;
    let complete = matches!(&scanned, Ok(s) if s.listing.complete);
    // The writer's failure first: it is why the scan stopped.
    let written = feed.finish(complete).await?;
    Ok((scanned?, written))
}

/// Where a scan writes each object it HEADed.
#[derive(Clone)]
enum Out {
    /// A JSON line per object.
    Lines(KeySink),
    /// An inventory row per object.
    Rows(tokio::sync::mpsc::Sender<Row>),
}

async fn scan_with(
    client: &S3Client,
    job: &ScanJob,
    list_observer: Arc<dyn PageObserver>,
    head_observer: Arc<dyn HeadObserver>,
    out: Option<Out>,
    progress: Option<Checkpointing>,
    stop: CancellationToken,
) -> Result<ScanOutcome, ScanError> {
    let started = Instant::now();
    let resumed = progress.as_ref().and_then(|c| c.resume.as_ref());
    let before: Tally = match resumed.and_then(|r| r.consumer.clone()) {
        Some(saved) => serde_json::from_value(saved).map_err(|e| CheckpointError::Format {
            path: progress
                .as_ref()
                .map_or(String::new(), |c| c.path.display().to_string()),
            message: format!("its scan tally: {e}"),
        })?,
        None => Tally::default(),
    };
    let started_unix_s = resumed.map_or_else(
        || {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        },
        |r| r.started_unix_s,
    );
    let quiesce = Arc::new(Quiesce::default());
    let tallies: Arc<Vec<Mutex<Tally>>> = Arc::new(
        (0..job.head_workers.max(1))
            .map(|_| Mutex::new(Tally::default()))
            .collect(),
    );
    let workers = (0..tallies.len())
        .map(|worker| HeadWorker {
            worker,
            client: client.clone(),
            bucket: job.list.bucket.clone(),
            observer: head_observer.clone(),
            out: out.clone(),
            tallies: tallies.clone(),
            quiesce: progress.is_some().then(|| quiesce.clone()),
            line: String::new(),
            failure: None,
        })
        .collect();
    let (tx, mut heads) = spawn_pool(workers, QUEUE_PER_WORKER, &stop);
    // The tally so far: what earlier runs saved plus every worker's.
    let so_far = {
        let (tallies, before) = (tallies.clone(), before.clone());
        move || {
            let mut t = before.clone();
            for mine in tallies.iter() {
                t.merge(&mine.lock().unwrap_or_else(|e| e.into_inner()));
            }
            t.seconds = before.seconds + started.elapsed().as_secs_f64();
            t
        }
    };
    let checkpoint = progress.map(|c| Checkpointing {
        consumer: Some(ConsumerCut {
            quiesce: quiesce.clone(),
            state: Arc::new({
                let so_far = so_far.clone();
                move || serde_json::to_value(so_far()).unwrap_or_default()
            }),
        }),
        ..c
    });
    let outputs = ListOutputs {
        keys_file: None,
        entries: Some(tx),
        checkpoint: checkpoint.clone(),
    };
    let listing = listing::list(client, &job.list, list_observer, outputs, stop.clone()).await;
    let mut failure = None;
    while let Some(joined) = heads.join_next().await {
        match joined {
            Ok(Ok(())) => {}
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
    if let Some(Out::Lines(out)) = &out {
        out.lock()
            .unwrap_or_else(|e| e.into_inner())
            .flush()
            .map_err(ScanError::Output)?;
    }
    let tally = so_far();
    if let Some(c) = &checkpoint
        && listing.complete
        && !stop.is_cancelled()
    {
        // Every key listed was HEADed: the last cut is the whole scan. A stopped scan
        // keeps its last periodic cut instead (the keys it had queued were dropped).
        if c.keep_complete {
            let value = serde_json::to_value(&tally).unwrap_or_default();
            ListCheckpoint::completed(&job.list, &listing, started_unix_s, Some(value))
                .write(&c.path)?;
        } else if let Err(e) = std::fs::remove_file(&c.path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            return Err(CheckpointError::Write {
                path: c.path.display().to_string(),
                source: e,
            }
            .into());
        }
    }
    Ok(ScanOutcome {
        listing,
        heads: tally.heads,
        head_errors: tally.errors,
        missing: tally.missing,
        head_workers: job.head_workers.max(1),
        seconds: tally.seconds,
        metadata: tally.metadata,
    })
}

/// What the HEADs found, and how long the scan ran (over all its runs, when resumed).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Tally {
    heads: u64,
    errors: u64,
    missing: u64,
    #[serde(default)]
    seconds: f64,
    metadata: MetadataSummary,
}

impl Tally {
    fn merge(&mut self, other: &Tally) {
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
    out: Option<Out>,
    /// Every worker's tally; this one writes its own (`worker`), a checkpoint reads all.
    tallies: Arc<Vec<Mutex<Tally>>>,
    /// Told of every key done, when the scan saves its progress.
    quiesce: Option<Arc<Quiesce>>,
    line: String,
    /// Why the output could not be written (the worker stops there).
    failure: Option<std::io::Error>,
}

impl HeadWorker {
    fn tally(&self) -> std::sync::MutexGuard<'_, Tally> {
        self.tallies[self.worker]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

impl QueueWorker<ListEntry> for HeadWorker {
    type Done = Result<(), std::io::Error>;

    async fn one(&mut self, entry: ListEntry) -> bool {
        let going_on = self.head(entry).await;
        if let Some(q) = &self.quiesce {
            q.consumed();
        }
        going_on
    }

    fn done(self) -> Self::Done {
        match self.failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl HeadWorker {
    /// HEADs one key and counts what it found; `false` when the output failed.
    async fn head(&mut self, entry: ListEntry) -> bool {
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
                {
                    let mut tally = self.tally();
                    tally.heads += 1;
                    tally.metadata.add(&head.metadata);
                }
                match &self.out {
                    Some(Out::Lines(out)) => {
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
                    Some(Out::Rows(rows)) => {
                        let row = Row::from(entry).with_metadata(head.metadata);
                        if rows.send(row).await.is_err() {
                            // The writer stopped; its own error says why.
                            self.failure =
                                Some(std::io::Error::other("the inventory writer stopped"));
                            return false;
                        }
                    }
                    None => {}
                }
            }
            Err(e) => {
                let mut tally = self.tally();
                tally.errors += 1;
                if e.class == ErrorClass::Http(404) {
                    tally.missing += 1;
                }
            }
        }
        true
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
