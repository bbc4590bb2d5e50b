//! A complete-listing phase: the keyspace prefix of every bucket listed in turn with
//! the phase's listing mode (serial, prefix or adaptive), each ListObjectsV2 request
//! recorded as a `list` operation, and each bucket's key count, bytes and space report
//! kept for a `listing` event when the phase ends.

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use super::RunContext;
use crate::listing::{self, ListJob, ListOutcome, ListOutputs, PageEvent, PageObserver};
use crate::metrics::Recorder;
use crate::ops::OpKind;
use crate::plan::{ListingPlan, PhasePlan};
use crate::s3::S3Client;

/// Records pages into the phase's recorders, spread by lister.
struct PageRecorder {
    recorders: Vec<Recorder>,
}

impl PageObserver for PageRecorder {
    fn page(&self, e: PageEvent) {
        let r = &self.recorders[e.lister % self.recorders.len()];
        r.with(|s| {
            let stats = s.op_mut(OpKind::List);
            match e.outcome {
                Ok(keys) => {
                    stats.record_ok(e.end.saturating_duration_since(e.start), 0);
                    stats.keys += keys;
                }
                Err(class) => stats.record_error(class),
            }
        });
    }
}

/// What the listing task needs, taken from the run before it is spawned.
pub(crate) struct ListingTask {
    client: S3Client,
    buckets: Vec<String>,
    prefix: String,
    listing: ListingPlan,
    concurrency: u32,
    page_size: u32,
    retries: u32,
    observer: Arc<PageRecorder>,
    stop: CancellationToken,
    /// One outcome per bucket listed (a handful: one per bucket of the workload).
    pub outcomes: Arc<Mutex<Vec<ListOutcome>>>,
}

impl ListingTask {
    pub fn new(
        ctx: &RunContext,
        plan: &PhasePlan,
        listing: &ListingPlan,
        recorders: &[Recorder],
        stop: CancellationToken,
    ) -> ListingTask {
        ListingTask {
            client: ctx.client.clone(),
            buckets: ctx.plan.buckets.names.clone(),
            prefix: ctx.keyspace.prefix().to_string(),
            listing: listing.clone(),
            concurrency: plan.concurrency,
            page_size: plan.page_size,
            retries: ctx.plan.target.retries,
            observer: Arc::new(PageRecorder {
                recorders: recorders.to_vec(),
            }),
            stop,
            outcomes: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Lists every bucket; returns a warning if a listing failed.
    pub async fn run(self) -> Option<String> {
        for bucket in &self.buckets {
            if self.stop.is_cancelled() {
                return None;
            }
            let job = ListJob {
                bucket: bucket.clone(),
                prefix: self.prefix.clone(),
                mode: self.listing.mode.clone(),
                concurrency: self.concurrency,
                page_size: self.page_size,
                retries: self.retries,
                report_depth: self.listing.report_depth,
            };
            let observer: Arc<dyn PageObserver> = self.observer.clone();
            match listing::list(
                &self.client,
                &job,
                observer,
                ListOutputs::default(),
                self.stop.clone(),
            )
            .await
            {
                Ok(outcome) => self
                    .outcomes
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(outcome),
                Err(e) => return Some(format!("listing bucket {bucket}: {e}")),
            }
        }
        None
    }
}
