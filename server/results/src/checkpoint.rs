//! The checkpoint: the keyspace window, where in the workload the run stands and how far
//! its running phase got, so `keystorm run --resume` continues an interrupted or crashed
//! run with nothing skipped.

use serde::{Deserialize, Serialize};

use super::phase_ref::PhaseRef;
use crate::window_state::WindowState;

/// `checkpoint.json`: where the run stands, saved when a phase starts, every
/// `checkpoint_every` while it runs, and when it ends or stops. A resume continues from
/// here: the phases before `completed` are done, and the current one continues from
/// its position, so a crash costs at most the work since the last save.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub format_version: u32,
    /// Every index below `head` was written, every index below `tail` deleted; writes
    /// above either mark may or may not have happened, and a resume redoes them.
    pub window: WindowState,
    /// The phase running when the checkpoint was taken; `None` once all phases finished.
    pub current: Option<PhaseRef>,
    /// Phases that finished, in order.
    pub completed: usize,
    /// How far the current phase got (absent between phases, and in runs recorded
    /// before phases saved their progress: those redo the phase whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<PhasePosition>,
    /// How long the interval log and the histogram log were when the checkpoint was
    /// saved: what was recorded up to it. A copy of the folder cut at these lengths is
    /// one a process killed at that moment would have left, so a takeover from such a
    /// copy redoes only what the checkpoint does not count, and counts nothing twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logs: Option<LogMarks>,
}

/// The lengths (bytes) of a run's two logs of measurements at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogMarks {
    /// `intervals.jsonl`.
    pub intervals: u64,
    /// `histograms.hlog`.
    pub histograms: u64,
}

/// How far the running phase got, over all the parts it ran in (a part is its stretch
/// in one process: the first run, then each resume).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PhasePosition {
    /// Operations finished (successes and failures): an `operations: N` phase does the
    /// rest.
    pub operations: u64,
    /// Seconds the phase ran, warm-up included: a `duration` phase runs the rest.
    pub elapsed_s: f64,
    /// Number of the phase's next interval, so a resumed phase's intervals follow on.
    pub next_interval: u64,
    /// The part still running when the checkpoint was saved, whose summary rows are not
    /// written yet. A part that stopped cleanly wrote its rows and leaves this out; after
    /// a crash, a resume builds the part's rows from its recorded intervals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_part: Option<PartStart>,
    /// Writes the next part does again: the part before it finished them above the
    /// watermarks it resumes from (a PUT or DELETE done twice leaves the same bucket,
    /// and the target was sent both).
    #[serde(default, skip_serializing_if = "Redone::is_none")]
    pub redone: Redone,
    /// An `epochs` phase: the pick every pick before which was read and recorded, so a
    /// resume reads from there (picks after it that were done are read again; none is
    /// left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_pick: Option<u64>,
}

/// Writes a resumed part did again, by operation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redone {
    #[serde(default)]
    pub put: u64,
    #[serde(default)]
    pub delete: u64,
}

impl Redone {
    pub fn is_none(&self) -> bool {
        self.put == 0 && self.delete == 0
    }

    /// The count for `op` (reads are never redone: a resume goes on with what is left).
    pub fn of(&self, op: keystorm_types::OpKind) -> u64 {
        match op {
            keystorm_types::OpKind::Put => self.put,
            keystorm_types::OpKind::Delete => self.delete,
            _ => 0,
        }
    }
}

/// Where a part of a phase began, for building its summary rows from the interval files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PartStart {
    /// Its first interval.
    pub first_interval: u64,
    /// Seconds from the run's start to its first interval.
    pub t_s: f64,
    pub started_at: String,
    pub objects_at_start: u64,
    /// Whether the part continued the phase after a resume.
    pub resumed: bool,
    /// Operations finished and seconds run by the phase's parts before this one.
    pub operations_before: u64,
    pub elapsed_before_s: f64,
    /// CPU seconds keystorm spent in the part up to the checkpoint.
    pub client_cpu_s: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub index_at_start: Vec<super::BucketIndex>,
    /// The keyspace window when the part began, so a resume after it can tell the
    /// writes it redoes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_at_start: Option<WindowState>,
    /// Writes this part did again (see [`PhasePosition::redone`]).
    #[serde(default, skip_serializing_if = "Redone::is_none")]
    pub redone: Redone,
    /// The part resumed, on another host, a copy of the run folder of a process that
    /// was lost (an agent's shard taken over).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub taken_over: bool,
}
