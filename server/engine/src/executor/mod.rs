//! Runs a plan: brings up the target, walks the phases (before, rounds, after), drives
//! each with closed- or open-loop workers, collects one interval a second, and writes
//! results as it goes. Observers see every step (progress bars, later the live UI).

mod checkpoint;
mod cleanup;
mod context;
mod crashed_part;
mod draws;
mod error;
mod first_errors;
mod gate;
mod integrity;
mod key_reads;
mod kinds;
mod listing_phase;
mod live_thresholds;
mod op;
mod opening;
mod ops_phase;
mod options;
mod parted;
mod pass_recorders;
mod phase;
mod phase_intervals;
mod phase_shared;
mod phase_start;
mod reshard_wait;
pub mod search;
mod search_phase;
mod sequence;
mod stall_joining;
mod stalls;
mod step_ticker;
mod target;
mod totals;
mod transfer_phase;
mod verify;
mod worker;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use tokio_util::sync::CancellationToken;

pub use crashed_part::close_killed_run;
pub use error::RunError;
pub use gate::{
    GateError, GateFuture, PhaseGate, SearchAsk, SearchFuture, SearchOrder, StepReport,
};
use keystorm_results::{ClockSource, LatencyClock, RunEvent};
pub(crate) use keystorm_workload::observer::Observer;
pub use options::{RunOptions, RunOutcome};
pub use sequence::{ScheduledPhase, schedule};

use checkpoint::save_checkpoint;
use context::RunContext;
use opening::{Opened, Settled};

use crate::keyspace::{Keyspace, Window};
use crate::metrics::AnonPeak;
use crate::plan::{KeySource, Plan};
use keystorm_results::{
    Checkpoint, Manifest, ResultsError, RunStatus, Summary, secrets, timestamp,
};

/// Runs `plan` to the end (or until `cancel`), writing results under the options' root.
///
/// The secrets of the run — the workload's inline keys, the keys it resolves — are
/// registered with the process's writers while it goes ([`keystorm_results::secrets`]),
/// and the error it gives back is redacted before they are forgotten.
pub async fn run(
    plan: Plan,
    workload_text: &str,
    options: RunOptions,
    observer: Arc<dyn Observer>,
    cancel: CancellationToken,
) -> Result<RunOutcome, RunError> {
    let secrets = secrets::register(crate::spec::workload_redactor(workload_text));
    // Boxed: the run is a deep future, and its callers' stay shallow.
    let result = Box::pin(run_with_secrets(
        plan,
        workload_text,
        options,
        observer,
        cancel,
        &secrets,
    ))
    .await;
    let redactor = secrets::active();
    match result {
        Ok(mut outcome) => {
            if let Some(e) = &mut outcome.error {
                redactor.redact_in_place(e);
            }
            Ok(outcome)
        }
        Err(RunError::Setup(mut m)) => {
            redactor.redact_in_place(&mut m);
            Err(RunError::Setup(m))
        }
        Err(RunError::BadInput(mut m)) => {
            redactor.redact_in_place(&mut m);
            Err(RunError::BadInput(m))
        }
        Err(e) => Err(e),
    }
}

/// Once the run knows every key it signs with (the environment's, a profile's, the RGW
/// admin API's), before anything is written: no name of the workload and no label holds
/// one of them, so no result, chart or log can show it.
fn refuse_secrets_out_of_place(workload_text: &str, options: &RunOptions) -> Result<(), RunError> {
    let known = secrets::active();
    let file = options.workload_file.as_deref().unwrap_or("workload");
    crate::spec::check_secret_places(workload_text, file, &known)
        .map_err(|e| RunError::BadInput(e.to_string()))?;
    match options
        .labels
        .iter()
        .find(|(k, v)| known.finds_in(k) || known.finds_in(v))
    {
        Some(_) => Err(RunError::BadInput(
            "a label holds the value of a secret (a key the run signs with, or the server's \
             token): labels are shown in results and the UI; choose another value"
                .to_string(),
        )),
        None => Ok(()),
    }
}

async fn run_with_secrets(
    mut plan: Plan,
    workload_text: &str,
    options: RunOptions,
    observer: Arc<dyn Observer>,
    cancel: CancellationToken,
    secrets: &secrets::Registration,
) -> Result<RunOutcome, RunError> {
    let Settled { overrides, resume } = opening::settle(&mut plan, &options)?;
    let mut target = target::Target::connect(
        &plan,
        overrides.endpoint.as_deref(),
        options.embedded.as_deref(),
        secrets,
    )
    .await?;
    refuse_secrets_out_of_place(workload_text, &options)?;
    let embedded = target.is_embedded();
    let Opened {
        mut manifest,
        store,
        checkpoint,
        mut summary,
        totals,
        time_offset,
        pause,
    } = opening::open(
        &plan,
        &options,
        &overrides,
        &target.display,
        workload_text,
        resume,
        observer.as_ref(),
    )?;
    if target.gateways.several() {
        manifest.endpoints = target.endpoints.clone();
    }
    manifest.latency_clock = Some(latency_clock(&target.client, &manifest));
    let dir = store.dir().to_path_buf();
    let ctx = RunContext {
        client: target.client.clone(),
        gateways: target.gateways.clone(),
        keyspace: Keyspace::new(&plan.keyspace, &plan.objects, plan.buckets.names.len()),
        window: Arc::new(Window::new(checkpoint.window)),
        store: std::sync::Mutex::new(store),
        observer,
        run_start: Instant::now(),
        time_offset,
        cancel,
        tracker: target.take_tracker(&plan),
        current_phase: std::sync::Mutex::new(None),
        first_errors: Arc::default(),
        integrity: Arc::default(),
        md5s: Arc::default(),
        user_timed: Arc::default(),
        start_at: options.start_at,
        gate: options.gate.clone(),
        taken_over: options.taken_over && options.resume.is_some(),
        plan,
    };
    ctx.emit(RunEvent::Started {
        run_id: manifest.run_id.clone(),
        dir: dir.clone(),
        endpoint: target.display.clone(),
        phases: schedule(&ctx.plan).len(),
    });
    if let Some(pause) = pause {
        ctx.emit(RunEvent::Pause(pause));
    }
    for message in &options.warnings {
        ctx.emit(RunEvent::Warning {
            message: message.clone(),
        });
    }
    for message in std::mem::take(&mut target.notes) {
        ctx.emit(RunEvent::Warning { message });
    }
    let anon = AnonPeak::default();
    let (status, error) = drive(
        &ctx,
        &mut manifest,
        &mut summary,
        totals,
        checkpoint,
        embedded,
        &anon,
    )
    .await;
    if status == RunStatus::Completed {
        clean_up(&ctx, &mut manifest).await;
    }
    anon.sample();
    manifest.peak_rss_anon_kib = anon.peak_kib();
    close(&ctx, &mut manifest, status, error.clone(), &summary.rows)?;
    target.shutdown().await;
    Ok(RunOutcome {
        run_id: manifest.run_id,
        dir,
        status,
        error,
        summary,
        window: ctx.window.state(),
        resumable: !embedded,
    })
}

/// Runs the phases, with the shard tracker polling beside them and the process's
/// anonymous memory sampled into `anon`; how they ended.
async fn drive(
    ctx: &RunContext,
    manifest: &mut Manifest,
    summary: &mut Summary,
    totals: totals::RunTotals,
    checkpoint: Checkpoint,
    embedded: bool,
    anon: &AnonPeak,
) -> (RunStatus, Option<String>) {
    let stop_tracking = CancellationToken::new();
    let (result, (), ()) = tokio::join!(
        async {
            let r = run_phases(ctx, manifest, summary, totals, checkpoint, embedded).await;
            stop_tracking.cancel();
            r
        },
        async {
            if let Some(t) = &ctx.tracker {
                t.run(ctx, stop_tracking.clone()).await;
            }
        },
        anon.watch(stop_tracking.clone())
    );
    if let Some(t) = &ctx.tracker {
        ctx.emit(t.cost_event());
    }
    match result {
        Ok(status) => (status, None),
        Err(PhaseFailure { status, message }) => (status, Some(message)),
    }
}

/// After a completed run: deletes what the workload's `cleanup` asks for.
async fn clean_up(ctx: &RunContext, manifest: &mut Manifest) {
    let (record, problems) = cleanup::run(ctx, manifest).await;
    manifest.cleanup = record;
    if let Err(e) = problems {
        ctx.emit(RunEvent::Warning {
            message: format!("cleanup: {e}"),
        });
    }
}

/// Records how the run ended in its manifest, with what its verdict found, and tells
/// the observers.
fn close(
    ctx: &RunContext,
    manifest: &mut Manifest,
    status: RunStatus,
    error: Option<String>,
    rows: &[keystorm_results::SummaryRow],
) -> Result<(), RunError> {
    manifest.status = status;
    let integrity = keystorm_results::read_integrity(ctx.store().dir(), rows);
    if status == RunStatus::Completed
        && let Some(check) =
            keystorm_results::threshold_judge::judge_run(&manifest.expect, &integrity)
    {
        ctx.emit(RunEvent::Threshold(check));
    }
    let dir = ctx.store().dir().to_path_buf();
    let verdict = keystorm_results::RunVerdict::of(&dir, manifest, rows, &integrity);
    manifest.findings = Some(verdict.findings);
    manifest.error = error.clone();
    manifest.ended_at = Some(timestamp(SystemTime::now()));
    manifest.peak_rss_kib = Some(crate::metrics::peak_rss_kib());
    if let Some(clock) = &mut manifest.latency_clock {
        clock.user_timed += ctx.user_timed.load(std::sync::atomic::Ordering::Relaxed);
    }
    ctx.store().write_manifest(manifest)?;
    ctx.emit(RunEvent::Finished { status, error });
    Ok(())
}

/// The clock this process times the run's operations by, with the fallbacks its
/// earlier parts counted (a resumed run).
fn latency_clock(client: &keystorm_s3::S3Client, manifest: &Manifest) -> LatencyClock {
    LatencyClock {
        source: if client.times_arrival() {
            ClockSource::Socket
        } else {
            ClockSource::User
        },
        user_timed: manifest.latency_clock.map_or(0, |c| c.user_timed),
    }
}

/// Why the phases stopped early.
pub(crate) struct PhaseFailure {
    pub status: RunStatus,
    pub message: String,
}

/// Runs the phases left to run, in turn; how the run ended, or why the phases
/// stopped early.
async fn run_phases(
    ctx: &RunContext,
    manifest: &mut Manifest,
    summary: &mut Summary,
    run_totals: totals::RunTotals,
    checkpoint: Checkpoint,
    embedded: bool,
) -> Result<RunStatus, PhaseFailure> {
    let completed = checkpoint.completed;
    if !get_ready(ctx, manifest, completed, embedded).await? {
        return Ok(RunStatus::Interrupted);
    }
    let phases = schedule(&ctx.plan);
    // Where the phase a resumed run stopped in got to, and the window it resumes from.
    let resume_window = checkpoint.window;
    let mut resume = checkpoint
        .position
        .filter(|_| checkpoint.current.as_ref() == phases.get(completed).map(|p| &p.phase_ref));
    let mut runner = PhaseRunner {
        ctx,
        summary,
        run_totals,
    };
    for (n, scheduled) in phases.iter().enumerate().skip(completed) {
        if ctx.cancel.is_cancelled() || !pass_gate(ctx, n, scheduled).await? {
            return Ok(RunStatus::Interrupted);
        }
        if let Some(search) = &scheduled.plan.search {
            // A search's steps are chosen from its rows: it starts over its next step.
            resume = None;
            if let Some(status) = runner.search(n, scheduled, search).await? {
                return Ok(status);
            }
            continue;
        }
        let mut from = resume.take();
        if let Some(position) = &mut from {
            runner.close_crashed_part(scheduled, position, resume_window)?;
        }
        let mut outcome = runner.run(n, scheduled, from).await?;
        if let Some(check) = outcome.stopped_by.take() {
            manifest.stopped_by_threshold = Some(check);
        }
        if let Some(status) = runner.record(n, scheduled, outcome)? {
            return Ok(status);
        }
    }
    Ok(RunStatus::Completed)
}

/// A phase failure of `status`, saying the error.
fn fail<E: std::fmt::Display>(status: RunStatus) -> impl Fn(E) -> PhaseFailure {
    move |e: E| PhaseFailure {
        status,
        message: e.to_string(),
    }
}

/// Before the first phase: the buckets made (unless a resume made them before), the
/// manifest written, and the start time waited for; whether the run goes on (not if
/// it was stopped while waiting).
async fn get_ready(
    ctx: &RunContext,
    manifest: &mut Manifest,
    completed: usize,
    embedded: bool,
) -> Result<bool, PhaseFailure> {
    if completed == 0 {
        let created = target::ensure_buckets(ctx, embedded, &manifest.endpoint)
            .await
            .map_err(fail(RunStatus::Failed))?;
        // A run resumed in its first phase created its buckets the first time.
        for bucket in created {
            if !manifest.created_buckets.contains(&bucket) {
                manifest.created_buckets.push(bucket);
            }
        }
    }
    if let Some(t) = &ctx.tracker {
        t.mark_ready();
    }
    ctx.store()
        .write_manifest(manifest)
        .map_err(fail(RunStatus::Failed))?;
    // The target answered and the buckets are there: wait for the start time now, so a
    // shard that cannot run says so at once, not when the others begin.
    if let Some(at) = ctx.start_at {
        ctx.observer.waiting_until(at);
        if !opening::wait_until(at, &ctx.cancel).await {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Waits at the run's gate before phase `n`, if it has one; whether the phase goes on
/// (not if the run was stopped meanwhile).
async fn pass_gate(
    ctx: &RunContext,
    n: usize,
    scheduled: &ScheduledPhase,
) -> Result<bool, PhaseFailure> {
    if let Some(gate) = &ctx.gate {
        let waiting = Instant::now();
        tokio::select! {
            passed = gate.before_phase(n, &scheduled.phase_ref) => {
                passed.map_err(fail(RunStatus::Aborted))?;
            }
            _ = ctx.cancel.cancelled() => return Ok(false),
        }
        let waited = waiting.elapsed();
        if waited >= BARRIER_PAUSE {
            ctx.emit(RunEvent::Pause(keystorm_results::PauseEvent {
                from_t_s: ctx.t_s(waiting),
                to_t_s: ctx.t_s(waiting + waited),
                reason: keystorm_results::PauseReason::BarrierWait,
                phase: None,
                shard: None,
                detail: format!(
                    "waited {:.1} s at the barrier before {} for the run's other shards",
                    waited.as_secs_f64(),
                    scheduled.phase_ref.place()
                ),
            }));
        }
    }
    Ok(true)
}

/// A wait at a phase's barrier at least this long is on the run's record as a pause.
const BARRIER_PAUSE: Duration = Duration::from_secs(1);

/// Runs the phases one by one, adding each one's rows to the run's summary.
struct PhaseRunner<'a> {
    ctx: &'a RunContext,
    summary: &'a mut Summary,
    run_totals: totals::RunTotals,
}

impl PhaseRunner<'_> {
    /// Closes the part a resumed phase was in when its process died before writing its
    /// rows, and moves `position` past it.
    fn close_crashed_part(
        &mut self,
        scheduled: &ScheduledPhase,
        position: &mut keystorm_results::PhasePosition,
        resume_window: crate::keyspace::WindowState,
    ) -> Result<(), PhaseFailure> {
        let Some(part) = position.open_part.take() else {
            return Ok(());
        };
        let marks = self.ctx.plan.tail_marks;
        let closed = crashed_part::close(
            self.ctx.store().dir(),
            scheduled,
            &part,
            self.summary,
            marks,
        )
        .map_err(fail(RunStatus::Failed))?;
        position.next_interval = position.next_interval.max(closed.next_interval);
        position.operations = part.operations_before + closed.operations;
        position.elapsed_s = part.elapsed_before_s + closed.elapsed_s;
        position.redone = closed.redone(&part, resume_window);
        if !closed.rows.is_empty() {
            self.add_rows(&closed.rows, &closed.totals, closed.measured)?;
            self.ctx.emit(RunEvent::PhaseFinished {
                phase: scheduled.phase_ref.clone(),
                rows: closed.rows,
            });
        }
        Ok(())
    }

    /// Runs phase `n` (on `from` where a resume takes it up), after the keys it reads.
    async fn run(
        &self,
        n: usize,
        scheduled: &ScheduledPhase,
        from: Option<keystorm_results::PhasePosition>,
    ) -> Result<phase::PhaseOutcome, PhaseFailure> {
        let ctx = self.ctx;
        // A listing for the phase's keys may run for hours: the checkpoint says the
        // phase began, so a resume after a crash goes on with the listing's own.
        if matches!(scheduled.plan.keys, Some(KeySource::Listing { .. })) {
            checkpoint::save_checkpoint(
                ctx,
                ctx.window.checkpoint_state(),
                n,
                Some((
                    scheduled.phase_ref.clone(),
                    from.clone().unwrap_or_default(),
                )),
            )
            .map_err(fail(RunStatus::Failed))?;
        }
        let keys = key_reads::prepare(
            ctx,
            &scheduled.plan,
            &scheduled.phase_ref,
            n,
            from.is_some(),
        )
        .await
        .map_err(|e| PhaseFailure {
            status: if ctx.cancel.is_cancelled() {
                RunStatus::Interrupted
            } else {
                RunStatus::Failed
            },
            message: e.to_string(),
        })?;
        phase::run(ctx, scheduled, n, from, keys)
            .await
            .map_err(fail(RunStatus::Failed))
    }

    /// Records how phase `n` ended: its rows, the checkpoint past it (or on it, if it
    /// was stopped before its end); how the run ends here, if it does.
    fn record(
        &mut self,
        n: usize,
        scheduled: &ScheduledPhase,
        outcome: phase::PhaseOutcome,
    ) -> Result<Option<RunStatus>, PhaseFailure> {
        let ctx = self.ctx;
        // Stopped before its end: the rows are kept (marked interrupted) and the
        // checkpoint stays on this phase, so a resume continues it.
        let interrupted = ctx.cancel.is_cancelled() && outcome.aborted.is_none();
        self.add_rows(&outcome.rows, &outcome.totals, outcome.measured)?;
        // An interrupted phase stays current, with how far it got; a finished one counts
        // as completed.
        let (completed, current) = if interrupted {
            (n, Some((scheduled.phase_ref.clone(), outcome.position)))
        } else {
            (n + 1, None)
        };
        save_checkpoint(ctx, ctx.window.checkpoint_state(), completed, current)
            .map_err(fail(RunStatus::Failed))?;
        if !interrupted {
            let dir = ctx.store().dir().to_path_buf();
            if let Err(e) = listing_phase::forget_progress(&dir, ctx.plan.buckets.names.len()) {
                ctx.emit(RunEvent::Warning {
                    message: format!("cannot remove a finished listing's checkpoint: {e}"),
                });
            }
        }
        ctx.emit(RunEvent::PhaseFinished {
            phase: scheduled.phase_ref.clone(),
            rows: outcome.rows,
        });
        if !interrupted {
            self.judge_thresholds(&scheduled.phase_ref);
        }
        if let Some(message) = outcome.aborted {
            return Err(PhaseFailure {
                status: RunStatus::Aborted,
                message,
            });
        }
        Ok(interrupted.then_some(RunStatus::Interrupted))
    }

    /// Tells how the phase that just ended met the workload's thresholds (`expect:`),
    /// judged on its whole rows (a resumed phase's parts together) and, for its
    /// `integrity: as_written`, on what it verified or audited.
    fn judge_thresholds(&self, phase: &keystorm_results::PhaseRef) {
        let expectations = self.ctx.plan.expectations();
        if expectations.is_empty() {
            return;
        }
        let rows: Vec<keystorm_results::SummaryRow> = self
            .summary
            .rows
            .iter()
            .filter(|r| {
                r.section == phase.section && r.round == phase.round && r.phase == phase.name
            })
            .cloned()
            .collect();
        let dir = self.ctx.store().dir().to_path_buf();
        let whole = keystorm_results::whole_phase_rows(&dir, &rows);
        let integrity = if keystorm_results::threshold_judge::wants_integrity(&expectations) {
            keystorm_results::read_integrity(&dir, &whole)
        } else {
            Default::default()
        };
        for check in
            keystorm_results::threshold_judge::judge_phases(&expectations, &whole, &integrity)
        {
            self.ctx.emit(RunEvent::Threshold(check));
        }
    }

    /// Adds a phase's (or a part's) rows and totals to the summary, and rewrites it.
    fn add_rows(
        &mut self,
        rows: &[keystorm_results::SummaryRow],
        phase_totals: &crate::metrics::IntervalStats,
        measured: std::time::Duration,
    ) -> Result<(), PhaseFailure> {
        self.summary.rows.extend(rows.iter().cloned());
        self.run_totals.add_phase(phase_totals, measured);
        write_summary(self.ctx, self.summary, &self.run_totals).map_err(fail(RunStatus::Failed))
    }
}

/// Rewrites `summary.json`, `summary.csv` and `totals.json` with the rows so far.
fn write_summary(
    ctx: &RunContext,
    summary: &mut Summary,
    run_totals: &totals::RunTotals,
) -> Result<(), ResultsError> {
    summary.totals = run_totals.rows();
    let store = ctx.store();
    store.write_summary(summary)?;
    totals::write(store.dir(), run_totals)
}
