//! `keystorm run`: run a workload (or resume one) with progress, then print the
//! summary table. Ctrl-C stops cleanly and still writes results; a second Ctrl-C
//! exits at once.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use keystorm_engine::executor::{self, RunOptions};
use keystorm_engine::results::{RunOverrides, RunStatus, find_run};
use tokio_util::sync::CancellationToken;

use crate::cli::RunArgs;
use crate::progress::Progress;
use crate::{CliError, exit};

pub async fn run(args: RunArgs) -> Result<u8, CliError> {
    let root = args.results.results.clone();
    let (workload_path, resume_dir) = match &args.resume {
        Some(id) => {
            let as_path = PathBuf::from(id);
            let dir = if as_path.join("manifest.json").is_file() {
                as_path
            } else {
                find_run(&root, id).map_err(|e| CliError::bad_input(e.to_string()))?
            };
            (dir.join(keystorm_engine::results::WORKLOAD_FILE), Some(dir))
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
    let (plan, text) = super::load(&workload_path)?;
    let mut labels: BTreeMap<String, String> = args.labels.iter().cloned().collect();
    if let (Some(layout), None) = (args.index, &resume_dir) {
        labels
            .entry("index".to_string())
            .or_insert_with(|| layout.label());
    }
    let options = RunOptions {
        results_root: match &resume_dir {
            Some(dir) => dir.parent().map(|p| p.to_path_buf()).unwrap_or(root),
            None => root,
        },
        labels,
        overrides: RunOverrides {
            endpoint: args.endpoint.clone(),
            index: args.index,
            client: args.client.map(Into::into),
        },
        resume: resume_dir,
        workload_file: Some(workload_path.display().to_string()),
        command_line: std::env::args().collect(),
    };
    let cancel = CancellationToken::new();
    let watcher = tokio::spawn(watch_interrupts(cancel.clone()));
    let progress = Arc::new(Progress::new(args.progress, plan.rounds.count));
    let outcome = executor::run(plan, &text, options, progress, cancel).await;
    watcher.abort();
    let outcome = outcome.map_err(|e| match e {
        executor::RunError::BadInput(m) => CliError::bad_input(m),
        e => CliError::failed(e.to_string()),
    })?;

    print!("{}", crate::table::summary_table(&outcome.summary.rows));
    eprintln!(
        "run {} {}; results in {}",
        outcome.run_id,
        outcome.status.as_str(),
        outcome.dir.display()
    );
    match outcome.status {
        RunStatus::Completed => Ok(exit::OK),
        RunStatus::Interrupted => {
            if outcome.resumable {
                eprintln!(
                    "resume with: keystorm run --resume {} (after Ctrl-C or a crash)",
                    outcome.run_id
                );
            } else {
                eprintln!(
                    "the embedded target's objects ended with this process, so the run cannot \
                     be resumed; run the workload again (or against a store of its own with \
                     --endpoint URL, to make it resumable)"
                );
            }
            Ok(exit::INTERRUPTED)
        }
        _ => Err(CliError::failed(format!(
            "run {}: {}",
            outcome.status.as_str(),
            outcome.error.unwrap_or_default()
        ))),
    }
}

/// First Ctrl-C (or SIGTERM): stop cleanly. Second: leave at once.
async fn watch_interrupts(cancel: CancellationToken) {
    shutdown_signal().await;
    eprintln!(
        "stopping: finishing in-flight requests and writing results (Ctrl-C again to quit now)"
    );
    cancel.cancel();
    shutdown_signal().await;
    std::process::exit(i32::from(exit::INTERRUPTED));
}

pub(crate) async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
