//! One phase: start its workers, collect an interval every second, save how far it got
//! every `checkpoint_every`, decide when it ends (duration, operation count, fill
//! target, one listing pass, error budget, Ctrl-C), and turn its merged histograms into
//! summary rows. A resumed phase continues from its saved position: the rest of its
//! duration or operations, its interval numbers following on.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;
use tokio::time::MissedTickBehavior;

use super::context::RunContext;
use super::kinds;
use super::live_thresholds::{LiveThresholds, ThresholdStop};
use super::phase_intervals::{Intervals, emit_stall};
use super::phase_shared::PhaseShared;
use super::phase_start::{self, PhaseStart};
use super::sequence::ScheduledPhase;
use super::stalls::StallDetector;
use crate::keyset::KeySet;
use crate::keyspace::WindowState;
use crate::metrics::{IntervalStats, OpSummary, Recorder, process_cpu_time};
use keystorm_results::metrics::Percentiles;
use keystorm_results::tail_marks::TailMarks;
use keystorm_results::{IntegrityEvent, PhaseRef, ResultsError, RunEvent};
use keystorm_results::{OpenLoop, PartStart, PhasePosition, SummaryRow};
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
/// Error-rate checks wait for this many operations, so one early failure does not abort.
const MIN_OPERATIONS_FOR_ERROR_RATE: u64 = 20;

pub(crate) struct PhaseOutcome {
    pub rows: Vec<SummaryRow>,
    pub totals: IntervalStats,
    pub measured: Duration,
    pub aborted: Option<String>,
    /// The threshold missed while the phase ran that stopped the run, when one did
    /// (`expect_abort_after`; `aborted` says it).
    pub stopped_by: Option<keystorm_results::threshold::ThresholdCheck>,
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
    let start_of_part = phase_start::announce(ctx, scheduled, position, resume).await;
    kinds::prepare(ctx, p).await;
    let shared = start_of_part.share(ctx, scheduled, position, keys);
    ctx.set_phase(Some((scheduled.phase_ref.clone(), shared.start)));
    let mut saver = ProgressSaver::new(ctx, position, &start_of_part, shared.start);
    let PhaseStart {
        before, resumed, ..
    } = start_of_part;
    saver.save(
        ctx,
        scheduled,
        before.next_interval,
        &IntervalStats::default(),
        shared.start,
        (ctx.window.checkpoint_state(), before.next_pick),
    )?;
    let recorders: Vec<Recorder> = (0..(p.tasks() as usize).clamp(1, MAX_RECORDERS))
        .map(|_| Recorder::new())
        .collect();

    let mut workers = JoinSet::new();
    let started = kinds::start(ctx, p, position, resumed, &shared, &recorders, &mut workers);
    let part = Part {
        ctx,
        scheduled,
        shared,
        before,
        recorders,
        live: LiveThresholds::of(ctx, scheduled),
    };
    let mut intervals = part.intervals();
    let driven = part.drive(&mut saver, &mut intervals, &mut workers).await?;
    let end = Instant::now();
    part.close_last_interval(&mut intervals, end)?;
    let index_at_end = part.report_end(started, driven.warnings).await;
    let mut outcome = part.outcome(&saver, intervals, end, &index_at_end, driven.aborted);
    outcome.stopped_by = driven.stopped_by;
    Ok(outcome)
}

/// How a part's workers ended: why the phase was aborted, if it was (and the threshold
/// that stopped it, if one did), and the workers' warnings.
struct Driven {
    aborted: Option<String>,
    stopped_by: Option<keystorm_results::threshold::ThresholdCheck>,
    warnings: Vec<String>,
}

/// A part of a phase as it runs: what its steps after the start share.
struct Part<'a> {
    ctx: &'a RunContext,
    scheduled: &'a ScheduledPhase,
    shared: Arc<PhaseShared>,
    /// Where earlier parts of the phase got.
    before: PhasePosition,
    /// What the workers report into, drained every interval.
    recorders: Vec<Recorder>,
    /// The phase's thresholds, judged every interval on what it measured so far.
    live: Option<LiveThresholds>,
}

impl Part<'_> {
    /// The part's intervals, numbered on from earlier parts' (none closed yet).
    fn intervals(&self) -> Intervals {
        let p = &self.scheduled.plan;
        let writes = p
            .work
            .ops()
            .iter()
            .any(|op| matches!(op, OpKind::Put | OpKind::Delete));
        Intervals::new(
            self.before.next_interval,
            self.shared.start,
            p.warmup.as_secs_f64().ceil() as u64,
            writes.then(|| {
                StallDetector::new(self.ctx.plan.stalls, self.scheduled.phase_ref.clone())
            }),
        )
    }

    /// Runs until the workers end, stopping them at the deadline, past the error
    /// budget or at a threshold missed so far (`expect_abort_after`), with a tick every
    /// second.
    async fn drive(
        &self,
        saver: &mut ProgressSaver,
        intervals: &mut Intervals,
        workers: &mut JoinSet<Option<String>>,
    ) -> Result<Driven, ResultsError> {
        let shared = &self.shared;
        let mut ticker = tokio::time::interval_at(
            tokio::time::Instant::from_std(shared.start + Duration::from_secs(1)),
            Duration::from_secs(1),
        );
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        // A `duration` phase stops at its deadline to the timer's precision, not at the
        // next tick: a resumed part runs what was left, not up to a second more.
        let deadline = shared.deadline();
        let deadline_passed = async {
            match deadline {
                Some(at) => keystorm_timer::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(deadline_passed);
        let mut stopped_at_deadline = false;
        let mut aborted = None;
        let mut stopped_by = None;
        let mut warnings = Vec::new();

        loop {
            tokio::select! {
                _ = &mut deadline_passed, if !stopped_at_deadline => {
                    stopped_at_deadline = true;
                    shared.stop.cancel();
                }
                _ = ticker.tick() => {
                    let missed = self.tick(deadline, saver, intervals)?;
                    if aborted.is_none()
                        && let Some(msg) =
                            error_budget_exceeded(self.scheduled.plan.max_error_rate, &intervals.all)
                    {
                        aborted = Some(format!("phase {}: {msg}", self.scheduled.phase_ref.name));
                        shared.stop.cancel();
                    }
                    if aborted.is_none() && let Some(stop) = missed {
                        aborted = Some(stop.message);
                        stopped_by = Some(stop.check);
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
        Ok(Driven {
            aborted,
            stopped_by,
            warnings,
        })
    }

    /// A second's tick: closes the interval (unless the deadline is too near for one
    /// more), judges the thresholds on the phase so far, saves the checkpoint when it is
    /// due, and reports what was found meanwhile; the threshold missed so far that stops
    /// the run, if one does.
    fn tick(
        &self,
        deadline: Option<Instant>,
        saver: &mut ProgressSaver,
        intervals: &mut Intervals,
    ) -> Result<Option<ThresholdStop>, ResultsError> {
        let (ctx, scheduled, shared) = (self.ctx, self.scheduled, &*self.shared);
        let now = Instant::now();
        let last_stretch = deadline.is_some_and(|at| now + SHORTEST_LAST_INTERVAL > at);
        let mut missed = None;
        if !last_stretch {
            // Taken before the drain: every write below these marks is in
            // `stats` or an earlier interval.
            let settled = (
                ctx.window.checkpoint_state(),
                shared.epochs.as_ref().map(|e| e.watermark()),
            );
            let stats = drain(&self.recorders);
            intervals.close(ctx, scheduled, shared, &self.before, now, stats)?;
            if let Some(live) = &self.live {
                missed = live.judge(ctx, &intervals.totals, self.measured(intervals, now));
            }
            if saver.due(now) {
                saver.save(ctx, scheduled, intervals.next, &intervals.all, now, settled)?;
            }
        }
        report_first_findings(ctx, &scheduled.phase_ref, shared);
        report_endpoint_changes(ctx, &scheduled.phase_ref);
        Ok(missed)
    }

    /// The time this part measured by `now`: its running time less the warm-up left
    /// for it (what the intervals before it did not cover).
    fn measured(&self, intervals: &Intervals, now: Instant) -> Duration {
        let warmup_left = intervals.warmup.saturating_sub(self.before.next_interval);
        now.duration_since(self.shared.start)
            .saturating_sub(Duration::from_secs(warmup_left))
    }

    /// Closes the last, partial interval (or the only one, however short) at `end`,
    /// and a stall still going on then.
    fn close_last_interval(
        &self,
        intervals: &mut Intervals,
        end: Instant,
    ) -> Result<(), ResultsError> {
        let stats = drain(&self.recorders);
        if stats.active().next().is_some() || intervals.next == 0 {
            intervals.close(
                self.ctx,
                self.scheduled,
                &self.shared,
                &self.before,
                end,
                stats,
            )?;
        }
        for s in intervals
            .stalls
            .as_mut()
            .map(|d| d.finish())
            .unwrap_or_default()
        {
            emit_stall(self.ctx, s);
        }
        Ok(())
    }

    /// Once the workers ended: the closing poll, the events of the phase's kind, what
    /// was found last and the workers' warnings; the index as the phase leaves it.
    async fn report_end(
        &self,
        started: kinds::Started,
        warnings: Vec<String>,
    ) -> Vec<keystorm_results::BucketIndex> {
        let (ctx, pref) = (self.ctx, &self.scheduled.phase_ref);
        // The closing poll belongs to the phase that just ran: a reshard it sees ending
        // ended while this phase was running, so it is placed in this phase.
        if let Some(t) = &ctx.tracker {
            t.poll_once(ctx).await;
        }
        ctx.set_phase(None);
        let index_at_end = ctx.index_snapshot();
        started.report(ctx, pref);
        report_first_findings(ctx, pref, &self.shared);
        report_endpoint_changes(ctx, pref);
        for w in warnings {
            ctx.emit(RunEvent::Warning {
                message: format!("phase {}: {w}", pref.name),
            });
        }
        index_at_end
    }

    /// The part's summary rows (after the warnings about its schedule) and how far the
    /// phase got, the part having ended at `end`.
    fn outcome(
        &self,
        saver: &ProgressSaver,
        intervals: Intervals,
        end: Instant,
        index_at_end: &[keystorm_results::BucketIndex],
        aborted: Option<String>,
    ) -> PhaseOutcome {
        let (ctx, p, pref) = (self.ctx, &self.scheduled.plan, &self.scheduled.phase_ref);
        let shared = &self.shared;
        let client_cpu_s = process_cpu_time()
            .saturating_sub(saver.cpu_at_start)
            .as_secs_f64();
        let elapsed = end.duration_since(shared.start);
        let measured = self.measured(&intervals, end);
        let interrupted = ctx.cancel.is_cancelled();
        let Intervals {
            next: interval,
            all,
            totals,
            ..
        } = intervals;
        let open_loop = p
            .rate
            .map(|rate| open_loop_outcome(rate, shared.run_for, elapsed, measured, &all, &totals));
        if let Some(message) = schedule_warning(pref, open_loop.as_ref(), &totals) {
            ctx.emit(RunEvent::Warning { message });
        }
        let urls = ctx.gateways.urls();
        let end_of_part = PartEnd {
            measured,
            client_cpu_s,
            index_at_end,
            interrupted,
            endpoints: if ctx.gateways.several() { &urls } else { &[] },
            tail_marks: ctx.plan.tail_marks,
        };
        let mut rows = summary_rows(&totals, pref, &saver.part, &end_of_part);
        for r in &mut rows {
            r.open_loop = open_loop;
            r.sweep = p.sweep.clone();
        }
        PhaseOutcome {
            rows,
            totals,
            measured,
            aborted,
            stopped_by: None,
            position: saver.position(
                interval,
                &all,
                end,
                false,
                shared.epochs.as_ref().map(|e| e.watermark()),
            ),
        }
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
    /// Where the rows' tails are counted from (the workload's `tail_marks`).
    pub tail_marks: TailMarks,
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
            endpoints: keystorm_results::endpoint_rows(
                totals,
                op,
                end.endpoints,
                measured,
                &end.tail_marks,
            ),
            section: phase.section,
            round: phase.round,
            phase: phase.name.clone(),
            op,
            objects_at_start: part.objects_at_start,
            started_at: part.started_at.clone(),
            duration_s: measured.as_secs_f64(),
            client_cpu_s: end.client_cpu_s,
            stats: OpSummary {
                latency_us: Percentiles::with_tails(&s.latency, &end.tail_marks),
                ..s.summarize(measured)
            },
            index_at_start: part.index_at_start.clone(),
            index_at_end: end.index_at_end.to_vec(),
            interrupted: end.interrupted,
            resumed: part.resumed,
            redone: part.redone.of(op),
            taken_over: part.taken_over,
            wall_s: None,
            open_loop: None,
            sweep: None,
        })
        .collect()
}

/// How an open-loop part kept its schedule of `rate` a second: what it sent over its
/// measured time, and, for a `duration` (`run_for`), the slots due before the deadline
/// it never sent.
pub(crate) fn open_loop_outcome(
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

/// What the end of a phase part says about its schedule, in one sentence: what it
/// asked and sent, how late its requests left, and whose side that was on.
fn schedule_warning(
    pref: &PhaseRef,
    open_loop: Option<&OpenLoop>,
    totals: &IntervalStats,
) -> Option<String> {
    let lag = totals
        .active()
        .filter(|(_, s)| !s.schedule_lag.is_empty() && !s.latency.is_empty())
        .map(|(_, s)| keystorm_results::LagAtMedian {
            lag_us: s.schedule_lag.value_at_quantile(0.5),
            latency_us: s.latency.value_at_quantile(0.5),
        })
        .max_by_key(|l| l.lag_us);
    keystorm_results::schedule_note(&pref.place(), open_loop?, lag)
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
    /// The saver of the phase at `position` whose part `start_of_part` begins at `start`.
    fn new(
        ctx: &RunContext,
        position: usize,
        start_of_part: &PhaseStart,
        start: Instant,
    ) -> ProgressSaver {
        ProgressSaver {
            completed: position,
            before: start_of_part.before.clone(),
            part: start_of_part.part(ctx, start),
            start,
            cpu_at_start: start_of_part.cpu_at_start,
            every: ctx.plan.checkpoint_every,
            last_save: start,
        }
    }

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
