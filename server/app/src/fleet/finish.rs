//! The end of a run across agents: once every shard sent its run folder (or, for a
//! stopped run, every shard whose agent is still there), the parts are merged into one
//! run under the controller's results folder, with the parts kept under `shards/`.

use std::path::PathBuf;
use std::sync::Arc;

use keystorm_engine::results::merge::{MergeRequest, merge_runs};

use super::run_record::RunState;
use super::state::Fleet;

impl Fleet {
    /// Starts the merge if the run is ready for it.
    pub(super) fn merge_when_done(self: &Arc<Self>) {
        let job = {
            let mut guard = self.lock();
            let inner = &mut *guard;
            let lost: Vec<bool> = match inner.run.as_ref() {
                Some(run) => run.shards.iter().map(|s| inner.is_lost(&s.agent)).collect(),
                None => return,
            };
            let Some(run) = inner.run.as_mut() else {
                return;
            };
            let ready = match run.state {
                RunState::Running => run.shards.iter().all(|s| s.done),
                RunState::Stopping => run
                    .shards
                    .iter()
                    .zip(&lost)
                    .all(|(s, &lost)| s.done || lost),
                _ => false,
            };
            if !ready {
                return;
            }
            run.state = RunState::Merging;
            let incoming = self.incoming(&run.run_id);
            let mut parts: Vec<PathBuf> = Vec::new();
            for (index, shard) in run.shards.iter().enumerate() {
                let dir = shard.local_run_id.as_ref().map(|id| incoming.join(id));
                match dir {
                    Some(dir) if dir.join("manifest.json").is_file() => parts.push(dir),
                    _ => run.warnings.push(match &shard.error {
                        Some(e) => format!("shard {index} did not run: {e}"),
                        None => format!("shard {index} sent no results"),
                    }),
                }
            }
            (
                run.run_id.clone(),
                run.spec.plan.clone(),
                run.spec.command_line.clone(),
                parts,
                incoming,
            )
        };
        let (run_id, plan, command_line, parts, incoming) = job;
        let me = self.clone();
        tokio::spawn(async move {
            let root = me.results_dir.clone();
            let id = run_id.clone();
            let merged = tokio::task::spawn_blocking(move || {
                if parts.is_empty() {
                    return Err("no shard sent results: nothing to merge".to_string());
                }
                merge_runs(&MergeRequest {
                    parts: &parts,
                    results_root: &root,
                    plan: Some(plan),
                    command_line,
                    run_id: Some(id),
                })
                .map(|m| m.warnings)
                .map_err(|e| e.to_string())
            })
            .await
            .unwrap_or_else(|e| Err(format!("the merge failed: {e}")));
            {
                let mut inner = me.lock();
                if let Some(run) = inner.run.as_mut().filter(|r| r.run_id == run_id) {
                    match merged {
                        Ok(warnings) => {
                            run.warnings.extend(warnings);
                            run.state = RunState::Completed;
                            // The parts live on under the merged run's shards/.
                            let _ = std::fs::remove_dir_all(&incoming);
                            if let Some(parent) = incoming.parent() {
                                let _ = std::fs::remove_dir(parent);
                            }
                        }
                        Err(e) => {
                            run.error = Some(e);
                            run.state = RunState::Failed;
                        }
                    }
                }
            }
            me.notify();
        });
    }
}
