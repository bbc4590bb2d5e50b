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
use crate::audit::{self, AuditJob, AuditOutcome};
use crate::keyspace::{Keyspace, WindowState};
use crate::listing::{
    self, CheckpointError, Checkpointing, ListCheckpoint, ListJob, ListOutcome, ListOutputs,
};
use crate::metrics::Recorder;
use crate::plan::{ListingPlan, PhasePlan};
use crate::scan::{self, ScanJob, ScanOutcome};
use keystorm_results::PhaseRef;
use keystorm_results::{AuditEvent, MetadataScanEvent, RunEvent};
use keystorm_s3::S3Client;

/// What a pass over each bucket does besides listing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Pass {
    List,
    /// HEAD every key with this many HEAD workers, fed by the listing's listers.
    Scan {
        head_workers: u32,
    },
    /// Compare the listing with the live window's keys.
    Audit,
}

/// What the listing task needs, taken from the run before it is spawned.
pub(crate) struct ListingTask {
    client: S3Client,
    buckets: Vec<String>,
    prefix: String,
    listing: ListingPlan,
    pass: Pass,
    /// The keys an audit expects: the keyspace's, in the window as the phase started.
    keyspace: Keyspace,
    window: WindowState,
    page_size: u32,
    retries: u32,
    /// The part of each bucket this run lists (all of it unless the run is a shard).
    shard: keystorm_results::Shard,
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
    /// Told how far an audit's comparison has got.
    pub meter: Arc<crate::step_meter::StepMeter>,
}

/// The checkpoint file of the listing of the workload's `bucket`-th bucket.
fn checkpoint_path(dir: &Path, bucket: usize) -> PathBuf {
    dir.join(format!("listing-{bucket}.checkpoint.json"))
}

/// The folder an audit of the workload's `bucket`-th bucket spills into.
fn audit_path(dir: &Path, bucket: usize) -> PathBuf {
    dir.join(format!("audit-{bucket}.spill"))
}

/// Removes the listing checkpoints and audit spills of a finished phase (or stale ones
/// of an earlier phase); a file that is not there is fine.
pub(crate) fn forget_progress(dir: &Path, buckets: usize) -> std::io::Result<()> {
    let gone = |r: std::io::Result<()>| match r {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    };
    for b in 0..buckets {
        gone(std::fs::remove_file(checkpoint_path(dir, b)))?;
        gone(std::fs::remove_dir_all(audit_path(dir, b)))?;
    }
    Ok(())
}

/// What one bucket's pass gave.
pub(crate) enum ScanOrList {
    List(Box<ListOutcome>),
    Scan(Box<ScanOutcome>),
    Audit(Box<AuditOutcome>),
}

impl ListingTask {
    pub fn new(
        ctx: &RunContext,
        plan: &PhasePlan,
        listing: &ListingPlan,
        pass: Pass,
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
            pass,
            keyspace: ctx.keyspace.clone(),
            window: ctx.window.state(),
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
                listers: self.listing.listers,
                page_size: self.page_size,
                retries: self.retries,
                report_depth: self.listing.report_depth,
                shard: self.shard,
            };
            let checkpoint = match self.checkpointing(n, &job) {
                Ok(c) => c,
                Err(e) => return Some(format!("bucket {bucket}: {e}")),
            };
            let done = match self.pass {
                Pass::Scan { head_workers } => {
                    let scan_job = ScanJob {
                        list: job,
                        head_workers,
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
                Pass::Audit => {
                    let audit_job = AuditJob {
                        list: job,
                        dir: audit_path(&self.progress.dir, n),
                        budget: audit::BUDGET,
                        meter: self.progress.meter.clone(),
                    };
                    audit::audit(
                        &self.client,
                        &audit_job,
                        expected_in(self.keyspace.clone(), self.window, n),
                        self.observer.clone(),
                        Some(checkpoint),
                        self.stop.clone(),
                    )
                    .await
                    .map(|a| ScanOrList::Audit(Box::new(a)))
                    .map_err(|e| e.to_string())
                }
                Pass::List => listing::list(
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

/// The keys of the window that belong in the workload's `bucket`-th bucket, with their
/// sizes, in index order.
fn expected_in(keyspace: Keyspace, window: WindowState, bucket: usize) -> audit::Expected {
    Box::new(move |comparer| {
        let mut key = String::new();
        for i in window.tail..window.head {
            if keyspace.bucket_index(i) == bucket {
                keyspace.key_into(i, &mut key);
                comparer.expect(&key, keyspace.size(i))?;
            }
        }
        Ok(())
    })
}

/// Logs what each bucket's pass gave: for a scan a `metadata_scan` event, for an audit
/// an `audit` event (when it finished), then the `listing` of every pass.
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
                    head_workers: s.head_workers,
                    seconds: s.seconds,
                    metadata: s.metadata,
                }));
                s.listing
            }
            ScanOrList::Audit(a) => {
                let a = *a;
                // A stopped audit compared nothing: its verdict comes with the resume.
                if a.compared {
                    ctx.emit(RunEvent::Audit(AuditEvent {
                        phase: phase.clone(),
                        bucket: a.listing.bucket.clone(),
                        counts: a.counts,
                        examples: a.examples,
                        list_seconds: a.listing.seconds,
                        compare_seconds: a.compare_seconds,
                    }));
                }
                a.listing
            }
        };
        ctx.emit(RunEvent::Listing {
            phase: phase.clone(),
            outcome: listing,
        });
    }
}
