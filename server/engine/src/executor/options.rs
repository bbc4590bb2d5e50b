//! What a run is asked to do beyond what its workload says, and what it gives back.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use super::gate::PhaseGate;
use crate::keyspace::WindowState;
use keystorm_results::{RunOverrides, RunStatus, Summary};
use keystorm_workload::embedded_target::EmbeddedTargets;

/// How to run, beyond what the workload says.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Folder holding one sub-folder per run.
    pub results_root: PathBuf,
    pub labels: BTreeMap<String, String>,
    /// What to use instead of the workload's settings (e.g. the same workload against
    /// another store); recorded in the manifest, and reused by a resume.
    pub overrides: RunOverrides,
    /// Continue this interrupted run (its folder) instead of starting a new one.
    pub resume: Option<PathBuf>,
    pub workload_file: Option<String>,
    pub command_line: Vec<String>,
    /// What starts the target of a workload with `endpoint: embedded` (none: such a
    /// workload is refused).
    pub embedded: Option<Arc<dyn EmbeddedTargets>>,
    /// Start the phases at this wall-clock time, not at once (`--start-at`), so the
    /// shards of one workload started apart run their duration phases side by side.
    /// The run checks its inputs, reaches its target and makes its buckets ready
    /// first; a time already past starts at once.
    pub start_at: Option<SystemTime>,
    /// Asked before each phase starts (an agent waits at its controller's barrier).
    pub gate: Option<Arc<dyn PhaseGate>>,
    /// `resume` is a copy of the run folder of a process that was lost, taken over by
    /// this one (an agent's shard): the resumed part's rows say so.
    pub taken_over: bool,
    /// Why a resumed run that was stopped cleanly had stopped, when its caller knows
    /// better than "interrupted" (an agent that paused its shard while its controller
    /// was gone); recorded with the pause.
    pub paused_because: Option<keystorm_results::PauseReason>,
    /// Said as `Warning` events as the run starts (and as it is resumed): how it was run
    /// that its results should carry, e.g. an agent's link to its controller in clear.
    pub warnings: Vec<String>,
}

/// The end of a run.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub run_id: String,
    pub dir: PathBuf,
    pub status: RunStatus,
    pub error: Option<String>,
    pub summary: Summary,
    pub window: WindowState,
    /// Whether `keystorm run --resume` can continue the run: not on the embedded
    /// target, whose objects end with the process.
    pub resumable: bool,
}
