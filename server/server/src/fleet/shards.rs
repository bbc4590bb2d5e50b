//! Running a run across agents: starting it on idle agents, the barrier before every
//! phase, where an agent's result files go, a shard's end, and stopping.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use keystorm_workload::observer::Observer;

use super::error::FleetError;
use super::live::LiveRun;
use super::new_run::NewFleetRun;
use super::run_record::{FleetRun, RunState, Shard};
use super::state::Fleet;
use keystorm_link::bounds::check_part_name;
use keystorm_link::bounds::{check_done, check_run_id};
use keystorm_link::protocol::{BarrierReply, Order, ShardDone};

impl Fleet {
    /// Splits a run over `agents` idle agents; its id. `observer` is told every event of
    /// the run's live view.
    pub fn start(
        &self,
        spec: NewFleetRun,
        observer: Arc<dyn Observer>,
    ) -> Result<String, FleetError> {
        let mut inner = self.lock();
        if let Some(run) = inner.run.as_ref().filter(|r| r.state.is_going()) {
            return Err(FleetError::RunInProgress(run.run_id.clone()));
        }
        let mut idle: Vec<usize> = (0..inner.agents.len())
            .filter(|&i| inner.agents[i].is_fresh() && inner.agents[i].pending.is_none())
            .collect();
        let wanted = spec.agents as usize;
        if wanted == 0 {
            return Err(FleetError::NotEnoughAgents(
                "a run across agents needs at least one agent".to_string(),
            ));
        }
        if idle.len() < wanted {
            return Err(FleetError::NotEnoughAgents(format!(
                "{wanted} agents asked for, {} connected and idle; start more with \
                 `keystorm agent --controller URL`",
                idle.len()
            )));
        }
        idle.sort_by(|&a, &b| inner.agents[a].name.cmp(&inner.agents[b].name));
        idle.truncate(wanted);
        let run_id = keystorm_results::new_run_id(&spec.workload, SystemTime::now());
        let mut warnings = Vec::new();
        let live = LiveRun::open(&self.results_dir, &run_id, &spec, observer)
            .map_err(|e| warnings.push(format!("no live view of this run: {e}")))
            .ok();
        let run = FleetRun {
            run_id: run_id.clone(),
            shards: idle
                .iter()
                .map(|&i| Shard {
                    agent: inner.agents[i].id.clone(),
                    reached: None,
                    local_run_id: None,
                    phase: None,
                    operations: 0,
                    done: false,
                    error: None,
                    clock_offset_ms: None,
                    taken_over: None,
                })
                .collect(),
            spec,
            state: RunState::Running,
            started_at: SystemTime::now(),
            stop_reason: None,
            error: None,
            warnings,
            live,
            events: Vec::new(),
            searches: Default::default(),
        };
        for (index, &i) in idle.iter().enumerate() {
            inner.agents[i].pending = Some(Order::Run(run.assignment(index)));
        }
        inner.run = Some(run);
        self.save(&inner);
        drop(inner);
        self.notify();
        Ok(run_id)
    }

    /// Waits (up to `at_most`) until every shard reached phase `phase`, ended, or lost
    /// its agent; says to abort if the run is stopping.
    pub async fn barrier(
        &self,
        agent: &str,
        run_id: &str,
        phase: u32,
        at_most: Duration,
    ) -> Result<BarrierReply, FleetError> {
        check_run_id(run_id)?;
        {
            let mut inner = self.lock();
            let run = inner.agents_run(agent, run_id)?;
            let shard = run
                .shard_of(agent)
                .ok_or_else(|| FleetError::UnknownRun(run_id.to_string()))?;
            let reached = Some(shard.reached.map_or(phase, |r| r.max(phase)));
            if shard.reached != reached {
                shard.reached = reached;
                self.save(&inner);
            }
        }
        self.notify();
        let reply = self
            .answer_within(at_most, || self.barrier_state(run_id, phase))
            .await?;
        Ok(reply.unwrap_or(BarrierReply {
            open: false,
            abort: None,
        }))
    }

    fn barrier_state(&self, run_id: &str, phase: u32) -> Result<Option<BarrierReply>, FleetError> {
        let inner = self.lock();
        let run = inner
            .run
            .as_ref()
            .filter(|r| r.run_id == run_id)
            .ok_or_else(|| FleetError::UnknownRun(run_id.to_string()))?;
        if run.state != RunState::Running {
            return Ok(Some(BarrierReply {
                open: false,
                abort: Some(
                    run.stop_reason
                        .clone()
                        .unwrap_or_else(|| "the run was stopped".to_string()),
                ),
            }));
        }
        let open = run
            .shards
            .iter()
            .all(|s| s.done || s.reached.is_some_and(|r| r >= phase) || inner.is_lost(&s.agent));
        Ok(open.then_some(BarrierReply {
            open: true,
            abort: None,
        }))
    }

    /// Returns once run `run_id` is no longer going (merged, failed, or never was).
    pub async fn ended(&self, run_id: &str) {
        loop {
            let notified = self.changed.notified();
            let going = self
                .lock()
                .run
                .as_ref()
                .is_some_and(|r| r.run_id == run_id && r.state.is_going());
            if !going {
                return;
            }
            notified.await;
        }
    }

    /// Where a file of an agent's part goes: `.incoming/<run>/parts/<local run>/<name>`.
    pub fn part_file(
        &self,
        agent: &str,
        run_id: &str,
        local_run_id: &str,
        name: &str,
    ) -> Result<PathBuf, FleetError> {
        check_part_name("file", name)?;
        Ok(self.part_dir(agent, run_id, local_run_id)?.join(name))
    }

    /// The folder the controller keeps of `agent`'s shard of run `run_id`: what the
    /// agent sent of its run folder `local_run_id` so far. Only the agent holding the
    /// shard now may write or read it (an agent lost and replaced may not), and only
    /// its shard's folder (see [`super::shard_folders`]): the first one it names, if
    /// its shard has none yet, becomes its shard's.
    pub fn part_dir(
        &self,
        agent: &str,
        run_id: &str,
        local_run_id: &str,
    ) -> Result<PathBuf, FleetError> {
        check_part_name("folder", local_run_id)?;
        let mut inner = self.lock();
        if !inner.knows(agent) {
            return Err(FleetError::UnknownAgent(agent.to_string()));
        }
        let run = inner
            .run
            .as_mut()
            .filter(|r| r.run_id == run_id && r.state.is_going())
            .ok_or_else(|| FleetError::UnknownRun(run_id.to_string()))?;
        let index = run
            .shard_index_of(agent)
            .filter(|&i| !run.shards[i].done)
            .ok_or_else(|| FleetError::UnknownRun(run_id.to_string()))?;
        if run.claim_folder(index, local_run_id)? {
            self.save(&inner);
        }
        Ok(self.parts_of(run_id).join(local_run_id))
    }

    /// An agent's shard ended and its files were sent. When every shard is done (or,
    /// once stopping, every shard whose agent is still there), the merge begins.
    pub fn shard_done(self: &Arc<Self>, agent: &str, done: ShardDone) -> Result<(), FleetError> {
        check_done(&done)?;
        {
            let mut inner = self.lock();
            if !inner.knows(agent) {
                return Err(FleetError::UnknownAgent(agent.to_string()));
            }
            let run = inner
                .run
                .as_mut()
                .filter(|r| r.run_id == done.run_id && r.state.is_going())
                .ok_or_else(|| FleetError::UnknownRun(done.run_id.clone()))?;
            let index = run
                .shard_index_of(agent)
                .ok_or_else(|| FleetError::UnknownRun(done.run_id.clone()))?;
            // A folder not the shard's is refused, and the shard stays as it was.
            if let Some(local) = &done.local_run_id {
                run.claim_folder(index, local)?;
            }
            let shard = &mut run.shards[index];
            shard.done = true;
            shard.error = done.error;
            // A shard that ran but whose end went wrong (its copy could not be sent
            // whole, say) is said on the run, beside what the merge holds of it; one
            // that did not run at all is said by the merge.
            if let Some(error) = shard
                .error
                .as_ref()
                .filter(|_| shard.local_run_id.is_some())
            {
                let said = format!("shard {index}: {error}");
                if let Some(live) = run.live.as_mut() {
                    live.warn(said.clone());
                }
                run.warnings.push(said);
            }
            self.save(&inner);
        }
        self.notify();
        self.merge_when_done();
        Ok(())
    }

    /// What time alone changes, looked at every second while run `run_id` goes: a lost
    /// agent stops the run when its workload says `agents.on_loss: abort`, a stopping
    /// run is merged once its missing shards' agents are lost, and merged seconds past
    /// their grace reach the live view even if no agent is heard.
    pub fn tick(self: &Arc<Self>, run_id: &str) {
        let lost = {
            let mut inner = self.lock();
            let Some(run) = inner.run.as_ref().filter(|r| r.run_id == run_id) else {
                return;
            };
            let lost: Vec<String> = if run.spec.abort_on_loss && run.state == RunState::Running {
                let sending = inner.sending_shards();
                (0..run.shards.len())
                    .filter(|i| !run.shards[*i].done && !sending.contains(i))
                    .map(|i| {
                        let id = &run.shards[i].agent;
                        let agent = inner.agents.iter().find(|a| &a.id == id);
                        format!("{} (shard {i})", agent.map_or(id, |a| &a.name))
                    })
                    .collect()
            } else {
                Vec::new()
            };
            inner.publish_live();
            let noted = inner.say_lost();
            let handed = inner.hand_lost_shards();
            let changed = !handed.is_empty() || noted;
            if let Some(run) = inner.run.as_mut() {
                for message in handed {
                    stderrln!("{message}");
                    if let Some(live) = run.live.as_mut() {
                        live.warn(message.clone());
                    }
                    run.warnings.push(message);
                }
            }
            if changed {
                self.save(&inner);
            }
            lost
        };
        self.notify();
        // A stopping run waits for its shards' results or their agents' loss, which
        // only time tells.
        self.merge_when_done();
        if !lost.is_empty() {
            let reason = format!(
                "agent {} was lost, and the workload says agents.on_loss: abort",
                lost.join(", ")
            );
            if let Some(run) = self.lock().run.as_mut() {
                // Saved by the stop below.
                run.warnings.push(format!("stopped: {reason}"));
                if let Some(live) = run.live.as_mut() {
                    live.warn(format!("stopping the run: {reason}"));
                }
            }
            self.stop(run_id, &reason);
        }
    }

    /// Asks every agent of the run to stop its shard; the parts they send are merged.
    pub fn stop(self: &Arc<Self>, run_id: &str, reason: &str) -> bool {
        {
            let mut inner = self.lock();
            let inner = &mut *inner;
            let Some(run) = inner
                .run
                .as_mut()
                .filter(|r| r.run_id == run_id && r.state == RunState::Running)
            else {
                return false;
            };
            run.state = RunState::Stopping;
            run.stop_reason = Some(reason.to_string());
            for shard in run.shards.iter().filter(|s| !s.done) {
                if let Some(agent) = inner.agents.iter_mut().find(|a| a.id == shard.agent) {
                    agent.pending = Some(Order::Stop {
                        run_id: run_id.to_string(),
                    });
                }
            }
            self.save(inner);
        }
        self.notify();
        self.merge_when_done();
        true
    }
}
