//! One shard given to this agent: run it as `keystorm run --shard I/N` would (with
//! the agent's own credentials and results folder), waiting at the controller's
//! barrier before every phase, then send the run folder and say it is done.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use keystorm_engine::executor::{self, RunOptions};
use keystorm_engine::results::{MANIFEST_FILE, RunOverrides, Shard};
use tokio_util::sync::CancellationToken;

use super::config::AgentConfig;
use super::gate::ControllerGate;
use super::link::Link;
use super::status::{AgentObserver, ShardStatus};
use crate::fleet::protocol::{Assignment, ShardDone, ShardReport};
use crate::progress::Progress;

/// Runs the shard to its end (or until `cancel`) and reports it.
pub async fn run(
    config: Arc<AgentConfig>,
    link: Link,
    agent_id: String,
    assignment: Assignment,
    status: ShardStatus,
    cancel: CancellationToken,
) {
    status.set(Some(ShardReport {
        run_id: assignment.run_id.clone(),
        index: assignment.index,
        local_run_id: assignment.resume.clone(),
        phase: None,
        operations: 0,
        ..ShardReport::default()
    }));
    let outcome = execute(&config, &link, &agent_id, &assignment, &status, cancel).await;
    let (local_run_id, error) = match outcome {
        Ok(dir) => {
            let local = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            let sent = send_folder(&link, &agent_id, &assignment.run_id, &dir).await;
            (local, sent.err())
        }
        Err(e) => (None, Some(e)),
    };
    if let Some(e) = &error {
        stderrln!("shard {}/{}: {e}", assignment.index, assignment.count);
    }
    // The controller's live view gets the shard's last seconds before hearing it ended
    // (heartbeats carry them; a controller out of reach is not waited for long).
    let _ = tokio::time::timeout(NEWS_DRAIN, status.drained()).await;
    let done = ShardDone {
        run_id: assignment.run_id.clone(),
        local_run_id,
        error,
    };
    let path = format!("/api/agents/{agent_id}/done");
    if let Err(e) = retry("say the shard is done", || link.post_empty(&path, &done)).await {
        stderrln!(
            "cannot tell the controller shard {} is done: {e}",
            assignment.index
        );
    }
    status.set(None);
}

/// How long a shard's end waits for its news to reach the controller.
const NEWS_DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs the shard; its run folder.
async fn execute(
    config: &AgentConfig,
    link: &Link,
    agent_id: &str,
    a: &Assignment,
    status: &ShardStatus,
    cancel: CancellationToken,
) -> Result<PathBuf, String> {
    let file = a.workload_file.as_deref().unwrap_or("workload.yaml");
    let (plan, _warnings) =
        keystorm_engine::spec::parse_workload(&a.workload, file).map_err(|e| e.to_string())?;
    let resume = a.resume.as_ref().map(|id| config.results_root.join(id));
    let resume = match resume {
        Some(dir) if dir.join(MANIFEST_FILE).is_file() => {
            stderrln!(
                "shard {}/{}: resuming {} where it stopped",
                a.index,
                a.count,
                dir.display()
            );
            Some(dir)
        }
        Some(dir) => {
            return Err(format!(
                "cannot resume shard {}: its run folder {} is not on this agent (an agent \
                 resumes what it started, in its own results folder)",
                a.index,
                dir.display()
            ));
        }
        None => None,
    };
    let rounds = plan.rounds.count;
    let endpoint = config.endpoint.clone().or_else(|| a.endpoint.clone());
    if let Some(url) = endpoint.clone().or_else(|| match &plan.target.endpoint {
        keystorm_engine::plan::Endpoint::Url(url) => Some(url.clone()),
        keystorm_engine::plan::Endpoint::Embedded { .. } => None,
    }) {
        let status = status.clone();
        tokio::spawn(async move {
            status.set_target_skew(super::target_clock::target_skew_ms(&url).await);
        });
    }
    let options = RunOptions {
        results_root: config.results_root.clone(),
        labels: a.labels.clone(),
        overrides: RunOverrides {
            endpoint,
            shard: Some(Shard {
                index: a.index,
                count: a.count,
            }),
            ..Default::default()
        },
        resume,
        workload_file: a.workload_file.clone(),
        command_line: vec![
            "keystorm".to_string(),
            "agent".to_string(),
            "--controller".to_string(),
            link.url().to_string(),
        ],
        embedded: None,
        start_at: None,
        gate: Some(Arc::new(ControllerGate {
            link: link.clone(),
            agent_id: agent_id.to_string(),
            run_id: a.run_id.clone(),
        })),
    };
    let observer = Arc::new(AgentObserver {
        status: status.clone(),
        progress: Progress::new(config.progress, rounds),
    });
    stderrln!(
        "shard {}/{} of run {}: starting",
        a.index,
        a.count,
        a.run_id
    );
    let outcome = executor::run(plan, &a.workload, options, observer, cancel)
        .await
        .map_err(|e| e.to_string())?;
    stderrln!(
        "shard {}/{}: {} ({})",
        a.index,
        a.count,
        outcome.status.as_str(),
        outcome.dir.display()
    );
    Ok(outcome.dir)
}

/// Sends every file of the run folder, the manifest last (a part with a manifest is
/// whole).
async fn send_folder(link: &Link, agent_id: &str, run_id: &str, dir: &Path) -> Result<(), String> {
    let local = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".tmp"))
        .collect();
    files.sort_by_key(|n| (n == MANIFEST_FILE, n.clone()));
    for name in files {
        let path = format!("/api/agents/{agent_id}/parts/{run_id}/{local}/{name}");
        let file = dir.join(&name);
        retry(&format!("send {name}"), || link.put_file(&path, &file))
            .await
            .map_err(|e| format!("cannot send {name} to the controller: {e}"))?;
    }
    Ok(())
}

/// Calls until it works or fails for good; a controller away for a while is waited
/// for (up to 10 minutes).
async fn retry<T, F, Fut>(what: &str, mut call: F) -> Result<T, super::link::LinkError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, super::link::LinkError>>,
{
    let mut told = false;
    for _ in 0..600 {
        match call().await {
            Err(e) if e.is_transient() => {
                if !told {
                    stderrln!("cannot {what} yet: {e}; trying again every second");
                    told = true;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            other => return other,
        }
    }
    call().await
}
