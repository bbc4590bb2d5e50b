//! How a run ended (or that it is still going), as its manifest records it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Still going (or, on another host or without `/proc`, killed without a chance
    /// to say otherwise).
    Running,
    /// Every phase finished.
    Completed,
    /// Stopped by the user (Ctrl-C, stop request); results up to then are kept.
    Interrupted,
    /// Stopped by the workload's maximum error rate.
    Aborted,
    /// Could not go on (target unreachable, bucket could not be created...).
    Failed,
    /// The manifest says running, but the process running it is gone (killed, out of
    /// memory, a crash, a reboot): never written, only seen. Resumable like an
    /// interrupted run.
    Killed,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Aborted => "aborted",
            RunStatus::Failed => "failed",
            RunStatus::Killed => "killed",
        }
    }
}
