//! What happened to the hosts of a run split over agents, as its controller saw it: an
//! agent lost (no heartbeat) and back, a lost agent's shard handed to another, the
//! controller itself cut off or restarted. Each is an event of the run — logged live
//! into the controller's view and carried into the merged run — so the run's timeline
//! says who was gone and when, not only the pauses the shards themselves recorded.

use serde::{Deserialize, Serialize};

/// At most this many are kept per run; the rest are counted as omitted by the timeline.
pub const MAX_FLEET_EVENTS: usize = 1_000;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FleetEventKind {
    /// An agent stopped heartbeating for long enough to count as lost.
    AgentLost,
    /// A lost agent was heard again.
    AgentBack,
    /// A lost agent's shard was given to another agent (or the same one started again).
    Takeover,
    /// No agent was heard for as long as it takes to count one lost: the controller was
    /// more likely cut off or stalled than every agent at once.
    ControllerCutOff,
    /// The controller was started again and picked the run up from its record.
    ControllerRestart,
}

impl FleetEventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FleetEventKind::AgentLost => "agent lost",
            FleetEventKind::AgentBack => "agent back",
            FleetEventKind::Takeover => "takeover",
            FleetEventKind::ControllerCutOff => "controller cut off",
            FleetEventKind::ControllerRestart => "controller restart",
        }
    }
}

/// One thing that happened to the run's hosts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FleetEvent {
    /// Seconds from the run's first start.
    pub t_s: f64,
    pub kind: FleetEventKind,
    /// The agent it concerns, by name (the one lost, back, or taking a shard over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The shard it concerns (`1/4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// In words: `agent agent-1 lost: no heartbeat for 10 s, holding shard 1/2`.
    pub detail: String,
}

impl FleetEvent {
    /// `controller restart at 31.2 s: …`.
    pub fn describe(&self) -> String {
        format!(
            "{} at {:.1} s: {}",
            self.kind.as_str(),
            self.t_s,
            self.detail
        )
    }
}

/// A controller's events of a run, their seconds counted from `start_epoch_ms` on its
/// clock (the clock the parts' offsets bring them to): what a merge carries into the
/// merged run.
#[derive(Debug, Clone, Copy)]
pub struct FleetLog<'a> {
    pub start_epoch_ms: u64,
    pub events: &'a [FleetEvent],
}
