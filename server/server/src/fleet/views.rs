//! What the API shows of the agents and their run (the Agents page, `keystorm run
//! --controller`): states, clock offsets, versions, shards and how far each got.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::run_record::RunState;
use super::state::Fleet;
use keystorm_link::protocol::OFFSET_WARNING_MS;
use keystorm_results::FleetEvent;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AgentsView {
    pub agents: Vec<AgentView>,
    /// The run across agents going now, or the last one.
    pub run: Option<FleetRunView>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AgentView {
    pub id: String,
    pub name: String,
    pub host: String,
    pub version: String,
    pub cores: u32,
    /// `idle`, `running` (a shard) or `lost` (no heartbeat for 5 s).
    pub state: String,
    /// Milliseconds since its last heartbeat.
    pub seen_ms_ago: u64,
    /// The controller's clock minus its clock, ms (NTP-style, from heartbeats).
    pub clock_offset_ms: Option<i64>,
    /// The target's `Date` header minus its clock, ms.
    pub target_skew_ms: Option<i64>,
    /// Shard "I/N" of the current run, if it holds one.
    pub shard: Option<String>,
    pub phase: Option<String>,
    /// Seconds since it registered.
    pub connected_s: u64,
    /// The endpoint it uses in place of the run's (`keystorm agent --endpoint`); none:
    /// the run's (the workload's, or the one the run was started with).
    pub endpoint: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct FleetRunView {
    pub run_id: String,
    pub workload: String,
    /// `running`, `stopping`, `merging`, `completed` or `failed`.
    pub state: String,
    /// The merged run, once written: its id in the runs list.
    pub merged_run: Option<String>,
    pub error: Option<String>,
    pub warnings: Vec<String>,
    pub started_s_ago: u64,
    pub shards: Vec<ShardView>,
    /// What happened to the run's hosts, the newest [`RECENT_EVENTS`]: agents lost and
    /// back, shards taken over, the controller cut off or restarted.
    pub events: Vec<FleetEvent>,
    /// How many such events the run has had (`events` holds the last of them).
    pub events_total: u64,
}

/// How many of a run's fleet events the view carries.
pub const RECENT_EVENTS: usize = 20;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ShardView {
    pub index: u32,
    pub agent: String,
    /// `running`, `lost`, `done` or `failed`.
    pub state: String,
    pub phase: Option<String>,
    /// Operations done in its running phase.
    pub operations: u64,
    /// The agent's own run folder of this shard.
    pub local_run_id: Option<String>,
    /// While `lost`: seconds it has waited for an idle agent to take it over.
    pub waiting_s: Option<f64>,
    /// The agent it was last taken over from (lost), and how long it waited for this
    /// one (seconds).
    pub taken_over_from: Option<String>,
    pub waited_s: Option<f64>,
}

impl Fleet {
    pub fn view(&self) -> AgentsView {
        let inner = self.lock();
        let holding = |id: &str| {
            inner
                .run
                .as_ref()
                .filter(|r| r.state.is_going())
                .and_then(|r| {
                    r.shards
                        .iter()
                        .position(|s| s.agent == id && !s.done)
                        .map(|i| (i, r.shards.len(), r.shards[i].phase.clone()))
                })
        };
        let mut agents: Vec<AgentView> = inner
            .agents
            .iter()
            .map(|a| {
                let held = holding(&a.id);
                AgentView {
                    id: a.id.clone(),
                    name: a.name.clone(),
                    host: a.host.clone(),
                    version: a.version.clone(),
                    cores: a.cores,
                    state: if a.is_lost() {
                        "lost"
                    } else if held.is_some() {
                        "running"
                    } else {
                        "idle"
                    }
                    .to_string(),
                    seen_ms_ago: a.last_seen.elapsed().as_millis() as u64,
                    clock_offset_ms: a.offset_ms,
                    target_skew_ms: a.target_skew_ms,
                    shard: held.as_ref().map(|(i, n, _)| format!("{i}/{n}")),
                    phase: held.and_then(|(_, _, p)| p),
                    connected_s: a.registered_at.elapsed().map_or(0, |d| d.as_secs()),
                    endpoint: a.endpoint.clone(),
                }
            })
            .collect();
        agents.sort_by(|a, b| a.name.cmp(&b.name));
        let run = inner.run.as_ref().map(|r| {
            let mut warnings = r.warnings.clone();
            for a in &inner.agents {
                if r.shards.iter().any(|s| s.agent == a.id)
                    && a.offset_ms.is_some_and(|o| o.abs() > OFFSET_WARNING_MS)
                {
                    warnings.push(format!(
                        "agent {}'s clock is {} ms off the controller's: its intervals land \
                         in the wrong second (run NTP/chrony on every host)",
                        a.name,
                        a.offset_ms.unwrap_or(0)
                    ));
                }
            }
            FleetRunView {
                run_id: r.run_id.clone(),
                workload: r.spec.workload.clone(),
                state: r.state.as_str().to_string(),
                merged_run: (r.state == RunState::Completed).then(|| r.run_id.clone()),
                error: r.error.clone(),
                warnings,
                started_s_ago: r.started_at.elapsed().map_or(0, |d| d.as_secs()),
                events: r.events[r.events.len().saturating_sub(RECENT_EVENTS)..].to_vec(),
                events_total: r.events.len() as u64,
                shards: r
                    .shards
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        let agent = inner.agents.iter().find(|a| a.id == s.agent);
                        let lost = !s.done && inner.is_lost(&s.agent);
                        ShardView {
                            index: i as u32,
                            agent: agent.map_or_else(|| s.agent.clone(), |a| a.name.clone()),
                            state: if s.done && s.error.is_some() {
                                "failed"
                            } else if s.done {
                                "done"
                            } else if lost {
                                "lost"
                            } else {
                                "running"
                            }
                            .to_string(),
                            phase: s.phase.clone(),
                            operations: s.operations,
                            local_run_id: s.local_run_id.clone(),
                            waiting_s: lost
                                .then(|| agent.map_or(0.0, |a| a.lost_for().as_secs_f64())),
                            taken_over_from: s.taken_over.as_ref().map(|t| t.from.clone()),
                            waited_s: s.taken_over.as_ref().map(|t| t.waited_ms as f64 / 1000.0),
                        }
                    })
                    .collect(),
            }
        });
        AgentsView { agents, run }
    }
}
