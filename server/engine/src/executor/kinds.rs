//! What differs between phase kinds, in one place: what a phase waits for before it
//! starts (an audit, for a reshard), which tasks it starts (workers, listers, a
//! transfer) and what it reports when it ends. The driver around them
//! (intervals, checkpoints, error budget, stalls) is the same for every kind
//! (`super::phase`).

use std::sync::{Arc, Mutex};

use tokio::task::JoinSet;

use super::context::RunContext;
use super::listing_phase::{self, ListingProgress, ListingTask, Pass, ScanOrList};
use super::phase_shared::PhaseShared;
use super::transfer_phase::{self, TransferTask};
use crate::metrics::Recorder;
use crate::plan::{PhaseKind, PhasePlan};
use crate::transfer::{TransferError, TransferOutcome};
use keystorm_results::PhaseRef;

/// A phase's kind-specific part, started.
pub(crate) enum Started {
    Operations,
    /// A listing, a scan or an audit: one outcome per bucket, filled as they finish.
    Listing(Arc<Mutex<Vec<ScanOrList>>>),
    Transfer(Arc<Mutex<Option<Result<TransferOutcome, TransferError>>>>),
}

/// What the phase's kind waits for before its clock starts: an audit, for a reshard of
/// an audited bucket's index in progress (`super::reshard_wait`).
pub(crate) async fn prepare(ctx: &RunContext, plan: &PhasePlan) {
    if let PhaseKind::Audit {
        wait_for_reshard, ..
    } = &plan.kind
    {
        super::reshard_wait::before_audit(ctx, *wait_for_reshard).await;
    }
}

/// Starts the tasks the phase's kind runs; they report into `recorders` and end with
/// an optional warning.
pub(crate) fn start(
    ctx: &RunContext,
    plan: &PhasePlan,
    position: usize,
    resumed: bool,
    shared: &Arc<PhaseShared>,
    recorders: &[Recorder],
    tasks: &mut JoinSet<Option<String>>,
) -> Started {
    let listing = |listing, pass, tasks: &mut JoinSet<Option<String>>| {
        let progress = ListingProgress {
            dir: ctx.store().dir().to_path_buf(),
            every: ctx.plan.checkpoint_every,
            resume: resumed,
            meter: shared.step.clone(),
        };
        let task = ListingTask::new(
            ctx,
            plan,
            listing,
            pass,
            recorders,
            shared.stop.clone(),
            progress,
        );
        let outcomes = task.outcomes.clone();
        tasks.spawn(task.run());
        Started::Listing(outcomes)
    };
    match &plan.kind {
        PhaseKind::Operations { workers } => {
            super::ops_phase::start(ctx, plan, *workers, position, shared, recorders, tasks);
            Started::Operations
        }
        PhaseKind::Listing(l) => listing(l, Pass::List, tasks),
        PhaseKind::Scan {
            listing: l,
            head_workers,
        } => listing(
            l,
            Pass::Scan {
                head_workers: *head_workers,
            },
            tasks,
        ),
        PhaseKind::Audit { listing: l, .. } => listing(l, Pass::Audit, tasks),
        PhaseKind::Transfer(t) => {
            let task = TransferTask::new(ctx, t, recorders, shared.stop.clone());
            let outcome = task.outcome.clone();
            tasks.spawn(task.run());
            Started::Transfer(outcome)
        }
    }
}

impl Started {
    /// The events a finished phase of this kind adds (listings, scans, transfers).
    pub fn report(self, ctx: &RunContext, phase: &PhaseRef) {
        match self {
            Started::Operations => {}
            Started::Listing(outcomes) => {
                let outcomes =
                    std::mem::take(&mut *outcomes.lock().unwrap_or_else(|e| e.into_inner()));
                listing_phase::emit(ctx, phase, outcomes);
            }
            Started::Transfer(outcome) => transfer_phase::emit(ctx, phase, &outcome),
        }
    }
}
