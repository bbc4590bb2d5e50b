//! How a run begins: the overrides it runs with (a resume's are the run's own, checked
//! against what was given again), and its result folder, created for a new run or
//! reopened for a resume with what the run had written before it stopped.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::error::RunError;
use super::options::RunOptions;
use super::totals;
use crate::keyspace::WindowState;
use crate::plan::{Endpoint, Plan};
use keystorm_results::{
    Checkpoint, FORMAT_VERSION, Manifest, ResultStore, RunOverrides, RunStatus, Summary,
    new_run_id, timestamp,
};
use keystorm_workload::observer::Observer;

/// What a run starts from before it touches the target.
pub(super) struct Settled {
    /// What the run uses instead of the workload's settings (applied to the plan).
    pub overrides: RunOverrides,
    /// The state a resumed run continues from.
    pub resume: Option<ResumeState>,
}

/// Reads the state a resume continues, settles the overrides (a resume keeps its
/// run's) and applies them to `plan`; refuses what cannot be.
pub(super) fn settle(plan: &mut Plan, options: &RunOptions) -> Result<Settled, RunError> {
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
    plan.apply_overrides(&overrides)
        .map_err(|e| RunError::BadInput(e.to_string()))?;
    // A shard's search steps are chosen on every shard's measure, by its gate's keeper.
    if overrides.shard.is_some_and(|s| !s.is_whole())
        && options.gate.is_none()
        && let Some(refusal) = plan.search_without_controller()
    {
        return Err(RunError::BadInput(refusal.to_string()));
    }
    // A key file named by the workload is checked now, not when its phase comes.
    let file = options.workload_file.as_deref().unwrap_or("workload");
    crate::keyfile::check_key_files(plan, file).map_err(|e| RunError::BadInput(e.to_string()))?;
    if overrides.verify && !plan.verifies() {
        return Err(RunError::BadInput(
            "--verify checks what GETs read, and the workload has no phase that GETs keys \
             (`op: get`, or a `mix` with `get`)"
                .to_string(),
        ));
    }
    if overrides.endpoint.is_none()
        && let Some(refusal) = plan.verify_refusal()
    {
        return Err(RunError::BadInput(refusal));
    }
    if overrides.shard.is_some_and(|s| !s.is_whole())
        && matches!(plan.target.endpoint, Endpoint::Embedded { .. })
        && overrides.endpoint.is_none()
    {
        return Err(RunError::BadInput(
            "a shard needs a target the other shards reach too, and the embedded target \
             lives in this process: start `keystorm sim` and pass its URL with --endpoint"
                .to_string(),
        ));
    }
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
    Ok(Settled { overrides, resume })
}

/// Waits until the wall clock reads `at` (at once if it is past); false when cancelled
/// first.
pub(super) async fn wait_until(
    at: SystemTime,
    cancel: &tokio_util::sync::CancellationToken,
) -> bool {
    let wait = at.duration_since(SystemTime::now()).unwrap_or_default();
    tokio::select! {
        _ = tokio::time::sleep(wait) => true,
        _ = cancel.cancelled() => false,
    }
}

/// The run's result folder and what it holds so far.
pub(super) struct Opened {
    pub manifest: Manifest,
    pub store: ResultStore,
    pub checkpoint: Checkpoint,
    pub summary: Summary,
    pub totals: totals::RunTotals,
    /// How long after its first start this part of the run starts (0 for a new run).
    pub time_offset: Duration,
    /// A resumed run: the time it did not run, since it stopped.
    pub pause: Option<keystorm_results::PauseEvent>,
}

/// Creates the result folder of a new run, or reopens a resumed run's.
pub(super) fn open(
    plan: &Plan,
    options: &RunOptions,
    overrides: &RunOverrides,
    display: &str,
    workload_text: &str,
    resume: Option<ResumeState>,
    observer: &dyn Observer,
) -> Result<Opened, RunError> {
    let started = SystemTime::now();
    let mut pause = None;
    let (manifest, store, checkpoint, summary, run_totals) = match resume {
        Some((dir, mut manifest, checkpoint, summary)) => {
            observer.named(&manifest.run_id);
            pause = keystorm_results::pause_before_resume(
                &dir,
                &manifest,
                started,
                checkpoint.current.clone(),
                resumed_how(options),
            )
            .map(|mut p| {
                use keystorm_results::PauseReason;
                p.reason = match (options.taken_over, options.paused_because, p.reason) {
                    (true, _, _) => PauseReason::TakenOver,
                    (false, Some(why), PauseReason::Interrupted) => why,
                    (false, _, seen) => seen,
                };
                p
            });
            manifest.status = RunStatus::Running;
            manifest.process = keystorm_results::ProcessId::current();
            manifest.cleanup = None;
            manifest.ended_at = None;
            manifest.error = None;
            manifest.stopped_by_threshold = None;
            manifest.resumed_at.push(timestamp(started));
            let store = ResultStore::open_append(&dir)?;
            let totals = totals::read(&dir)?;
            (manifest, store, checkpoint, summary, totals)
        }
        None => {
            let run_id = new_run_id(&plan.name, started);
            observer.named(&run_id);
            let manifest = Manifest {
                format_version: FORMAT_VERSION,
                run_id: run_id.clone(),
                keystorm_version: env!("CARGO_PKG_VERSION").to_string(),
                workload: plan.name.clone(),
                workload_file: options.workload_file.clone(),
                host: gethostname::gethostname().to_string_lossy().into_owned(),
                endpoint: display.to_string(),
                endpoints: Vec::new(),
                client: format!("{:?}", plan.target.client).to_lowercase(),
                seed: plan.keyspace.seed,
                labels: options.labels.clone(),
                started_at: timestamp(started),
                ended_at: None,
                status: RunStatus::Running,
                error: None,
                created_buckets: Vec::new(),
                buckets: plan.bucket_names(),
                resumed_at: Vec::new(),
                command_line: options.command_line.clone(),
                overrides: overrides.clone(),
                peak_rss_kib: None,
                peak_rss_anon_kib: None,
                process: keystorm_results::ProcessId::current(),
                cleanup: None,
                merged_from: Vec::new(),
                findings: None,
                expect: plan.expectations(),
                stopped_by_threshold: None,
                latency_clock: None,
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
                searches: Vec::new(),
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
                logs: None,
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
    Ok(Opened {
        manifest,
        store,
        checkpoint,
        summary,
        totals: run_totals,
        time_offset,
        pause,
    })
}

/// `resumed on host-a with: keystorm run --resume …`.
fn resumed_how(options: &RunOptions) -> String {
    let host = gethostname::gethostname().to_string_lossy().into_owned();
    let how = if options.taken_over {
        "taken over"
    } else {
        "resumed"
    };
    if options.command_line.is_empty() {
        format!("{how} on {host}")
    } else {
        format!("{how} on {host} with: {}", options.command_line.join(" "))
    }
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
