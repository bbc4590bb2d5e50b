//! A complete-listing phase: the keyspace prefix (or the phase's own) of every bucket
//! listed in turn with the phase's listing mode (serial, prefix or adaptive), each
//! ListObjectsV2 request recorded as a `list` operation, and each bucket's key count,
//! bytes and space report kept for a `listing` event when the phase ends. A metadata
//! scan (`op: head`, `keys: bucket`) also HEADs every listed key, each HEAD recorded as
//! a `head` operation, and keeps what the metadata held for a `metadata_scan` event.
//!
//! A listing of billions of keys runs for hours, so each bucket's listing saves its
//! progress in the run folder (`listing-N.checkpoint.json`, N the bucket's place) every
//! `checkpoint_every`, and a resumed phase lists only what is left. A bucket listed
//! completely keeps its checkpoint until the phase is done, so a resume does not list it
//! again.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::context::RunContext;
use super::pass_recorders::PassRecorders;
use crate::listing::{
    self, CheckpointError, Checkpointing, ListCheckpoint, ListJob, ListOutcome, ListOutputs,
};
use crate::metrics::Recorder;
use crate::plan::{ListingPlan, PhasePlan};
use crate::results::PhaseRef;
use crate::results::{MetadataScanEvent, RunEvent};
use crate::s3::S3Client;
use crate::scan::{self, ScanJob, ScanOutcome};

/// What the listing task needs, taken from the run before it is spawned.
pub(crate) struct ListingTask {
    client: S3Client,
    buckets: Vec<String>,
    prefix: String,
    listing: ListingPlan,
    /// A metadata scan: this many listers feed the phase's `concurrency` HEAD workers.
    scan_listers: Option<u32>,
    concurrency: u32,
    page_size: u32,
    retries: u32,
    /// The part of each bucket this run lists (all of it unless the run is a shard).
    shard: crate::plan::Shard,
    observer: Arc<PassRecorders>,
    stop: CancellationToken,
    progress: ListingProgress,
    /// One outcome per bucket listed (a handful: one per bucket of the workload).
    pub outcomes: Arc<Mutex<Vec<ScanOrList>>>,
}

/// Where a listing phase saves each bucket's progress, and whether it resumes.
pub(crate) struct ListingProgress {
    /// The run folder.
    pub dir: PathBuf,
    pub every: Duration,
    /// Continue from the saved progress (a resumed phase), rather than start over.
    pub resume: bool,
}

/// The checkpoint file of the listing of the workload's `bucket`-th bucket.
fn checkpoint_path(dir: &Path, bucket: usize) -> PathBuf {
    dir.join(format!("listing-{bucket}.checkpoint.json"))
}

/// Removes the listing checkpoints of a finished phase (or stale ones of an earlier
/// phase); a file that is not there is fine.
pub(crate) fn forget_progress(dir: &Path, buckets: usize) -> std::io::Result<()> {
    for b in 0..buckets {
        match std::fs::remove_file(checkpoint_path(dir, b)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// What one bucket's pass gave.
pub(crate) enum ScanOrList {
    List(Box<ListOutcome>),
    Scan(Box<ScanOutcome>),
}

impl ListingTask {
    pub fn new(
        ctx: &RunContext,
        plan: &PhasePlan,
        listing: &ListingPlan,
        scan_listers: Option<u32>,
        recorders: &[Recorder],
        stop: CancellationToken,
        progress: ListingProgress,
    ) -> ListingTask {
        ListingTask {
            client: ctx.client.clone(),
            buckets: ctx.plan.buckets.names.clone(),
            prefix: listing
                .prefix
                .clone()
                .unwrap_or_else(|| ctx.keyspace.prefix().to_string()),
            listing: listing.clone(),
            scan_listers,
            concurrency: plan.concurrency,
            page_size: plan.page_size,
            retries: ctx.plan.target.retries,
            shard: ctx.plan.keyspace.shard,
            observer: Arc::new(PassRecorders::new(recorders)),
            stop,
            progress,
            outcomes: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Saving the listing of the `bucket`-th bucket, from its saved progress when the
    /// phase resumes.
    fn checkpointing(
        &self,
        bucket: usize,
        job: &ListJob,
    ) -> Result<Checkpointing, CheckpointError> {
        let path = checkpoint_path(&self.progress.dir, bucket);
        let resume = if self.progress.resume {
            match ListCheckpoint::read(&path)? {
                Some(c) => {
                    c.check_matches(job, false, &path)?;
                    Some(c)
                }
                None => None,
            }
        } else {
            None
        };
        Ok(Checkpointing {
            path,
            every: self.progress.every,
            resume,
            on_save: None,
            keep_complete: true,
            consumer: None,
        })
    }

    /// Lists (or scans) every bucket; returns a warning if one failed.
    pub async fn run(self) -> Option<String> {
        if !self.progress.resume
            && let Err(e) = forget_progress(&self.progress.dir, self.buckets.len())
        {
            return Some(format!("cannot remove an old listing checkpoint: {e}"));
        }
        for (n, bucket) in self.buckets.iter().enumerate() {
            if self.stop.is_cancelled() {
                return None;
            }
            let job = ListJob {
                bucket: bucket.clone(),
                prefix: self.prefix.clone(),
                mode: self.listing.mode.clone(),
                concurrency: self.scan_listers.unwrap_or(self.concurrency),
                page_size: self.page_size,
                retries: self.retries,
                report_depth: self.listing.report_depth,
                shard: self.shard,
            };
            let checkpoint = match self.checkpointing(n, &job) {
                Ok(c) => c,
                Err(e) => return Some(format!("bucket {bucket}: {e}")),
            };
            let done = match self.scan_listers {
                Some(_) => {
                    let scan_job = ScanJob {
                        list: job,
                        head_concurrency: self.concurrency,
                    };
                    scan::scan(
                        &self.client,
                        &scan_job,
                        self.observer.clone(),
                        self.observer.clone(),
                        None,
                        Some(checkpoint),
                        self.stop.clone(),
                    )
                    .await
                    .map(|s| ScanOrList::Scan(Box::new(s)))
                    .map_err(|e| e.to_string())
                }
                None => listing::list(
                    &self.client,
                    &job,
                    self.observer.clone(),
                    ListOutputs {
                        checkpoint: Some(checkpoint),
                        ..ListOutputs::default()
                    },
                    self.stop.clone(),
                )
                .await
                .map(|l| ScanOrList::List(Box::new(l)))
                .map_err(|e| e.to_string()),
            };
            match done {
                Ok(outcome) => self
                    .outcomes
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(outcome),
                Err(e) => return Some(format!("bucket {bucket}: {e}")),
            }
        }
        None
    }
}

/// Logs what each bucket's pass gave: for a scan a `metadata_scan` event, then the
/// `listing` of every pass.
pub(crate) fn emit(ctx: &RunContext, phase: &PhaseRef, outcomes: Vec<ScanOrList>) {
    for outcome in outcomes {
        let listing = match outcome {
            ScanOrList::List(l) => *l,
            ScanOrList::Scan(s) => {
                let s = *s;
                ctx.emit(RunEvent::MetadataScan(MetadataScanEvent {
                    phase: phase.clone(),
                    bucket: s.listing.bucket.clone(),
                    heads: s.heads,
                    head_errors: s.head_errors,
                    missing: s.missing,
                    head_concurrency: s.head_concurrency,
                    seconds: s.seconds,
                    metadata: s.metadata,
                }));
                s.listing
            }
        };
        ctx.emit(RunEvent::Listing {
            phase: phase.clone(),
            outcome: listing,
        });
    }
}
