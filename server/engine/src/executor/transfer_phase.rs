//! A download or upload phase: one pass of [`crate::transfer`] over the workload's
//! bucket, each GET or PUT (part) recorded as a `get` or `put` operation with its
//! bytes, a download's listing pages as `list`, and a `transfer` event at the end
//! with the aggregate and per-stream MiB/s.

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use super::context::RunContext;
use super::pass_recorders::PassRecorders;
use crate::listing::{ListJob, ListMode};
use crate::metrics::Recorder;
use crate::plan::{TransferDirection, TransferPlan};
use crate::transfer::{self, DownloadJob, TransferError, TransferOutcome, UploadJob};
use keystorm_results::PhaseRef;
use keystorm_results::RunEvent;
use keystorm_s3::S3Client;

pub(crate) struct TransferTask {
    client: S3Client,
    bucket: String,
    prefix: String,
    plan: TransferPlan,
    recorders: Arc<PassRecorders>,
    stop: CancellationToken,
    pub outcome: Arc<Mutex<Option<Result<TransferOutcome, TransferError>>>>,
}

impl TransferTask {
    pub fn new(
        ctx: &RunContext,
        plan: &TransferPlan,
        recorders: &[Recorder],
        stop: CancellationToken,
    ) -> TransferTask {
        TransferTask {
            client: ctx.client.clone(),
            bucket: ctx.plan.buckets.names[0].clone(),
            prefix: plan
                .prefix
                .clone()
                .unwrap_or_else(|| ctx.keyspace.prefix().to_string()),
            plan: plan.clone(),
            recorders: Arc::new(PassRecorders::new(recorders)),
            stop,
            outcome: Arc::new(Mutex::new(None)),
        }
    }

    /// Moves everything once; returns a warning if the pass failed or some objects did.
    pub async fn run(self) -> Option<String> {
        let r = match self.plan.direction {
            TransferDirection::Download => {
                let job = DownloadJob {
                    list: ListJob {
                        bucket: self.bucket.clone(),
                        prefix: self.prefix.clone(),
                        mode: ListMode::Adaptive { delimiter: None },
                        listers: self.plan.listers,
                        page_size: 1000,
                        retries: 3,
                        report_depth: None,
                        shard: Default::default(),
                    },
                    dir: self.plan.dir.clone(),
                    settings: self.plan.settings,
                };
                transfer::download(
                    &self.client,
                    &job,
                    self.recorders.clone(),
                    self.recorders.clone(),
                    self.stop.clone(),
                )
                .await
            }
            TransferDirection::Upload => {
                let job = UploadJob {
                    dir: self.plan.dir.clone(),
                    bucket: self.bucket.clone(),
                    prefix: self.prefix.clone(),
                    settings: self.plan.settings,
                    follow_symlinks: false,
                };
                transfer::upload(
                    &self.client,
                    &job,
                    self.recorders.clone(),
                    self.stop.clone(),
                )
                .await
            }
        };
        let warning = match &r {
            Err(e) => Some(e.to_string()),
            Ok(o) if o.failed > 0 => Some(format!(
                "{} objects failed (the first: {})",
                o.failed,
                o.failures.first().map_or("", String::as_str)
            )),
            Ok(_) => None,
        };
        *self.outcome.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
        warning
    }
}

/// Logs the pass's outcome as a `transfer` event.
pub(crate) fn emit(
    ctx: &RunContext,
    phase: &PhaseRef,
    outcome: &Mutex<Option<Result<TransferOutcome, TransferError>>>,
) {
    let taken = outcome.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(Ok(outcome)) = taken {
        ctx.emit(RunEvent::Transfer {
            phase: phase.clone(),
            outcome,
        });
    }
}
