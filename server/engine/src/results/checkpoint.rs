//! The checkpoint: the keyspace window and where in the workload the run stands, so
//! `keystorm run --resume` continues an interrupted run with nothing skipped.

use serde::{Deserialize, Serialize};

use super::summary::Section;
use crate::keyspace::WindowState;

/// A phase's place in the workload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PhaseRef {
    pub section: Section,
    /// 1-based round number for round phases.
    pub round: Option<u32>,
    /// Position of the phase within its section (or within a round).
    pub index: usize,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub format_version: u32,
    /// Every index in `[tail, head)` was written and not deleted.
    pub window: WindowState,
    /// The phase running when the checkpoint was taken; `None` once all phases finished.
    pub current: Option<PhaseRef>,
    /// Phases that finished, in order.
    pub completed: usize,
}
