//! A hook before every phase. Agents under a controller pass one that waits at the
//! controller's barrier, so the shards of a run start each phase together and rounds
//! stay aligned even when a count-based phase ends sooner on one host than another.

use std::future::Future;
use std::pin::Pin;

use keystorm_results::PhaseRef;

/// What [`PhaseGate::before_phase`] returns.
pub type GateFuture<'a> = Pin<Box<dyn Future<Output = Result<(), GateError>> + Send + 'a>>;

/// Why a gate ended the run instead of opening; either way the run ends as aborted.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// Whoever keeps the gate stopped the run, for this reason.
    #[error("{0}")]
    Aborted(String),
    /// The gate's keeper could not be asked: which gate, and what went wrong.
    #[error("{gate}: {reason}")]
    Unanswered { gate: &'static str, reason: String },
}

/// Asked before each phase of the schedule starts (also the phase a resumed run
/// continues in).
pub trait PhaseGate: Send + Sync + std::fmt::Debug {
    /// The phase waits until this resolves; an error ends the run as aborted with its
    /// message. Cancelling the run stops the wait.
    fn before_phase<'a>(&'a self, index: usize, phase: &'a PhaseRef) -> GateFuture<'a>;
}
