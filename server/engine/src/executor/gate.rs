//! A hook before every phase. Agents under a controller pass one that waits at the
//! controller's barrier, so the shards of a run start each phase together and rounds
//! stay aligned even when a count-based phase ends sooner on one host than another.

use std::future::Future;
use std::pin::Pin;

use keystorm_results::PhaseRef;

/// What [`PhaseGate::before_phase`] returns.
pub type GateFuture<'a> = Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>>;

/// Asked before each phase of the schedule starts (also the phase a resumed run
/// continues in).
pub trait PhaseGate: Send + Sync + std::fmt::Debug {
    /// The phase waits until this resolves; `Err(reason)` ends the run as aborted with
    /// that reason. Cancelling the run stops the wait.
    fn before_phase<'a>(&'a self, index: usize, phase: &'a PhaseRef) -> GateFuture<'a>;
}
