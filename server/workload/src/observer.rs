//! Who watches a run: the progress line of the CLI, the live page of the server, tests.
//! Every event the run logs is handed to its observer with its id in the event log.

use keystorm_results::metrics::IntervalStats;
use keystorm_results::{IntervalRecord, RunEvent};

/// Receives run events with their id in the run's event log (0, 1, 2, ...); called from
/// the collector task, so keep it quick.
pub trait Observer: Send + Sync {
    fn event(&self, id: u64, event: &RunEvent);

    /// The run has its id, and nothing of it is on disk yet (or, resumed, nothing new):
    /// called before its folder is created or reopened, so that whoever finds the folder
    /// can already find the run's live stream by that id.
    fn named(&self, _run_id: &str) {}

    /// The run checked its inputs and reached its target, and now waits until `at`
    /// (`--start-at`) to begin its phases.
    fn waiting_until(&self, _at: std::time::SystemTime) {}

    /// An interval was written, with its latency histograms per operation: what an
    /// agent sends its controller for the live merge. Called before its `interval`
    /// event.
    fn interval_recorded(&self, _record: &IntervalRecord, _stats: &IntervalStats) {}
}

/// An observer that ignores everything.
pub struct NoObserver;

impl Observer for NoObserver {
    fn event(&self, _id: u64, _event: &RunEvent) {}
}
