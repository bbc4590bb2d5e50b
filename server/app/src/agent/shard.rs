//! One shard given to this agent: run it as `keystorm run --shard I/N` would (with
//! the agent's own credentials and results folder), waiting at the controller's
//! barrier before every phase and sending the run folder as it grows; at the end send
//! the rest and say it is done. A shard another agent began is resumed from the copy
//! of its folder the controller holds. Every call to the controller goes with the
//! agent's current id and waits out a controller that is away or restarting: the shard
//! never ends because the controller was gone for a while.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use keystorm_engine::executor::{self, RunOptions};
use keystorm_engine::results::{MANIFEST_FILE, RunOverrides, Shard};
use tokio_util::sync::CancellationToken;

use super::config::AgentConfig;
use super::gate::ControllerGate;
use super::link::Link;
use super::replica::Replica;
use super::session::Session;
use super::status::{AgentObserver, ShardStatus};
use crate::fleet::protocol::{Assignment, ShardDone, ShardReport};
use crate::progress::Progress;

/// Runs the shard to its end (or until `cancel`) and reports it.
pub async fn run(
    config: Arc<AgentConfig>,
    link: Link,
    session: Session,
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
    let outcome = execute(&config, &link, &session, &assignment, &status, cancel).await;
    let (local_run_id, error) = match outcome {
        Ok((dir, replica)) => {
            let local = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            let mut replica = replica.filter(|r| r.dir() == dir).unwrap_or_else(|| {
                Replica::new(link.clone(), session.clone(), &assignment.run_id, &dir)
            });
            (local, send_rest(&mut replica, &session).await.err())
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
    let told = session
        .call(&CancellationToken::new(), |id| {
            let (link, done) = (&link, &done);
            async move {
                link.post_empty(&format!("/api/agents/{id}/done"), done)
                    .await
            }
        })
        .await;
    if let Err(e) = told {
        stderrln!(
            "cannot tell the controller shard {} is done: {}",
            assignment.index,
            e.message()
        );
    }
    status.set(None);
}

/// How long a shard's end waits for its news to reach the controller.
const NEWS_DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs the shard; its run folder, and what was sent of it.
async fn execute(
    config: &AgentConfig,
    link: &Link,
    session: &Session,
    a: &Assignment,
    status: &ShardStatus,
    cancel: CancellationToken,
) -> Result<(PathBuf, Option<Replica>), String> {
    let file = a.workload_file.as_deref().unwrap_or("workload.yaml");
    let (plan, _warnings) =
        keystorm_engine::spec::parse_workload(&a.workload, file).map_err(|e| e.to_string())?;
    let resume = match &a.resume {
        Some(id) => {
            let dir = config.results_root.join(id);
            if dir.join(MANIFEST_FILE).is_file() {
                stderrln!(
                    "shard {}/{}: resuming {} where it stopped",
                    a.index,
                    a.count,
                    dir.display()
                );
            } else {
                // Another agent ran it until it was lost: its folder is on the controller.
                super::seed::fetch(link, &session.id(), &a.run_id, a.index, id, &dir).await?;
                stderrln!(
                    "shard {}/{}: taking it over, resuming {} where the lost agent left it",
                    a.index,
                    a.count,
                    dir.display()
                );
            }
            Some(dir)
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
            session: session.clone(),
            run_id: a.run_id.clone(),
        })),
        warnings: link.unencrypted_warning().into_iter().collect(),
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
    // The run folder goes to the controller as it grows, every second.
    let replicating = CancellationToken::new();
    let replicator = tokio::spawn(replicate(
        link.clone(),
        session.clone(),
        a.run_id.clone(),
        config.results_root.clone(),
        status.clone(),
        replicating.clone(),
    ));
    let outcome = executor::run(plan, &a.workload, options, observer, cancel).await;
    replicating.cancel();
    let replica = replicator.await.ok().flatten();
    let outcome = outcome.map_err(|e| e.to_string())?;
    stderrln!(
        "shard {}/{}: {} ({})",
        a.index,
        a.count,
        outcome.status.as_str(),
        outcome.dir.display()
    );
    Ok((outcome.dir, replica))
}

/// How often the run folder is sent while the shard runs.
const SYNC_EVERY: Duration = Duration::from_secs(1);

/// Sends the shard's run folder to the controller every [`SYNC_EVERY`] until `stop`;
/// where it got. A controller away is said once (by whichever call notices first).
async fn replicate(
    link: Link,
    session: Session,
    run_id: String,
    results_root: PathBuf,
    status: ShardStatus,
    stop: CancellationToken,
) -> Option<Replica> {
    let mut replica: Option<Replica> = None;
    let mut failing = false;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(SYNC_EVERY) => {}
            _ = stop.cancelled() => return replica,
        }
        let Some(local) = status.local_run_id() else {
            continue;
        };
        let r = replica.get_or_insert_with(|| {
            Replica::new(
                link.clone(),
                session.clone(),
                &run_id,
                &results_root.join(&local),
            )
        });
        match r.sync().await {
            Ok(()) => {
                session.back();
                if failing {
                    stderrln!("the run folder reaches the controller again");
                    failing = false;
                }
            }
            Err(e) if e.is_transient() => session.away(&e),
            // The controller restarted: sent with the new id once registered again.
            Err(e) if Session::worth_waiting(&e) => {}
            Err(e) if !failing => {
                stderrln!(
                    "cannot send the run folder to the controller: {e}; the shard goes on, \
                     and trying again every second"
                );
                failing = true;
            }
            Err(_) => {}
        }
    }
}

/// Sends the rest of the run folder at the shard's end, waiting for a controller away
/// or restarting as long as it takes (once the agent is stopping, for a while).
async fn send_rest(replica: &mut Replica, session: &Session) -> Result<(), String> {
    let mut patience = Session::patience();
    loop {
        let e = match replica.sync().await {
            Ok(()) => {
                session.back();
                return Ok(());
            }
            Err(e) => e,
        };
        // It holds less than this agent thought: asked again on the next try.
        let behind = e.code() == Some("part_behind");
        if !(Session::worth_waiting(&e) || behind) || !session.wait(&e, &mut patience).await {
            return Err(format!(
                "cannot send the shard's results to the controller: {e}"
            ));
        }
    }
}
