//! A running phase's thresholds (`expect:`) judged once an interval on what it measured
//! so far — its cumulative counters and merged histograms, rates over its measured time
//! — and told (`thresholds_so_far`: the live page, `keystorm run`'s lines, `/metrics`).
//! With `expect_abort_after`, as k6's `abortOnFail` with `delayAbortEval`, a threshold
//! missed once the phase measured that long stops the run: a latency percentile of a
//! phase's first seconds is noisy, and that grace is the guard against stopping on it.
//! Without it, a threshold missed so far is shown and never acted on.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::context::RunContext;
use super::sequence::ScheduledPhase;
use crate::metrics::IntervalStats;
use keystorm_results::RunEvent;
use keystorm_results::threshold::{Expected, Threshold, ThresholdCheck};
use keystorm_results::threshold_live::{ThresholdsSoFar, judge_so_far};

/// The thresholds of one running phase, and when a miss stops the run.
pub(super) struct LiveThresholds {
    phase: keystorm_results::PhaseRef,
    place: String,
    /// The workload's bounds and the phase's own (`integrity: as_written` is judged
    /// when the phase or the run ends, on what its verification or audit found).
    thresholds: Vec<Threshold>,
    abort_after: Option<Duration>,
    /// An open loop's rate, to judge `open_loop.sent` on.
    rate: Option<f64>,
    /// A shard of a run split over processes: its throughput and counts are its share
    /// of the run's, so a bound on them (which is the run's) stops nothing here.
    shard: bool,
    /// Set once a miss stopped the run: the seconds its workers take to finish are
    /// judged no more.
    stopped: AtomicBool,
}

/// A threshold missed so far that stops the run: what the run says, and the check.
pub(crate) struct ThresholdStop {
    pub message: String,
    pub check: ThresholdCheck,
}

impl LiveThresholds {
    /// The thresholds `scheduled` is judged on while it runs; none when no bound of the
    /// workload or the phase applies.
    pub fn of(ctx: &RunContext, scheduled: &ScheduledPhase) -> Option<LiveThresholds> {
        let thresholds: Vec<Threshold> = ctx
            .plan
            .expect
            .iter()
            .chain(&scheduled.plan.expect)
            .filter_map(|e| match e.parse() {
                Ok(Expected::Bound(t)) => Some(t),
                _ => None,
            })
            .collect();
        (!thresholds.is_empty()).then(|| LiveThresholds {
            phase: scheduled.phase_ref.clone(),
            place: scheduled.phase_ref.place(),
            thresholds,
            abort_after: scheduled.plan.expect_abort_after,
            rate: scheduled.plan.rate,
            shard: !ctx.plan.keyspace.shard.is_whole(),
            stopped: AtomicBool::new(false),
        })
    }

    /// Judges the thresholds on `totals` (the phase's measurements so far, warm-up left
    /// out) over `measured` and tells it; the threshold whose miss stops the run, if
    /// one does.
    pub fn judge(
        &self,
        ctx: &RunContext,
        totals: &IntervalStats,
        measured: Duration,
    ) -> Option<ThresholdStop> {
        if self.stopped.load(Ordering::Relaxed) {
            return None;
        }
        let checks = judge_so_far(&self.thresholds, &self.place, totals, measured, self.rate);
        if checks.is_empty() {
            return None;
        }
        let stop = self
            .abort_after
            .filter(|after| measured >= *after)
            .and_then(|_| checks.iter().find(|c| !c.passed && self.may_stop(c)))
            .cloned();
        ctx.emit(RunEvent::ThresholdsSoFar(ThresholdsSoFar {
            phase: self.phase.clone(),
            measured_s: measured.as_secs_f64(),
            checks,
            abort_after_s: self.abort_after.map(|d| d.as_secs_f64()),
            stops_run: stop.as_ref().map(|c| c.expect.clone()),
        }));
        let check = stop?;
        self.stopped.store(true, Ordering::Relaxed);
        Some(ThresholdStop {
            message: format!(
                "phase {}: {} missed on the {:.1} s it measured ({}); expect_abort_after {} \
                 stops the run",
                self.phase.name,
                check.expect,
                measured.as_secs_f64(),
                check.actual_text,
                humantime::format_duration(self.abort_after.unwrap_or_default()),
            ),
            check,
        })
    }

    /// Whether a miss of `check` may stop the run: on a shard, not a bound on a figure
    /// the shard has only its share of.
    fn may_stop(&self, check: &ThresholdCheck) -> bool {
        !self.shard
            || self
                .thresholds
                .iter()
                .any(|t| t.text == check.expect && !t.scales_with_share())
    }
}
