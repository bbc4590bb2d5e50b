//! `keystorm run`: run a workload (or resume one) with progress, then print the
//! summary table. Ctrl-C stops cleanly and still writes results; a second Ctrl-C
//! exits at once.

use std::collections::BTreeMap;
use std::sync::Arc;

use keystorm_engine::executor::{self, RunOptions};
use keystorm_results::{RunOverrides, RunStatus, RunVerdict};
use tokio_util::sync::CancellationToken;

use super::signals::{shutdown_signal, watch_interrupts};
use crate::CliError;
use crate::cli::RunArgs;
use keystorm_console::exit;
use keystorm_console::progress::Progress;

pub async fn run(args: RunArgs, command_line: Vec<String>) -> Result<u8, CliError> {
    if args.controller.is_some() {
        return super::remote_run::run(args).await;
    }
    let root = args.results.results.clone();
    let (workload_path, resume_dir) = match &args.resume {
        Some(id) => {
            let dir = super::inputs::run_dir(&root, id)?;
            (dir.join(keystorm_results::WORKLOAD_FILE), Some(dir))
        }
        None => match &args.workload {
            Some(p) => (p.clone(), None),
            None => {
                return Err(CliError::bad_input(
                    "a workload file or --resume RUN is needed",
                ));
            }
        },
    };
    let (plan, text) = super::inputs::load(&workload_path).map_err(|e| {
        let redacted = std::fs::read_to_string(&workload_path)
            .is_ok_and(|t| t.contains(keystorm_results::secrets::REDACTED));
        match &resume_dir {
            Some(_) if redacted => CliError::bad_input(format!(
                "{}; the workload kept with a run has its keys replaced by <redacted> wherever \
                 they appear, here beyond its credentials: put the values back in {} and \
                 resume again",
                e.message,
                workload_path.display()
            )),
            _ => e,
        }
    })?;
    let endpoint = super::target::endpoint_list(&args.endpoint)?;
    let mut labels: BTreeMap<String, String> = args.labels.iter().cloned().collect();
    if let (Some(layout), None) = (args.index, &resume_dir) {
        labels
            .entry("index".to_string())
            .or_insert_with(|| layout.label());
    }
    if let (Some(shard), None) = (args.shard, &resume_dir) {
        labels
            .entry("shard".to_string())
            .or_insert_with(|| shard.to_string());
    }
    let options = RunOptions {
        taken_over: false,
        paused_because: None,
        results_root: match &resume_dir {
            Some(dir) => dir.parent().map(|p| p.to_path_buf()).unwrap_or(root),
            None => root,
        },
        labels,
        overrides: RunOverrides {
            endpoint,
            index: args.index,
            client: args.client.map(Into::into),
            shard: args.shard,
            verify: args.verify,
        },
        resume: resume_dir,
        workload_file: Some(workload_path.display().to_string()),
        command_line,
        embedded: Some(std::sync::Arc::new(keystorm_embedded::SimTargets)),
        start_at: args.start_at,
        gate: None,
        warnings: Vec::new(),
    };
    let cancel = CancellationToken::new();
    let watcher = keystorm_console::output::spawn(watch_interrupts(
        cancel.clone(),
        shutdown_signal(),
        "finishing in-flight requests and writing results",
    ));
    let progress = Arc::new(Progress::new(args.progress, plan.rounds.count));
    // Boxed: the run is a deep future, and the command's own stays shallow.
    let outcome = Box::pin(executor::run(plan, &text, options, progress, cancel)).await;
    watcher.abort();
    let outcome = outcome.map_err(|e| match e {
        executor::RunError::BadInput(m) => CliError::bad_input(m),
        e => CliError::failed(e.to_string()),
    })?;

    // A run that failed before any phase finished has no table to show.
    if !outcome.summary.rows.is_empty() {
        stdout!(
            "{}",
            keystorm_console::table::summary_text(&outcome.summary.rows)
        );
        stdout!("{}", keystorm_console::table::curves_text(&outcome.summary));
        let rows = keystorm_results::whole_phase_rows(&outcome.dir, &outcome.summary.rows);
        let integrity = keystorm_results::read_integrity(&outcome.dir, &rows);
        stdout!("{}", keystorm_console::table::paused_phases_text(&rows));
        stdout!("{}", keystorm_console::table::tails_text(&rows));
        stdout!("{}", keystorm_console::table::integrity_text(&integrity));
    }
    let manifest = keystorm_results::ResultStore::read_manifest(&outcome.dir).ok();
    let verdict = manifest
        .as_ref()
        .map(|m| RunVerdict::read(&outcome.dir, m, &outcome.summary.rows));
    stderrln!(
        "run {} {}; results in {}",
        outcome.run_id,
        verdict
            .as_ref()
            .map_or_else(|| outcome.status.as_str().to_string(), |v| v.headline()),
        outcome.dir.display()
    );
    match outcome.status {
        RunStatus::Completed => Ok(super::exit_code::completed_code(
            verdict.as_ref(),
            args.allow_not_as_written,
        )),
        RunStatus::Interrupted => {
            if outcome.resumable {
                stderrln!(
                    "resume with: keystorm run --resume {} (after Ctrl-C or a crash)",
                    outcome.run_id
                );
            } else {
                stderrln!(
                    "the embedded target's objects ended with this process, so the run cannot \
                     be resumed; run the workload again (or against a store of its own with \
                     --endpoint URL, to make it resumable)"
                );
            }
            Ok(exit::INTERRUPTED)
        }
        _ => Err(CliError {
            code: super::exit_code::not_completed_code(manifest.as_ref()),
            message: format!(
                "run {}: {}",
                outcome.status.as_str(),
                outcome.error.unwrap_or_default()
            ),
        }),
    }
}
