//! The run split over agents, as the controller keeps it: what was asked, which agent
//! holds which shard, how far each shard got, and how the run stands.

use std::time::SystemTime;

use super::new_run::NewFleetRun;
use keystorm_link::protocol::{Assignment, Order, ShardReport};
use keystorm_results::{FleetEvent, FleetEventKind, MAX_FLEET_EVENTS};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    Running,
    /// Asked to stop: waiting for the shards to send what they did.
    Stopping,
    Merging,
    Completed,
    Failed,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Stopping => "stopping",
            RunState::Merging => "merging",
            RunState::Completed => "completed",
            RunState::Failed => "failed",
        }
    }

    pub fn is_going(self) -> bool {
        matches!(
            self,
            RunState::Running | RunState::Stopping | RunState::Merging
        )
    }
}

/// One shard and the agent running it.
pub struct Shard {
    pub agent: String,
    /// The last phase it reached the barrier of.
    pub reached: Option<u32>,
    pub local_run_id: Option<String>,
    pub phase: Option<String>,
    pub operations: u64,
    pub done: bool,
    pub error: Option<String>,
    /// The controller's clock minus its agent's, as last measured (ms).
    pub clock_offset_ms: Option<i64>,
    /// The last time another agent took the shard over.
    pub taken_over: Option<TakenOver>,
}

/// A shard given to another agent after its agent was lost.
#[derive(Debug, Clone, PartialEq)]
pub struct TakenOver {
    /// The lost agent's name.
    pub from: String,
    /// How long the shard waited, lost, for an agent to take it (ms).
    pub waited_ms: u64,
}

pub struct FleetRun {
    pub run_id: String,
    pub spec: NewFleetRun,
    pub shards: Vec<Shard>,
    pub state: RunState,
    pub started_at: SystemTime,
    pub stop_reason: Option<String>,
    pub error: Option<String>,
    pub warnings: Vec<String>,
    /// The run's live view; `None` if its folder could not be made (a warning says so)
    /// and once the run ended.
    pub live: Option<super::live::LiveRun>,
    /// What happened to the run's hosts (the first [`MAX_FLEET_EVENTS`]), their seconds
    /// counted from `started_at`: carried into the merged run.
    pub events: Vec<FleetEvent>,
    /// Its searches so far, by the phase's number in the schedule.
    pub searches: std::collections::BTreeMap<u32, super::search_record::FleetSearch>,
}

impl FleetRun {
    /// Records that `kind` happened now (to `agent`, holding shard `shard`), on the
    /// run's record and its live view.
    pub fn note(
        &mut self,
        kind: FleetEventKind,
        agent: Option<&str>,
        shard: Option<usize>,
        detail: String,
    ) {
        if self.events.len() >= MAX_FLEET_EVENTS {
            return;
        }
        let event = FleetEvent {
            t_s: self.started_at.elapsed().map_or(0.0, |d| d.as_secs_f64()),
            kind,
            agent: agent.map(str::to_string),
            shard: shard.map(|i| format!("{i}/{}", self.shards.len())),
            detail,
        };
        if let Some(live) = self.live.as_mut() {
            live.note(event.clone());
        }
        self.events.push(event);
    }

    pub fn assignment(&self, index: usize) -> Assignment {
        Assignment {
            run_id: self.run_id.clone(),
            index: index as u32,
            count: self.shards.len() as u32,
            workload: self.spec.text.clone(),
            workload_file: self.spec.workload_file.clone(),
            endpoint: self.spec.endpoint.clone(),
            labels: self.spec.labels.clone(),
            resume: self.shards[index].local_run_id.clone(),
        }
    }

    /// A restarted agent takes over the shard its earlier self held, to resume it.
    /// A stopping run hands nothing over: what the lost agent did is what it sent.
    pub fn hand_over(&mut self, old: &str, new: &str) -> Option<Order> {
        if self.state != RunState::Running {
            return None;
        }
        let index = self.shards.iter().position(|s| s.agent == old && !s.done)?;
        self.shards[index].agent = new.to_string();
        Some(Order::Run(self.assignment(index)))
    }

    /// Gives every shard the agent `old` held to `new`: the same agent, registered again
    /// after the controller restarted; whether it held any.
    pub fn rebind(&mut self, old: &str, new: &str) -> bool {
        let mut held = false;
        for shard in self.shards.iter_mut().filter(|s| s.agent == old) {
            shard.agent = new.to_string();
            held = true;
        }
        held
    }

    /// Takes what `agent` says of its shard; whether the shard's run folder changed (a
    /// change the run's record keeps). The folder it names becomes the shard's if the
    /// shard has none and no other shard has it; otherwise it changes nothing (see
    /// [`super::shard_folders`]).
    pub fn note_report(
        &mut self,
        agent: &str,
        report: &ShardReport,
        offset_ms: Option<i64>,
    ) -> bool {
        let index = report.index as usize;
        if report.run_id != self.run_id || self.shards.get(index).is_none_or(|s| s.agent != agent) {
            return false;
        }
        let changed = report
            .local_run_id
            .as_ref()
            .is_some_and(|local| self.claim_folder(index, local).unwrap_or(false));
        let shard = &mut self.shards[index];
        shard.phase = report.phase.clone();
        shard.operations = report.operations;
        shard.clock_offset_ms = offset_ms.or(shard.clock_offset_ms);
        changed
    }

    /// The order `agent` should have acted on by now, given what it reports: its shard
    /// of a running run it does not say it runs, or a stop of a run it still runs.
    pub fn order_again(&self, agent: &str, report: Option<&ShardReport>) -> Option<Order> {
        let index = self
            .shards
            .iter()
            .position(|s| s.agent == agent && !s.done)?;
        let runs_it = report.is_some_and(|r| r.run_id == self.run_id);
        match self.state {
            RunState::Running if !runs_it => Some(Order::Run(self.assignment(index))),
            RunState::Stopping if runs_it => Some(Order::Stop {
                run_id: self.run_id.clone(),
            }),
            _ => None,
        }
    }

    /// The shard `agent` holds: the one it runs, else the one it ended (an agent whose
    /// shard ended may take over another).
    pub fn shard_of(&mut self, agent: &str) -> Option<&mut Shard> {
        let at = self.shard_index_of(agent)?;
        self.shards.get_mut(at)
    }

    /// The index of the shard [`FleetRun::shard_of`] gives.
    pub fn shard_index_of(&self, agent: &str) -> Option<usize> {
        self.shards
            .iter()
            .position(|s| s.agent == agent && !s.done)
            .or_else(|| self.shards.iter().position(|s| s.agent == agent))
    }

    /// Gives shard `index` to the agent `new`, which resumes it from the copy of its
    /// run folder the controller holds (or its own, if it has one).
    pub fn take_over(&mut self, index: usize, new: &str) -> Order {
        self.shards[index].agent = new.to_string();
        Order::Run(self.assignment(index))
    }
}
