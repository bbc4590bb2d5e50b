//! A phase's intervals: each second's measurements closed as an interval record (a
//! sliver of a last one folded into the one before), written to the run folder and
//! told with the phase's progress, and watched for write stalls.

use std::time::{Duration, Instant};

use super::context::RunContext;
use super::phase_shared::PhaseShared;
use super::sequence::ScheduledPhase;
use super::stalls::StallDetector;
use crate::metrics::IntervalStats;
use crate::plan::PhaseWork;
use keystorm_results::PhaseEnd;
use keystorm_results::{
    IntervalRecord, PhasePosition, PhaseProgress, ResultsError, RunEvent, SHORT_INTERVAL_S,
    StallEvent,
};
use keystorm_types::OpKind;

/// A phase's intervals so far: their numbers, what they measured, and the stall
/// detector they feed.
pub(super) struct Intervals {
    /// Number of the interval running now.
    pub next: u64,
    start: Instant,
    /// Intervals at the start that are warm-up (excluded from `totals`).
    pub warmup: u64,
    /// Everything this part of the phase measured, warm-up included.
    pub all: IntervalStats,
    /// What the summary rows hold: `all` without the warm-up.
    pub totals: IntervalStats,
    /// Watches write throughput and latency (phases that write).
    pub stalls: Option<StallDetector>,
    /// The interval closed last in this part: its start and what it measured, for
    /// folding a sliver of a last interval into it.
    last: Option<(Instant, IntervalStats)>,
}

impl Intervals {
    /// None closed yet: the first is number `next`, from `start` on.
    pub fn new(next: u64, start: Instant, warmup: u64, stalls: Option<StallDetector>) -> Self {
        Intervals {
            next,
            start,
            warmup,
            all: IntervalStats::default(),
            totals: IntervalStats::default(),
            stalls,
            last: None,
        }
    }

    /// Closes the interval ending at `end` that measured `stats`: tells it, lets the
    /// stall detector see it, and adds it up.
    pub fn close(
        &mut self,
        ctx: &RunContext,
        scheduled: &ScheduledPhase,
        shared: &PhaseShared,
        before: &PhasePosition,
        end: Instant,
        stats: IntervalStats,
    ) -> Result<(), ResultsError> {
        let warmup = self.next < self.warmup;
        let sliver = end.duration_since(self.start).as_secs_f64() < SHORT_INTERVAL_S;
        let epoch = shared.epochs.as_ref().map(|e| e.epoch_now());
        let folded = match self.last.take() {
            Some((from, mut both)) if sliver && warmup == (self.next - 1 < self.warmup) => {
                both.merge(&stats);
                let mut record =
                    interval_record(ctx, scheduled, self.next - 1, from, end, warmup, &both);
                record.epoch = epoch;
                record.merged = 2;
                Some(Box::new(record))
            }
            _ => None,
        };
        let mut record =
            interval_record(ctx, scheduled, self.next, self.start, end, warmup, &stats);
        record.epoch = epoch;
        emit_interval(
            ctx, scheduled, shared, before, record, folded, end, &stats, &self.all,
        )?;
        if !warmup && let Some(d) = &mut self.stalls {
            let t_s = ctx.t_s(self.start);
            let dur = end.duration_since(self.start).as_secs_f64();
            if let Some(s) = d.observe(self.next, t_s, dur, &stats) {
                emit_stall(ctx, s);
            }
        }
        self.all.merge(&stats);
        if !warmup {
            self.totals.merge(&stats);
        }
        self.last = Some((self.start, stats));
        self.next += 1;
        self.start = end;
        Ok(())
    }
}

/// Tells the stall, linked to the reshard that can have held its writes, if one did.
pub(super) fn emit_stall(ctx: &RunContext, mut stall: StallEvent) {
    // The slowest writes that ended in the stall were in flight since `end - p99`: a
    // reshard anywhere in that span can have held them.
    let start = stall.start_t_s - stall.max_write_p99_us as f64 / 1e6;
    let end = stall.end_t_s;
    stall.reshard = ctx
        .tracker
        .as_ref()
        .and_then(|t| t.nearest_reshard(start, stall.start_t_s, end));
    let linked = stall.reshard.is_some();
    let id = ctx.emit(RunEvent::Stall(stall));
    if let Some(t) = &ctx.tracker {
        t.remember_stall(id, start, end, linked);
    }
}

/// The record of interval number `interval`, from `from` to `to`, that measured `stats`.
fn interval_record(
    ctx: &RunContext,
    scheduled: &ScheduledPhase,
    interval: u64,
    from: Instant,
    to: Instant,
    warmup: bool,
    stats: &IntervalStats,
) -> IntervalRecord {
    let duration = to.duration_since(from);
    IntervalRecord {
        section: scheduled.phase_ref.section,
        round: scheduled.phase_ref.round,
        phase: scheduled.phase_ref.name.clone(),
        interval,
        t_s: ctx.t_s(from),
        duration_s: duration.as_secs_f64(),
        warmup,
        window: ctx.window.state(),
        ops: stats
            .active()
            .map(|(op, s)| (op, s.summarize(duration)))
            .collect(),
        index: ctx.index_snapshot(),
        merged: 1,
        epoch: None,
        endpoints: if stats.endpoints.is_empty() {
            Vec::new()
        } else {
            keystorm_results::endpoint_ops(stats, &ctx.gateways.urls(), duration)
        },
        asked_per_sec: scheduled.plan.rate,
    }
}

/// Writes the interval `record` (measured `stats`, ending at `to`) and tells it, with
/// the interval before it `folded` with it when it is a phase's sliver of a last one.
#[allow(clippy::too_many_arguments)]
fn emit_interval(
    ctx: &RunContext,
    scheduled: &ScheduledPhase,
    shared: &PhaseShared,
    before: &PhasePosition,
    record: IntervalRecord,
    folded: Option<Box<IntervalRecord>>,
    to: Instant,
    stats: &IntervalStats,
    earlier: &IntervalStats,
) -> Result<(), ResultsError> {
    let p = &scheduled.plan;
    let window = record.window;
    ctx.store().write_interval(&record, stats)?;
    ctx.observer.interval_recorded(&record, stats);
    let elapsed = to.duration_since(shared.start) + Duration::from_secs_f64(before.elapsed_s);
    let ops = earlier.total_ops() + stats.total_ops();
    let finished = before.operations + ops + earlier.total_errors() + stats.total_errors();
    let fraction = match p.end {
        PhaseEnd::Duration(d) => Some(elapsed.as_secs_f64() / d.as_secs_f64()),
        PhaseEnd::Operations(n) => Some(finished as f64 / n.max(1) as f64),
        PhaseEnd::UntilObjects(n) if p.work == PhaseWork::Single(OpKind::Put) => {
            Some(window.len() as f64 / n.max(1) as f64)
        }
        PhaseEnd::Epochs(_) => shared
            .epochs
            .as_ref()
            .map(|e| e.watermark() as f64 / e.total().max(1) as f64),
        _ => None,
    }
    .map(|f| f.clamp(0.0, 1.0));
    ctx.emit(RunEvent::Interval {
        phase: scheduled.phase_ref.clone(),
        record: Box::new(record),
        progress: PhaseProgress {
            elapsed_s: elapsed.as_secs_f64(),
            fraction,
            ops,
            errors: earlier.total_errors() + stats.total_errors(),
            objects: ctx.window.written_len(),
        },
        folded,
    });
    if let Some(step) = shared.step.look(&scheduled.phase_ref) {
        ctx.emit(RunEvent::Step(step));
    }
    Ok(())
}
