//! One shard given to this agent: run it as `keystorm run --shard I/N` would (with
//! the agent's own credentials and results folder), waiting at the controller's
//! barrier before every phase and sending the run folder as it grows; at the end send
//! the rest and say it is done. A shard another agent began is resumed from the copy
//! of its folder the controller holds. Every call to the controller goes with the
//! agent's current id and waits out a controller that is away or restarting: the shard
//! never ends because the controller was gone for a while.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use keystorm_engine::executor::{self, RunOptions};
use keystorm_results::{MANIFEST_FILE, RunOverrides, RunStatus, Shard};
use tokio_util::sync::CancellationToken;

use super::config::AgentConfig;
use super::contact::{self, Contact, Paused};
use super::gate::ControllerGate;
use super::replica::{Replica, refused_over_cap};
use super::session::Session;
use super::status::{AgentObserver, ShardStatus};
use keystorm_console::progress::Progress;
use keystorm_link::bounds::{MAX_ERROR_CHARS, clip};
use keystorm_link::client::{Link, LinkError};
use keystorm_link::protocol::{Assignment, ShardDone, ShardReport};

/// How a shard is watched: the agent's contact with its controller, and the flag set
/// when the shard paused for lack of it.
#[derive(Clone)]
pub struct Watch {
    pub contact: Contact,
    pub paused: Paused,
}

/// Runs the shard to its end (or until `cancel`) and reports it. A shard paused because
/// the controller went silent is neither sent nor reported: its folder is kept, and
/// the controller gives it back (to resume) or says it was taken over.
pub async fn run(
    config: Arc<AgentConfig>,
    link: Link,
    session: Session,
    assignment: Assignment,
    status: ShardStatus,
    cancel: CancellationToken,
    watch: Watch,
) {
    status.set(Some(ShardReport {
        run_id: assignment.run_id.clone(),
        index: assignment.index,
        local_run_id: assignment.resume.clone(),
        phase: None,
        operations: 0,
        ..ShardReport::default()
    }));
    let outcome = execute(
        &config,
        &link,
        &session,
        &assignment,
        &status,
        cancel,
        &watch,
    )
    .await;
    let (local_run_id, error) = match outcome {
        Ok((dir, _, RunStatus::Interrupted)) if watch.paused.is_set() => {
            stderrln!(
                "shard {}/{} paused; its folder {} is kept, and it goes on once the \
                 controller answers",
                assignment.index,
                assignment.count,
                dir.display()
            );
            status.set(None);
            watch.paused.keep(dir);
            return;
        }
        Ok((dir, replica, _)) => {
            let local = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            let mut replica = replica
                .filter(|r| r.dir() == dir)
                .unwrap_or_else(|| Replica::new(session.clone(), &assignment.run_id, &dir));
            match send_rest(&mut replica, &session).await {
                Ok(()) => (local, None),
                Err(e) if e.code() == Some("unknown_run") => {
                    // Lost (the controller did not hear it), and replaced meanwhile.
                    say_taken_over(assignment.index, &assignment.run_id, &dir, None);
                    status.set(None);
                    return;
                }
                Err(e) => (local, Some(not_sent(&e, &dir, &config.name))),
            }
        }
        Err(e) => (None, Some(e.to_string())),
    };
    if let Some(e) = &error {
        stderrln!("shard {}/{}: {e}", assignment.index, assignment.count);
    }
    // The controller's live view gets the shard's last seconds before hearing it ended
    // (heartbeats carry them; a controller out of reach is not waited for long).
    let _ = tokio::time::timeout(NEWS_DRAIN, status.drained()).await;
    tell_done(
        &session,
        assignment.index,
        ShardDone {
            run_id: assignment.run_id.clone(),
            local_run_id,
            error,
        },
    )
    .await;
    status.set(None);
}

/// The end of a shard that paused while the controller was silent, and that the
/// controller now stops: its folder is sent and its end told, so a stopping run merges
/// it; unless another agent took the shard over meanwhile — the controller then refuses
/// the folder, and what this agent did after its last copy reached the controller is
/// in no merged result (the other agent did that work again).
pub async fn end_paused(
    session: Session,
    agent: String,
    run_id: String,
    index: u32,
    folder: PathBuf,
    paused_for: Duration,
) {
    let mut replica = Replica::new(session.clone(), &run_id, &folder);
    match send_rest(&mut replica, &session).await {
        Ok(()) => {
            let local_run_id = folder.file_name().map(|n| n.to_string_lossy().into_owned());
            let done = ShardDone {
                run_id,
                local_run_id,
                error: None,
            };
            tell_done(&session, index, done).await;
        }
        Err(e) if e.code() == Some("unknown_run") => {
            say_taken_over(index, &run_id, &folder, Some(paused_for))
        }
        Err(e) => stderrln!(
            "shard {index} of run {run_id}: {}",
            not_sent(&e, &folder, &agent)
        ),
    }
}

/// Says that another agent took shard `index` over from this one (lost to the
/// controller, after it paused `paused_for` ago if it did), and what that means for the
/// run folder `folder` it leaves.
fn say_taken_over(index: u32, run_id: &str, folder: &Path, paused_for: Option<Duration>) {
    let when = paused_for.map_or_else(
        || "while the controller could not hear this agent".to_string(),
        |d| {
            format!(
                "while this agent could not reach the controller ({:.0} s ago)",
                d.as_secs_f64()
            )
        },
    );
    stderrln!(
        "shard {index} of run {run_id} was taken over by another agent {when}: what it did \
         after its last copy reached the controller was done again by that agent and is not \
         in the merged run (it stays in {})",
        folder.display()
    );
}

/// Tells the controller the shard ended, waiting for a controller away or restarting.
async fn tell_done(session: &Session, index: u32, mut done: ShardDone) {
    done.error = done.error.map(|e| clip(&e, MAX_ERROR_CHARS, true));
    let told = session
        .call(&CancellationToken::new(), |me| {
            let done = &done;
            async move {
                me.link
                    .post_empty(&format!("/api/agents/{}/done", me.id), done)
                    .await
            }
        })
        .await;
    if let Err(e) = told {
        stderrln!(
            "cannot tell the controller shard {index} is done: {}",
            e.message()
        );
    }
}

/// Why the shard's results did not reach the controller; where they are, if it took
/// no more of them.
fn not_sent(e: &LinkError, dir: &Path, agent: &str) -> String {
    if refused_over_cap(e) {
        format!(
            "the controller's copy of this shard's results is incomplete: {e}. The whole run \
             folder is on agent {agent}, in {}",
            std::path::absolute(dir)
                .unwrap_or_else(|_| dir.to_path_buf())
                .display()
        )
    } else {
        format!("cannot send the shard's results to the controller: {e}")
    }
}

/// How long a shard's end waits for its news to reach the controller.
const NEWS_DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Why a shard could not be run: its workload, the copy it resumes from, or the run.
#[derive(Debug, thiserror::Error)]
enum ShardRunError {
    #[error(transparent)]
    Workload(#[from] keystorm_workload::spec::SpecError),
    #[error(transparent)]
    Seed(#[from] super::seed::SeedError),
    #[error(transparent)]
    Run(#[from] executor::RunError),
}

/// Runs the shard; its run folder, what was sent of it, and how it ended.
async fn execute(
    config: &AgentConfig,
    link: &Link,
    session: &Session,
    a: &Assignment,
    status: &ShardStatus,
    cancel: CancellationToken,
    watch: &Watch,
) -> Result<(PathBuf, Option<Replica>, RunStatus), ShardRunError> {
    let file = a.workload_file.as_deref().unwrap_or("workload.yaml");
    let (mut plan, _warnings) = keystorm_workload::spec::parse_workload(&a.workload, file)?;
    // A checkpoint with every interval, so the copy the controller holds is never more
    // than a second behind what the agent measured: a takeover redoes at most that.
    plan.checkpoint_every = CHECKPOINT_EVERY;
    // This agent's way to the store, else the run's.
    let endpoint = config.endpoint.clone().or_else(|| a.endpoint.clone());
    let mut taken_over = false;
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
                let copy = super::seed::Copy {
                    run_id: &a.run_id,
                    index: a.index,
                    local: id,
                    endpoint: endpoint.as_deref(),
                };
                super::seed::fetch(&session.current(), &copy, &dir).await?;
                taken_over = true;
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
    // The clock of the first endpoint stands for the target's.
    let first = |urls: &str| urls.split(',').next().map(|u| u.trim().to_string());
    if let Some(url) = endpoint
        .as_deref()
        .and_then(first)
        .or_else(|| match &plan.target.endpoint {
            keystorm_workload::plan::Endpoint::Urls(urls) => urls.first().cloned(),
            keystorm_workload::plan::Endpoint::Embedded { .. } => None,
        })
    {
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
        // Its own shard, stopped cleanly: paused while the controller was gone.
        paused_because: Some(keystorm_results::PauseReason::ControllerGone),
        taken_over,
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
        session.clone(),
        a.run_id.clone(),
        config.results_root.clone(),
        status.clone(),
        replicating.clone(),
    ));
    // The load pauses if the controller goes silent.
    let watched = CancellationToken::new();
    tokio::spawn(contact::watch(
        watch.contact.clone(),
        format!("shard {}/{} of run {}", a.index, a.count, a.run_id),
        cancel.clone(),
        watch.paused.clone(),
        watched.clone(),
    ));
    let outcome = executor::run(plan, &a.workload, options, observer, cancel).await;
    watched.cancel();
    replicating.cancel();
    let replica = replicator.await.ok().flatten();
    let outcome = outcome?;
    stderrln!(
        "shard {}/{}: {} ({})",
        a.index,
        a.count,
        outcome.status.as_str(),
        outcome.dir.display()
    );
    Ok((outcome.dir, replica, outcome.status))
}

/// How often a shard saves its checkpoint: with every interval.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// How often the run folder is sent while the shard runs.
const SYNC_EVERY: Duration = Duration::from_secs(1);
/// How often it is tried again once the controller refused it for its caps.
const OVER_CAP_RETRY: Duration = Duration::from_secs(60);

/// Sends the shard's run folder to the controller every [`SYNC_EVERY`] until `stop`;
/// where it got. A controller away is said once (by whichever call notices first).
async fn replicate(
    session: Session,
    run_id: String,
    results_root: PathBuf,
    status: ShardStatus,
    stop: CancellationToken,
) -> Option<Replica> {
    let mut replica: Option<Replica> = None;
    let mut failing = false;
    // Past one of the controller's caps: said once, tried again now and then (the
    // controller may be started again with larger caps).
    let mut over_cap = false;
    loop {
        let pause = if over_cap { OVER_CAP_RETRY } else { SYNC_EVERY };
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = stop.cancelled() => return replica,
        }
        let Some(local) = status.local_run_id() else {
            continue;
        };
        let r = replica.get_or_insert_with(|| {
            Replica::new(session.clone(), &run_id, &results_root.join(&local))
        });
        // A sync cut off by the shard's end (a controller out of reach does not hold it
        // up) leaves the copy as some sync would: the next asks what it holds.
        let synced = tokio::select! {
            synced = r.sync(true) => synced,
            _ = stop.cancelled() => {
                r.forget();
                return replica;
            }
        };
        match synced {
            Ok(()) => {
                session.back();
                if failing || over_cap {
                    stderrln!("the run folder reaches the controller again");
                    failing = false;
                    over_cap = false;
                }
            }
            Err(e) if e.is_transient() => session.away(&e),
            // The controller restarted: sent with the new id once registered again.
            Err(e) if Session::worth_waiting(&e) => {}
            Err(e) if refused_over_cap(&e) => {
                if !over_cap {
                    stderrln!(
                        "the controller takes no more of this shard's run folder: {e}. The \
                         shard goes on, and its whole results stay here in {}; trying again \
                         every {} s",
                        std::path::absolute(r.dir())
                            .unwrap_or_else(|_| r.dir().to_path_buf())
                            .display(),
                        OVER_CAP_RETRY.as_secs()
                    );
                    over_cap = true;
                }
            }
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
async fn send_rest(replica: &mut Replica, session: &Session) -> Result<(), LinkError> {
    let mut patience = Session::patience();
    loop {
        let e = match replica.sync(false).await {
            Ok(()) => {
                session.back();
                return Ok(());
            }
            Err(e) => e,
        };
        if refused_over_cap(&e) {
            return Err(e);
        }
        // It holds less than this agent thought: asked again on the next try.
        let behind = e.code() == Some("part_behind");
        if !(Session::worth_waiting(&e) || behind) || !session.wait(&e, &mut patience).await {
            return Err(e);
        }
    }
}
