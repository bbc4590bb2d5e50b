//! The spans of a run's clock in which it did not run: stopped (Ctrl-C, a stop
//! request) or killed and resumed, a shard paused while its controller was gone, a lost
//! host's shard waiting to be taken over, a shard waiting at a phase's barrier for the
//! others. Each is an event of the run, so charts break
//! their lines over it and shade it with its reason, `show` lists it, and a row's rate
//! (which divides by the time the phase ran) can be told from its wall-clock rate.

use serde::{Deserialize, Serialize};

use crate::phase_ref::PhaseRef;

/// Why a run (or one shard of it) did not run for a while.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PauseReason {
    /// Stopped (Ctrl-C, a stop request), then resumed.
    Interrupted,
    /// Its process died (kill -9, a crash, a reboot), then it was resumed.
    Killed,
    /// A shard's agent lost its controller and paused the shard until it came back.
    ControllerGone,
    /// A lost agent's shard waited for another agent to take it over.
    TakenOver,
    /// A shard waited at the barrier before a phase for the run's other shards.
    BarrierWait,
}

impl PauseReason {
    pub fn as_str(self) -> &'static str {
        match self {
            PauseReason::Interrupted => "interrupted",
            PauseReason::Killed => "killed",
            PauseReason::ControllerGone => "controller gone",
            PauseReason::TakenOver => "taken over",
            PauseReason::BarrierWait => "barrier wait",
        }
    }
}

/// A span of the run's clock in which it (or a shard of it) did not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PauseEvent {
    /// Seconds from the run's first start: when it stopped and when it went on.
    pub from_t_s: f64,
    pub to_t_s: f64,
    pub reason: PauseReason,
    /// The phase it stopped in (none when it stopped between phases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<PhaseRef>,
    /// In a merged run: the shard that paused (`1/4`); none: the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// What happened, in words: `resumed with keystorm run --resume … on host-a`.
    pub detail: String,
}

impl PauseEvent {
    pub fn seconds(&self) -> f64 {
        (self.to_t_s - self.from_t_s).max(0.0)
    }

    /// `paused 6.0 s (interrupted) at 12.3 s-18.3 s: resumed …`.
    pub fn describe(&self) -> String {
        let shard = self
            .shard
            .as_ref()
            .map_or_else(String::new, |s| format!("shard {s} "));
        let phase = self
            .phase
            .as_ref()
            .map_or_else(String::new, |p| match p.round {
                Some(r) => format!(" in round {r} {}", p.name),
                None => format!(" in {} {}", p.section.as_str(), p.name),
            });
        format!(
            "{shard}paused {:.1} s ({}) at {:.1} s-{:.1} s{phase}: {}",
            self.seconds(),
            self.reason.as_str(),
            self.from_t_s,
            self.to_t_s,
            self.detail
        )
    }
}
