//! A hook before every phase. Agents under a controller pass one that waits at the
//! controller's barrier, so the shards of a run start each phase together and rounds
//! stay aligned even when a count-based phase ends sooner on one host than another.
//! The same keeper chooses the steps of a search run by several shards: each shard
//! reports the step it ran, and the keeper judges the step on all of them merged.

use std::future::Future;
use std::pin::Pin;

use keystorm_results::merge::StepPart;
use keystorm_results::{PhaseRef, SearchResult};

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

/// What a shard searching under a keeper asks for: its next step, `step` counting the
/// steps it ran (its rows hold them), with what it measured of the step it ran last.
#[derive(Debug, Clone)]
pub struct SearchAsk {
    pub step: u32,
    pub report: Option<StepReport>,
}

/// One shard's measure of step `step` of a search (the number the keeper gave it).
#[derive(Debug, Clone)]
pub struct StepReport {
    pub step: u32,
    pub part: StepPart,
}

/// What the keeper answers a [`SearchAsk`].
#[derive(Debug, Clone, PartialEq)]
pub enum SearchOrder {
    /// Run step `step` of the search at `rate` (the whole run's, which the shards
    /// split), its `repeat`-th run at that rate.
    Run { step: u32, rate: f64, repeat: u32 },
    /// The search ended here.
    Done(SearchResult),
}

/// What [`PhaseGate::search_step`] returns.
pub type SearchFuture<'a> =
    Pin<Box<dyn Future<Output = Result<SearchOrder, GateError>> + Send + 'a>>;

/// Asked before each phase of the schedule starts (also the phase a resumed run
/// continues in).
pub trait PhaseGate: Send + Sync + std::fmt::Debug {
    /// The phase waits until this resolves; an error ends the run as aborted with its
    /// message. Cancelling the run stops the wait.
    fn before_phase<'a>(&'a self, index: usize, phase: &'a PhaseRef) -> GateFuture<'a>;

    /// Asked by the search of phase `index` of a shard before each step: the step to
    /// run, chosen on every shard's measure. `None`: this gate chooses no steps (the
    /// run chooses its own).
    fn search_step(&self, index: usize, ask: SearchAsk) -> Option<SearchFuture<'_>> {
        let _ = (index, ask);
        None
    }
}
