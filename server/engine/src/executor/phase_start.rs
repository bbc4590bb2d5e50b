//! How a phase (or the part of it a resumed run does) starts, before its workers do: the
//! tracker's opening poll, the `PhaseStarted` event saying where the store stands, and
//! the state its workers will share. Kept apart from the phase's driver
//! (`super::phase`), which only runs once these steps are done.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::{Duration, Instant, SystemTime};

use super::context::RunContext;
use super::phase_shared::PhaseShared;
use super::sequence::ScheduledPhase;
use crate::keyset::{EpochPicks, KeySet};
use crate::keyspace::mix64;
use crate::metrics::process_cpu_time;
use keystorm_results::PhaseEnd;
use keystorm_results::{BucketIndex, PartStart, PhasePosition, RunEvent, timestamp};

/// Salt of the orders an `epochs` phase reads its keys in.
const SALT_EPOCHS: u64 = 0x4550_4f43_4853;

/// Where a part of a phase started from, as its checkpoints and summary rows tell it.
pub(crate) struct PhaseStart {
    /// Where earlier parts of the phase got (nothing for a phase starting afresh).
    pub before: PhasePosition,
    pub resumed: bool,
    pub index_at_start: Vec<BucketIndex>,
    pub objects_at_start: u64,
    pub started_at: String,
    pub cpu_at_start: Duration,
}

/// Polls the tracker for the phase at `position` and tells that it starts, from the
/// start or, with `resume`, from where an earlier run of it stopped.
pub(crate) async fn announce(
    ctx: &RunContext,
    scheduled: &ScheduledPhase,
    position: usize,
    resume: Option<PhasePosition>,
) -> PhaseStart {
    let p = &scheduled.plan;
    let pref = &scheduled.phase_ref;
    // The opening poll belongs to the phase it opens: a reshard it sees ending (begun
    // while the phase before ran) is placed at this phase's first interval, not nowhere.
    if let Some(t) = &ctx.tracker {
        ctx.set_phase(Some((pref.clone(), Instant::now())));
        t.poll_once(ctx).await;
    }
    let resumed = resume.is_some();
    let before = resume.unwrap_or_default();
    let index_at_start = ctx.index_snapshot();
    let objects_at_start = ctx.window.state().len();
    let started_at = timestamp(SystemTime::now());
    let cpu_at_start = process_cpu_time();
    ctx.emit(RunEvent::PhaseStarted {
        phase: pref.clone(),
        position,
        end: p.end.clone(),
        at_once: p.at_once(),
        objects: objects_at_start,
        index: index_at_start.clone(),
        verify: p.verify,
        rate: p.rate,
    });
    PhaseStart {
        before,
        resumed,
        index_at_start,
        objects_at_start,
        started_at,
        cpu_at_start,
    }
}

impl PhaseStart {
    /// The state the workers of the phase at `position` share, its clock starting now.
    pub fn share(
        &self,
        ctx: &RunContext,
        scheduled: &ScheduledPhase,
        position: usize,
        keys: Option<Arc<KeySet>>,
    ) -> Arc<PhaseShared> {
        let p = &scheduled.plan;
        let before = &self.before;
        Arc::new(PhaseShared {
            issued: AtomicU64::new(before.operations),
            run_for: match p.end {
                PhaseEnd::Duration(d) => {
                    Some(d.saturating_sub(Duration::from_secs_f64(before.elapsed_s)))
                }
                _ => None,
            },
            slots: AtomicU64::new(0),
            alarms: p.rate.map(|_| keystorm_timer::Alarms::new()),
            step: Arc::default(),
            stop: ctx.cancel.child_token(),
            start: Instant::now(),
            empty_warned: AtomicBool::new(false),
            first_errors: ctx.first_errors.clone(),
            integrity: ctx.integrity.clone(),
            epochs: match (&p.end, &keys) {
                (PhaseEnd::Epochs(n), Some(k)) => Some(Arc::new(EpochPicks::new(
                    k.part_keys(),
                    *n,
                    mix64(ctx.plan.keyspace.seed ^ SALT_EPOCHS, position as u64),
                    before.next_pick.unwrap_or(0),
                ))),
                _ => None,
            },
            keys,
        })
    }

    /// The part beginning at `start`, as the run's checkpoint records it.
    pub fn part(&self, ctx: &RunContext, start: Instant) -> PartStart {
        let before = &self.before;
        PartStart {
            first_interval: before.next_interval,
            t_s: ctx.t_s(start),
            started_at: self.started_at.clone(),
            objects_at_start: self.objects_at_start,
            resumed: self.resumed,
            operations_before: before.operations,
            elapsed_before_s: before.elapsed_s,
            client_cpu_s: 0.0,
            index_at_start: self.index_at_start.clone(),
            window_at_start: Some(ctx.window.checkpoint_state()),
            redone: before.redone,
            taken_over: self.resumed && ctx.taken_over,
        }
    }
}
