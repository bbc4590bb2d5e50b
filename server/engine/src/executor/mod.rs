//! Runs a plan: brings up the target, walks the phases (before, rounds, after), drives
//! each with closed- or open-loop workers, collects one interval a second, and writes
//! results as it goes. Observers see every step (progress bars, later the live UI).

mod checkpoint;
mod cleanup;
mod context;
mod crashed_part;
mod draws;
mod embedded;
mod error;
mod first_errors;
mod kinds;
mod listing_phase;
mod observer;
mod op;
mod ops_phase;
mod pass_recorders;
mod phase;
mod phase_shared;
mod sequence;
mod stalls;
mod target;
mod totals;
mod transfer_phase;
mod worker;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use tokio_util::sync::CancellationToken;

pub use crate::results::CleanupEvent;
pub use crate::results::EventPosition;
pub use crate::results::PhaseProgress;
pub use crate::results::{MetadataScanEvent, RunEvent};
pub use embedded::{EmbeddedTarget, EmbeddedTargets, StartError, Starting};
pub use error::RunError;
pub use observer::{NoObserver, Observer};
pub use sequence::{ScheduledPhase, schedule};

use checkpoint::save_checkpoint;
use context::RunContext;

use crate::keyspace::{Keyspace, Window, WindowState};
use crate::plan::{Endpoint, Plan};
use crate::results::{
    Checkpoint, FORMAT_VERSION, Manifest, ResultStore, ResultsError, RunOverrides, RunStatus,
    Summary, new_run_id, timestamp,
};

/// How to run, beyond what the workload says.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Folder holding one sub-folder per run.
    pub results_root: PathBuf,
    pub labels: BTreeMap<String, String>,
    /// What to use instead of the workload's settings (e.g. the same workload against
    /// another store); recorded in the manifest, and reused by a resume.
    pub overrides: RunOverrides,
    /// Continue this interrupted run (its folder) instead of starting a new one.
    pub resume: Option<PathBuf>,
    pub workload_file: Option<String>,
    pub command_line: Vec<String>,
    /// What starts the target of a workload with `endpoint: embedded` (none: such a
    /// workload is refused).
    pub embedded: Option<Arc<dyn EmbeddedTargets>>,
}

/// The end of a run.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub run_id: String,
    pub dir: PathBuf,
    pub status: RunStatus,
    pub error: Option<String>,
    pub summary: Summary,
    pub window: WindowState,
    /// Whether `keystorm run --resume` can continue the run: not on the embedded
    /// target, whose objects end with the process.
    pub resumable: bool,
}

/// Runs `plan` to the end (or until `cancel`), writing results under the options' root.
pub async fn run(
    mut plan: Plan,
    workload_text: &str,
    options: RunOptions,
    observer: Arc<dyn Observer>,
    cancel: CancellationToken,
) -> Result<RunOutcome, RunError> {
    let resume = match &options.resume {
        Some(dir) => Some(resume_state(dir)?),
        None => None,
    };
    let overrides = match &resume {
        Some((_, manifest, _, _)) => {
            check_labels_agree(&options.labels, &manifest.labels)?;
            manifest
                .run_overrides()
                .for_resume(&options.overrides)
                .map_err(|e| RunError::BadInput(e.to_string()))?
        }
        None => options.overrides.clone(),
    };
    overrides.apply(&mut plan);
    if resume.is_some()
        && matches!(plan.target.endpoint, Endpoint::Embedded { .. })
        && overrides.endpoint.is_none()
    {
        return Err(RunError::BadInput(
            "cannot resume a run on the embedded target: its objects lived in the process \
             that stopped; run the workload again"
                .to_string(),
        ));
    }

    let mut target = target::Target::connect(
        &plan,
        overrides.endpoint.as_deref(),
        options.embedded.as_deref(),
    )
    .await?;
    let embedded = target.is_embedded();
    let started = SystemTime::now();
    let (mut manifest, store, checkpoint, mut summary, run_totals) = match resume {
        Some((dir, mut manifest, checkpoint, summary)) => {
            manifest.status = RunStatus::Running;
            manifest.process = crate::results::ProcessId::current();
            manifest.cleanup = None;
            manifest.ended_at = None;
            manifest.error = None;
            manifest.resumed_at.push(timestamp(started));
            let store = ResultStore::open_append(&dir)?;
            let totals = totals::read(&dir)?;
            (manifest, store, checkpoint, summary, totals)
        }
        None => {
            let run_id = new_run_id(&plan.name, started);
            let manifest = Manifest {
                format_version: FORMAT_VERSION,
                run_id: run_id.clone(),
                keystorm_version: env!("CARGO_PKG_VERSION").to_string(),
                workload: plan.name.clone(),
                workload_file: options.workload_file.clone(),
                host: gethostname::gethostname().to_string_lossy().into_owned(),
                endpoint: target.display.clone(),
                client: format!("{:?}", plan.target.client).to_lowercase(),
                seed: plan.keyspace.seed,
                labels: options.labels.clone(),
                started_at: timestamp(started),
                ended_at: None,
                status: RunStatus::Running,
                error: None,
                created_buckets: Vec::new(),
                resumed_at: Vec::new(),
                command_line: options.command_line.clone(),
                overrides: overrides.clone(),
                peak_rss_kib: None,
                process: crate::results::ProcessId::current(),
                cleanup: None,
            };
            let epoch = started
                .duration_since(SystemTime::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0);
            let store = ResultStore::create(
                &options.results_root,
                &manifest,
                &crate::spec::redact_secrets(workload_text),
                &plan,
                epoch,
            )?;
            let summary = Summary {
                format_version: FORMAT_VERSION,
                run_id,
                rows: Vec::new(),
                totals: Vec::new(),
            };
            let checkpoint = Checkpoint {
                format_version: FORMAT_VERSION,
                window: WindowState {
                    tail: 0,
                    head: plan.keyspace.existing,
                },
                current: None,
                completed: 0,
                position: None,
            };
            (
                manifest,
                store,
                checkpoint,
                summary,
                totals::RunTotals::default(),
            )
        }
    };
    let time_offset = humantime::parse_rfc3339(&manifest.started_at)
        .ok()
        .and_then(|first| started.duration_since(first).ok())
        .unwrap_or_default();
    let dir = store.dir().to_path_buf();
    let phase_count = schedule(&plan).len();

    let keyspace = Keyspace::new(&plan.keyspace, &plan.objects, plan.buckets.names.len());
    let ctx = RunContext {
        client: target.client.clone(),
        keyspace,
        window: Arc::new(Window::new(checkpoint.window)),
        store: std::sync::Mutex::new(store),
        observer: observer.clone(),
        run_start: Instant::now(),
        time_offset,
        cancel: cancel.clone(),
        tracker: target.take_tracker(&plan),
        current_phase: std::sync::Mutex::new(None),
        first_errors: Arc::default(),
        plan,
    };
    ctx.emit(RunEvent::Started {
        run_id: manifest.run_id.clone(),
        dir: dir.clone(),
        endpoint: target.display.clone(),
        phases: phase_count,
    });

    let stop_tracking = CancellationToken::new();
    let (result, ()) = tokio::join!(
        async {
            let r = run_phases(
                &ctx,
                &mut manifest,
                &mut summary,
                run_totals,
                checkpoint,
                embedded,
            )
            .await;
            stop_tracking.cancel();
            r
        },
        async {
            if let Some(t) = &ctx.tracker {
                t.run(&ctx, stop_tracking.clone()).await;
            }
        }
    );
    if let Some(t) = &ctx.tracker {
        ctx.emit(t.cost_event());
    }
    let (status, error) = match result {
        Ok(status) => (status, None),
        Err(PhaseFailure { status, message }) => (status, Some(message)),
    };
    if status == RunStatus::Completed {
        let (record, problems) = cleanup::run(&ctx, &manifest).await;
        manifest.cleanup = record;
        if let Err(e) = problems {
            ctx.emit(RunEvent::Warning {
                message: format!("cleanup: {e}"),
            });
        }
    }
    manifest.status = status;
    manifest.error = error.clone();
    manifest.ended_at = Some(timestamp(SystemTime::now()));
    manifest.peak_rss_kib = Some(crate::metrics::peak_rss_kib());
    ctx.store().write_manifest(&manifest)?;
    ctx.emit(RunEvent::Finished {
        status,
        error: error.clone(),
    });
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

/// Labels given again to a resume must be the run's own.
fn check_labels_agree(
    given: &BTreeMap<String, String>,
    recorded: &BTreeMap<String, String>,
) -> Result<(), RunError> {
    for (k, v) in given {
        match recorded.get(k) {
            Some(r) if r == v => {}
            Some(r) => {
                return Err(RunError::BadInput(format!(
                    "--label {k}={v} differs from the run's label {k}={r}: a resumed run keeps \
                     its labels (leave --label out; labels can be edited in the UI afterwards)"
                )));
            }
            None => {
                return Err(RunError::BadInput(format!(
                    "--label {k}={v}: the run has no label {k}; a resumed run keeps its labels \
                     (leave --label out)"
                )));
            }
        }
    }
    Ok(())
}

/// Why the phases stopped early.
pub(crate) struct PhaseFailure {
    pub status: RunStatus,
    pub message: String,
}

async fn run_phases(
    ctx: &RunContext,
    manifest: &mut Manifest,
    summary: &mut Summary,
    mut run_totals: totals::RunTotals,
    checkpoint: Checkpoint,
    embedded: bool,
) -> Result<RunStatus, PhaseFailure> {
    let fail = |status: RunStatus| {
        move |e: ResultsError| PhaseFailure {
            status,
            message: e.to_string(),
        }
    };
    let completed = checkpoint.completed;
    if completed == 0 {
        let created = target::ensure_buckets(ctx, embedded, &manifest.endpoint)
            .await
            .map_err(|e| PhaseFailure {
                status: RunStatus::Failed,
                message: e.to_string(),
            })?;
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

    let phases = schedule(&ctx.plan);
    // Where the phase a resumed run stopped in got to.
    let mut resume = checkpoint
        .position
        .filter(|_| checkpoint.current.as_ref() == phases.get(completed).map(|p| &p.phase_ref));
    for (n, scheduled) in phases.iter().enumerate().skip(completed) {
        if ctx.cancel.is_cancelled() {
            return Ok(RunStatus::Interrupted);
        }
        let mut from = resume.take();
        if let Some(position) = &mut from
            && let Some(part) = position.open_part.take()
        {
            // The process running this part died before writing its rows.
            let closed = crashed_part::close(ctx.store().dir(), scheduled, &part, summary)
                .map_err(fail(RunStatus::Failed))?;
            position.next_interval = position.next_interval.max(closed.next_interval);
            position.operations = part.operations_before + closed.operations;
            position.elapsed_s = part.elapsed_before_s + closed.elapsed_s;
            if !closed.rows.is_empty() {
                summary.rows.extend(closed.rows.iter().cloned());
                run_totals.add_phase(&closed.totals, closed.measured);
                write_summary(ctx, summary, &run_totals).map_err(fail(RunStatus::Failed))?;
                ctx.emit(RunEvent::PhaseFinished {
                    phase: scheduled.phase_ref.clone(),
                    rows: closed.rows,
                });
            }
        }
        let outcome = phase::run(ctx, scheduled, n, from)
            .await
            .map_err(|e| PhaseFailure {
                status: RunStatus::Failed,
                message: e.to_string(),
            })?;
        // Stopped before its end: the rows are kept (marked interrupted) and the
        // checkpoint stays on this phase, so a resume continues it.
        let interrupted = ctx.cancel.is_cancelled() && outcome.aborted.is_none();
        summary.rows.extend(outcome.rows.iter().cloned());
        run_totals.add_phase(&outcome.totals, outcome.measured);
        write_summary(ctx, summary, &run_totals).map_err(fail(RunStatus::Failed))?;
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
        if let Some(message) = outcome.aborted {
            return Err(PhaseFailure {
                status: RunStatus::Aborted,
                message,
            });
        }
        if interrupted {
            return Ok(RunStatus::Interrupted);
        }
    }
    Ok(RunStatus::Completed)
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

type ResumeState = (PathBuf, Manifest, Checkpoint, Summary);

fn resume_state(dir: &std::path::Path) -> Result<ResumeState, RunError> {
    let manifest = ResultStore::read_manifest(dir)?;
    if manifest.status == RunStatus::Completed {
        return Err(RunError::BadInput(format!(
            "run {} completed; there is nothing to resume",
            manifest.run_id
        )));
    }
    if manifest.running_here() {
        return Err(RunError::BadInput(format!(
            "run {} is still going (process {} on this host); stop it before resuming",
            manifest.run_id,
            manifest.process.map_or(0, |p| p.pid)
        )));
    }
    let checkpoint = ResultStore::read_checkpoint(dir)?;
    let summary = ResultStore::read_summary_or_empty(dir, &manifest.run_id)?;
    Ok((dir.to_path_buf(), manifest, checkpoint, summary))
}
