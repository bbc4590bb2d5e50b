//! One thing a run's verdict found (not as written, missed a threshold, fell behind, had errors, taken
//! over, resumed), in words: what the manifest keeps when the run ends, apart from the
//! verdict's working-out, which reads the run's files.

use serde::{Deserialize, Serialize};

/// What a finding is about; the badge it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    NotAsWritten,
    /// A threshold of the workload (`expect:`) was not met.
    MissedThreshold,
    FellBehind,
    HadErrors,
    TakenOver,
    Resumed,
}

impl FindingKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::NotAsWritten => "not as written",
            FindingKind::MissedThreshold => "missed a threshold",
            FindingKind::FellBehind => "fell behind",
            FindingKind::HadErrors => "had errors",
            FindingKind::TakenOver => "taken over",
            FindingKind::Resumed => "resumed",
        }
    }
}

/// One thing that happened to the run, in words with units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Finding {
    pub kind: FindingKind,
    /// `round 3 write: asked 5000 ops/s, sent 2383 ops/s (48 %)`.
    pub text: String,
}
