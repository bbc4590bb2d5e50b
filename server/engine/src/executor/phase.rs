//! One phase: start its workers, collect an interval every second, save how far it got
//! every `checkpoint_every`, decide when it ends (duration, operation count, fill
//! target, one listing pass, error budget, Ctrl-C), and turn its merged histograms into
//! summary rows. A resumed phase continues from its saved position: the rest of its
//! duration or operations, its interval numbers following on.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::{Duration, Instant, SystemTime};

use tokio::task::JoinSet;
use tokio::time::MissedTickBehavior;

use super::context::RunContext;
use super::kinds;
use super::phase_shared::PhaseShared;
use super::sequence::ScheduledPhase;
use super::stalls::StallDetector;
use crate::keyset::{EpochPicks, KeySet};
use crate::keyspace::{WindowState, mix64};
use crate::metrics::{IntervalStats, Recorder, process_cpu_time};
use crate::plan::{PhaseEnd, PhaseWork};
use keystorm_results::{IntegrityEvent, PhaseProgress, PhaseRef, ResultsError, RunEvent};
use keystorm_results::{
    IntervalRecord, OpenLoop, PartStart, PhasePosition, SHORT_INTERVAL_S, StallEvent, SummaryRow,
    timestamp,
};
use keystorm_types::OpKind;

/// Recorders per phase at most; workers share them round-robin.
const MAX_RECORDERS: usize = 8;
/// How early a tick may come and still count as a second after the last.
const TICK_SLACK: Duration = Duration::from_millis(100);
/// A tick closer than this to a `duration` phase's end closes no interval: the last
/// interval runs on to the end and the drain of the requests in flight, so no phase
/// ends with a sliver of an interval (a few in-flight requests finishing) that reads
/// as a dip in throughput and a spike in latency.
const SHORTEST_LAST_INTERVAL: Duration = Duration::from_millis(500);
/// Salt of the orders an `epochs` phase reads its keys in.
const SALT_EPOCHS: u64 = 0x4550_4f43_4853;
/// Error-rate checks wait for this many operations, so one early failure does not abort.
const MIN_OPERATIONS_FOR_ERROR_RATE: u64 = 20;

pub(crate) struct PhaseOutcome {
    pub rows: Vec<SummaryRow>,
    pub totals: IntervalStats,
    pub measured: Duration,
    pub aborted: Option<String>,
    /// How far the phase got over all its parts, its rows written (for a checkpoint
    /// of a phase stopped before its end).
    pub position: PhasePosition,
}

/// Runs the phase at `position` in the schedule, from the start or, with `resume`,
/// from where an earlier run of it stopped.
pub(crate) async fn run(
    ctx: &RunContext,
    scheduled: &ScheduledPhase,
    position: usize,
    resume: Option<PhasePosition>,
    keys: Option<Arc<KeySet>>,
) -> Result<PhaseOutcome, ResultsError> {
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
        concurrency: p.in_flight(),
        objects: objects_at_start,
        index: index_at_start.clone(),
        verify: p.verify,
    });

    let start = Instant::now();
    let shared = Arc::new(PhaseShared {
        issued: AtomicU64::new(before.operations),
        run_for: match p.end {
            PhaseEnd::Duration(d) => {
                Some(d.saturating_sub(Duration::from_secs_f64(before.elapsed_s)))
            }
            _ => None,
        },
        slots: AtomicU64::new(0),
        stop: ctx.cancel.child_token(),
        start,
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
    });
    ctx.set_phase(Some((pref.clone(), shared.start)));
    let mut saver = ProgressSaver {
        completed: position,
        before: before.clone(),
        part: PartStart {
            first_interval: before.next_interval,
            t_s: ctx.t_s(start),
            started_at: started_at.clone(),
            objects_at_start,
            resumed,
            operations_before: before.operations,
            elapsed_before_s: before.elapsed_s,
            client_cpu_s: 0.0,
            index_at_start: index_at_start.clone(),
            window_at_start: Some(ctx.window.checkpoint_state()),
            redone: before.redone,
            taken_over: resumed && ctx.taken_over,
        },
        start,
        cpu_at_start,
        every: ctx.plan.checkpoint_every,
        last_save: start,
    };
    saver.save(
        ctx,
        scheduled,
        before.next_interval,
        &IntervalStats::default(),
        start,
        (ctx.window.checkpoint_state(), before.next_pick),
    )?;
    let writes = p
        .work
        .ops()
        .iter()
        .any(|op| matches!(op, OpKind::Put | OpKind::Delete));
    let recorders: Vec<Recorder> = (0..(p.concurrency as usize).clamp(1, MAX_RECORDERS))
        .map(|_| Recorder::new())
        .collect();

    let mut workers = JoinSet::new();
    let started = kinds::start(ctx, p, position, resumed, &shared, &recorders, &mut workers);

    let mut ticker = tokio::time::interval_at(
        tokio::time::Instant::from_std(shared.start + Duration::from_secs(1)),
        Duration::from_secs(1),
    );
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    // A `duration` phase stops at its deadline to the timer's precision, not at the
    // next tick: a resumed part runs what was left, not up to a second more.
    let deadline = shared.run_for.map(|d| shared.start + d);
    let deadline_passed = async {
        match deadline {
            Some(at) => keystorm_timer::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(deadline_passed);
    let mut stopped_at_deadline = false;
    let mut intervals = Intervals {
        next: before.next_interval,
        start: shared.start,
        warmup: p.warmup.as_secs_f64().ceil() as u64,
        all: IntervalStats::default(),
        totals: IntervalStats::default(),
        stalls: writes.then(|| StallDetector::new(ctx.plan.stalls, pref.clone())),
        last: None,
    };
    let mut aborted = None;
    let mut warnings = Vec::new();

    loop {
        tokio::select! {
            _ = &mut deadline_passed, if !stopped_at_deadline => {
                stopped_at_deadline = true;
                shared.stop.cancel();
            }
            _ = ticker.tick() => {
                let now = Instant::now();
                let last_stretch =
                    deadline.is_some_and(|at| now + SHORTEST_LAST_INTERVAL > at);
                if !last_stretch {
                    // Taken before the drain: every write below these marks is in
                    // `stats` or an earlier interval.
                    let settled = (
                        ctx.window.checkpoint_state(),
                        shared.epochs.as_ref().map(|e| e.watermark()),
                    );
                    let stats = drain(&recorders);
                    intervals.close(ctx, scheduled, &shared, &before, now, stats)?;
                    if saver.due(now) {
                        saver.save(ctx, scheduled, intervals.next, &intervals.all, now, settled)?;
                    }
                }
                report_first_findings(ctx, pref, &shared);
                report_endpoint_changes(ctx, pref);
                if aborted.is_none()
                    && let Some(msg) = error_budget_exceeded(p.max_error_rate, &intervals.all)
                {
                    aborted = Some(format!("phase {}: {msg}", pref.name));
                    shared.stop.cancel();
                }
            }
            joined = workers.join_next() => {
                match joined {
                    None => break,
                    Some(Ok(Some(w))) => warnings.push(w),
                    Some(Ok(None)) => {}
                    Some(Err(e)) => warnings.push(format!("a worker stopped unexpectedly: {e}")),
                }
                if workers.is_empty() {
                    break;
                }
            }
        }
    }
    // The last, partial interval.
    let end = Instant::now();
    let stats = drain(&recorders);
    if stats.active().next().is_some() || intervals.next == 0 {
        intervals.close(ctx, scheduled, &shared, &before, end, stats)?;
    }
    let Intervals {
        next: interval,
        warmup: warmup_intervals,
        all,
        totals,
        mut stalls,
        ..
    } = intervals;
    if let Some(s) = stalls.as_mut().and_then(|d| d.finish()) {
        emit_stall(ctx, s);
    }
    // The closing poll belongs to the phase that just ran: a reshard it sees ending
    // ended while this phase was running, so it is placed in this phase.
    if let Some(t) = &ctx.tracker {
        t.poll_once(ctx).await;
    }
    ctx.set_phase(None);
    let index_at_end = ctx.index_snapshot();
    started.report(ctx, pref);
    report_first_findings(ctx, pref, &shared);
    report_endpoint_changes(ctx, pref);
    for w in warnings {
        ctx.emit(RunEvent::Warning {
            message: format!("phase {}: {w}", pref.name),
        });
    }

    let client_cpu_s = process_cpu_time()
        .saturating_sub(cpu_at_start)
        .as_secs_f64();
    let elapsed = end.duration_since(shared.start);
    // Warm-up left for this part: what the intervals before it did not cover.
    let warmup_left = warmup_intervals.saturating_sub(before.next_interval);
    let measured = elapsed.saturating_sub(Duration::from_secs(warmup_left));
    let interrupted = ctx.cancel.is_cancelled();
    let open_loop = p
        .rate
        .map(|rate| open_loop_outcome(rate, shared.run_for, elapsed, measured, &all, &totals));
    for w in schedule_warnings(&pref.name, open_loop.as_ref(), &totals) {
        ctx.emit(RunEvent::Warning { message: w });
    }
    let urls = ctx.gateways.urls();
    let end_of_part = PartEnd {
        measured,
        client_cpu_s,
        index_at_end: &index_at_end,
        interrupted,
        endpoints: if ctx.gateways.several() { &urls } else { &[] },
    };
    let mut rows = summary_rows(&totals, pref, &saver.part, &end_of_part);
    for r in &mut rows {
        r.open_loop = open_loop;
    }
    Ok(PhaseOutcome {
        rows,
        totals,
        measured,
        aborted,
        position: saver.position(
            interval,
            &all,
            end,
            false,
            shared.epochs.as_ref().map(|e| e.watermark()),
        ),
    })
}

/// A phase's intervals so far: their numbers, what they measured, and the stall
/// detector they feed.
struct Intervals {
    /// Number of the interval running now.
    next: u64,
    start: Instant,
    /// Intervals at the start that are warm-up (excluded from `totals`).
    warmup: u64,
    /// Everything this part of the phase measured, warm-up included.
    all: IntervalStats,
    /// What the summary rows hold: `all` without the warm-up.
    totals: IntervalStats,
    /// Watches write throughput and latency (phases that write).
    stalls: Option<StallDetector>,
    /// The interval closed last in this part: its start and what it measured, for
    /// folding a sliver of a last interval into it.
    last: Option<(Instant, IntervalStats)>,
}

impl Intervals {
    /// Closes the interval ending at `end` that measured `stats`: tells it, lets the
    /// stall detector see it, and adds it up.
    fn close(
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

/// How a part of a phase ended, for its summary rows.
pub(crate) struct PartEnd<'a> {
    /// Measured time (warm-up left out).
    pub measured: Duration,
    pub client_cpu_s: f64,
    pub index_at_end: &'a [keystorm_results::BucketIndex],
    pub interrupted: bool,
    /// The run's endpoints when it drives several (their shares are broken down).
    pub endpoints: &'a [String],
}

/// The summary rows of one part of a phase: one per operation it ran.
pub(crate) fn summary_rows(
    totals: &IntervalStats,
    phase: &keystorm_results::PhaseRef,
    part: &PartStart,
    end: &PartEnd<'_>,
) -> Vec<SummaryRow> {
    let measured = end.measured;
    totals
        .active()
        .map(|(op, s)| SummaryRow {
            endpoints: keystorm_results::endpoint_rows(totals, op, end.endpoints, measured),
            section: phase.section,
            round: phase.round,
            phase: phase.name.clone(),
            op,
            objects_at_start: part.objects_at_start,
            started_at: part.started_at.clone(),
            duration_s: measured.as_secs_f64(),
            client_cpu_s: end.client_cpu_s,
            stats: s.summarize(measured),
            index_at_start: part.index_at_start.clone(),
            index_at_end: end.index_at_end.to_vec(),
            interrupted: end.interrupted,
            resumed: part.resumed,
            redone: part.redone.of(op),
            taken_over: part.taken_over,
            open_loop: None,
        })
        .collect()
}

/// How an open-loop part kept its schedule of `rate` a second: what it sent over its
/// measured time, and, for a `duration` (`run_for`), the slots due before the deadline
/// it never sent.
fn open_loop_outcome(
    rate: f64,
    run_for: Option<Duration>,
    elapsed: Duration,
    measured: Duration,
    all: &IntervalStats,
    totals: &IntervalStats,
) -> OpenLoop {
    let measured_s = measured.as_secs_f64();
    let sent = totals.total_ops() + totals.total_errors();
    let backlog = run_for.map_or(0, |d| {
        // Slots 0, 1, ... start at n / rate: those before the deadline (or the stop).
        let due = (rate * d.min(elapsed).as_secs_f64()).ceil() as u64;
        due.saturating_sub(all.total_ops() + all.total_errors())
    });
    OpenLoop {
        asked_per_sec: rate,
        sent_per_sec: if measured_s > 0.0 {
            sent as f64 / measured_s
        } else {
            0.0
        },
        backlog,
    }
}

/// Requests leaving later than this share of the latency measured from their slot make
/// the client's delay, not the store's, a visible part of open-loop latency.
const LAG_WARNING_SHARE: f64 = 0.1;

/// What the end of a phase says about its schedule: that it fell behind (the target
/// took fewer operations than asked), or that the client sent late.
fn schedule_warnings(
    phase: &str,
    open_loop: Option<&OpenLoop>,
    totals: &IntervalStats,
) -> Vec<String> {
    let mut out = Vec::new();
    let Some(o) = open_loop else {
        return out;
    };
    if o.behind() {
        out.push(format!(
            "phase {phase} fell behind its rate: {}; the target took less than was asked \
             (or the client could not send it: see the schedule lag)",
            o.describe()
        ));
    }
    for (op, s) in totals.active() {
        if s.schedule_lag.is_empty() || s.latency.is_empty() {
            continue;
        }
        let lag = s.schedule_lag.value_at_quantile(0.5);
        let latency = s.latency.value_at_quantile(0.5);
        if lag as f64 > LAG_WARNING_SHARE * latency as f64 {
            out.push(format!(
                "phase {phase}: {op} requests left {lag} µs after their scheduled time at the \
                 median (p99 {} µs), {:.0} % of the {latency} µs measured from the schedule: \
                 the client was late, and open-loop latency counts it",
                s.schedule_lag.value_at_quantile(0.99),
                100.0 * lag as f64 / latency.max(1) as f64
            ));
        }
    }
    out
}

/// Saves the phase's progress to the run's checkpoint: when it starts, then every
/// `checkpoint_every` while it runs.
struct ProgressSaver {
    completed: usize,
    /// Where earlier parts of the phase got.
    before: PhasePosition,
    part: PartStart,
    /// When this part started.
    start: Instant,
    cpu_at_start: Duration,
    every: Duration,
    last_save: Instant,
}

impl ProgressSaver {
    fn due(&self, now: Instant) -> bool {
        // Ticks come a second apart give or take the scheduler: `every: 1s` saves at
        // every interval.
        now.duration_since(self.last_save) + TICK_SLACK >= self.every
    }

    /// Where the phase stands: the operations finished so far (`all` holds this part's,
    /// so an operation still in flight is redone by a resume), its running time, and the
    /// part whose rows are still to write, if `open`.
    fn position(
        &self,
        next_interval: u64,
        all: &IntervalStats,
        now: Instant,
        open: bool,
        next_pick: Option<u64>,
    ) -> PhasePosition {
        let elapsed = now.saturating_duration_since(self.start);
        PhasePosition {
            operations: self.before.operations + all.total_ops() + all.total_errors(),
            elapsed_s: self.before.elapsed_s + elapsed.as_secs_f64(),
            next_interval,
            redone: Default::default(),
            next_pick,
            open_part: open.then(|| PartStart {
                client_cpu_s: process_cpu_time()
                    .saturating_sub(self.cpu_at_start)
                    .as_secs_f64(),
                ..self.part.clone()
            }),
        }
    }

    fn save(
        &mut self,
        ctx: &RunContext,
        scheduled: &ScheduledPhase,
        next_interval: u64,
        all: &IntervalStats,
        now: Instant,
        (window, next_pick): (WindowState, Option<u64>),
    ) -> Result<(), ResultsError> {
        let position = self.position(next_interval, all, now, true, next_pick);
        super::checkpoint::save_checkpoint(
            ctx,
            window,
            self.completed,
            Some((scheduled.phase_ref.clone(), position)),
        )?;
        self.last_save = now;
        Ok(())
    }
}

fn emit_stall(ctx: &RunContext, mut stall: StallEvent) {
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

fn drain(recorders: &[Recorder]) -> IntervalStats {
    let mut stats = IntervalStats::default();
    for r in recorders {
        r.drain_into(&mut stats);
    }
    stats
}

/// Shows the first failures of error classes met since the last look, and writes the
/// objects found corrupt or missing since then to the events.
fn report_first_findings(ctx: &RunContext, pref: &PhaseRef, shared: &PhaseShared) {
    for m in shared.first_errors.take() {
        ctx.emit(RunEvent::Warning {
            message: format!("phase {}: {m}", pref.name),
        });
    }
    for f in shared.integrity.take() {
        ctx.emit(RunEvent::Integrity(IntegrityEvent {
            phase: pref.clone(),
            class: f.class.label(),
            bucket: f.bucket,
            key: f.key,
            detail: f.detail,
        }));
    }
}

/// Writes the endpoints that went down or came back since the last look to the events.
fn report_endpoint_changes(ctx: &RunContext, pref: &PhaseRef) {
    for c in ctx.gateways.take_changes() {
        let urls = ctx.gateways.urls();
        ctx.emit(RunEvent::Endpoint(keystorm_results::EndpointEvent {
            endpoint: urls.get(c.endpoint).cloned().unwrap_or_default(),
            state: if c.down {
                keystorm_results::EndpointState::Down
            } else {
                keystorm_results::EndpointState::Up
            },
            t_s: ctx.t_s(c.at),
            phase: Some(pref.clone()),
            failures: c.failures,
            detail: c.detail,
        }));
    }
}

fn error_budget_exceeded(max: Option<f64>, all: &IntervalStats) -> Option<String> {
    let max = max?;
    // Per operation: an operation that succeeded on a retry did not fail.
    let errors = all.total_errors();
    let operations = all.total_ops() + errors;
    if operations < MIN_OPERATIONS_FOR_ERROR_RATE {
        return None;
    }
    let rate = errors as f64 / operations as f64;
    (rate > max).then(|| {
        format!(
            "error rate {:.1}% exceeds max_error_rate {:.1}% ({errors} of {operations} operations failed)",
            rate * 100.0,
            max * 100.0
        )
    })
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
            objects: window.len(),
        },
        folded,
    });
    Ok(())
}
