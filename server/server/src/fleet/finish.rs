//! The end of a run across agents: once every shard sent the last of its run folder
//! (or, for a stopped run, every shard whose agent is still there), the parts are
//! merged into one run under the controller's results folder, with the parts kept
//! under `shards/`. A lost shard no agent took over is merged as far as it was sent.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use keystorm_engine::executor::close_killed_run;
use keystorm_results::merge::{MergeRequest, merge_runs};
use keystorm_results::{FleetEvent, FleetLog, RunStatus};

use super::run_record::RunState;
use super::state::Fleet;

/// Where a merge is written before it takes the live folder's place.
const MERGING: &str = ".merging";

impl Fleet {
    /// Starts the merge if the run is ready for it.
    pub(super) fn merge_when_done(self: &Arc<Self>) {
        let job = {
            let mut guard = self.lock();
            let inner = &mut *guard;
            // A stopping run waits for no lost agent.
            let none_sending = inner.sending_shards().is_empty();
            let Some(run) = inner.run.as_mut() else {
                return;
            };
            let ready = match run.state {
                RunState::Running => run.shards.iter().all(|s| s.done),
                RunState::Stopping => none_sending,
                _ => false,
            };
            if !ready {
                return;
            }
            run.state = RunState::Merging;
            let mut live = run.live.take();
            if let Some(live) = live.as_mut() {
                live.flush();
            }
            let incoming = self.incoming(&run.run_id);
            let copies = self.parts_of(&run.run_id);
            let mut parts: Vec<(PathBuf, i64, Option<String>)> = Vec::new();
            let mut lost: Vec<PathBuf> = Vec::new();
            for (index, shard) in run.shards.iter().enumerate() {
                let dir = shard.local_run_id.as_ref().map(|id| copies.join(id));
                match dir {
                    Some(dir) if dir.join("manifest.json").is_file() => {
                        if !shard.done {
                            // Lost, and no agent took it over before the run stopped.
                            lost.push(dir.clone());
                            run.warnings.push(format!(
                                "shard {index}: its agent was lost and no agent took it \
                                 over; the merge holds what it sent until then"
                            ));
                        } else if shard.error.is_some() {
                            // Ended, but its copy stopped short (said when it ended): closed
                            // like a lost one's if it still says running.
                            lost.push(dir.clone());
                        }
                        let taker = inner
                            .agents
                            .iter()
                            .find(|a| a.id == shard.agent)
                            .map_or(shard.agent.as_str(), |a| a.name.as_str());
                        let takeover = shard.taken_over.as_ref().map(|t| {
                            format!(
                                "{} was lost; {taker} took shard {index} over after it waited \
                                 {:.1} s",
                                t.from,
                                t.waited_ms as f64 / 1000.0
                            )
                        });
                        parts.push((dir, shard.clock_offset_ms.unwrap_or(0), takeover))
                    }
                    _ => run.warnings.push(match &shard.error {
                        Some(e) => format!("shard {index} did not run: {e}"),
                        None => format!("shard {index} sent no results"),
                    }),
                }
            }
            let fleet = (
                run.started_at
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as u64),
                run.events.clone(),
            );
            let job = (
                run.run_id.clone(),
                run.spec.clone(),
                (parts, fleet),
                lost,
                incoming,
                live,
            );
            self.save(inner);
            job
        };
        let (run_id, spec, (parts, fleet), lost, incoming, live) = job;
        let me = self.clone();
        tokio::spawn(async move {
            let root = me.results_dir.clone();
            let id = run_id.clone();
            let merged = tokio::task::spawn_blocking(move || {
                let closing = close_lost(&spec.text, spec.workload_file.as_deref(), &lost);
                merge_into_place(&root, &id, parts, fleet, spec.plan, spec.command_line).map(
                    |(mut warnings, status, error)| {
                        warnings.splice(0..0, closing);
                        (warnings, status, error)
                    },
                )
            })
            .await
            .unwrap_or_else(|e| Err(FleetMergeError::Stopped(e)))
            .map_err(|e| e.to_string());
            let mut inner = me.lock();
            let Some(run) = inner.run.as_mut().filter(|r| r.run_id == run_id) else {
                return;
            };
            match merged {
                Ok((warnings, status, error)) => {
                    run.warnings.extend(warnings);
                    run.state = RunState::Completed;
                    // Gone with the copies just after; should that fail, the record says
                    // the run needs no picking up.
                    me.save(&inner);
                    // The parts live on under the merged run's shards/.
                    let _ = std::fs::remove_dir_all(&incoming);
                    if let Some(parent) = incoming.parent() {
                        let _ = std::fs::remove_dir(parent);
                    }
                    if let Some(live) = live {
                        live.close(status, error, true);
                    }
                }
                Err(e) => {
                    if let Some(live) = live {
                        live.close(RunStatus::Failed, Some(e.clone()), false);
                    }
                    run.error = Some(e);
                    run.state = RunState::Failed;
                    me.save(&inner);
                }
            }
            drop(inner);
            me.notify();
        });
    }
}

/// Closes the controller's copies of lost shards' folders as a resume would (the rows
/// of the part their agent was running, built from the intervals it sent; the manifest
/// says killed), so the merge counts them; what cannot be closed is said.
fn close_lost(text: &str, file: Option<&str>, lost: &[PathBuf]) -> Vec<String> {
    if lost.is_empty() {
        return Vec::new();
    }
    let plan = match keystorm_workload::spec::parse_workload(text, file.unwrap_or("workload.yaml"))
    {
        Ok((plan, _)) => plan,
        Err(e) => return vec![format!("cannot close the lost shards' parts: {e}")],
    };
    lost.iter()
        .filter_map(|dir| {
            close_killed_run(dir, &plan)
                .err()
                .map(|e| format!("cannot close the part in {}: {e}", dir.display()))
        })
        .collect()
}

/// Why the parts of a run across agents were not merged into one run.
#[derive(Debug, thiserror::Error)]
enum FleetMergeError {
    #[error("no shard sent results: nothing to merge")]
    NoParts,
    #[error(transparent)]
    Merge(#[from] keystorm_results::merge::MergeError),
    #[error("cannot put the merged run in place: {0}")]
    Place(std::io::Error),
    /// The merge's task ended (it panicked, or was cancelled) before the merge did.
    #[error("the merge failed: {0}")]
    Stopped(tokio::task::JoinError),
}

/// Merges `parts` beside the results, then puts the merged run in the place of the live
/// folder of the run (which goes): a reader sees one or the other, never half of one.
fn merge_into_place(
    root: &Path,
    run_id: &str,
    parts: Vec<(PathBuf, i64, Option<String>)>,
    (fleet_start_ms, fleet_events): (u64, Vec<FleetEvent>),
    plan: serde_json::Value,
    command_line: Vec<String>,
) -> Result<(Vec<String>, RunStatus, Option<String>), FleetMergeError> {
    if parts.is_empty() {
        return Err(FleetMergeError::NoParts);
    }
    let beside = root.join(MERGING);
    let _ = std::fs::remove_dir_all(beside.join(run_id));
    // Each part's times on the controller's clock, as the live view had them.
    let mut takeovers = Vec::new();
    let (parts, clock_offsets_ms): (Vec<PathBuf>, Vec<i64>) = parts
        .into_iter()
        .map(|(dir, offset, takeover)| {
            takeovers.push(takeover);
            (dir, offset)
        })
        .unzip();
    let merged = merge_runs(&MergeRequest {
        parts: &parts,
        results_root: &beside,
        plan: Some(plan),
        command_line,
        run_id: Some(run_id.to_string()),
        clock_offsets_ms: &clock_offsets_ms,
        takeovers: &takeovers,
        fleet: Some(FleetLog {
            start_epoch_ms: fleet_start_ms,
            events: &fleet_events,
        }),
    })?;
    let place = root.join(run_id);
    let old = beside.join(format!("{run_id}.live"));
    let cannot = FleetMergeError::Place;
    if place.exists() {
        std::fs::rename(&place, &old).map_err(cannot)?;
    }
    std::fs::rename(&merged.dir, &place).map_err(cannot)?;
    let _ = std::fs::remove_dir_all(&old);
    let _ = std::fs::remove_dir(&beside);
    Ok((
        merged.warnings,
        merged.manifest.status,
        merged.manifest.error,
    ))
}
