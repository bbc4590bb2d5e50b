//! Which phase a record belongs to: its section of the workload (before, a round,
//! after), its round and its place. Every result file and event names phases this way.

use serde::{Deserialize, Serialize};

/// Where a phase sits in the workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Before,
    Round,
    After,
}

impl Section {
    pub fn as_str(self) -> &'static str {
        match self {
            Section::Before => "before",
            Section::Round => "round",
            Section::After => "after",
        }
    }
}

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

/// `round 3 write`, `before fill`: a phase as warnings and verdicts name it.
pub fn place_words(section: Section, round: Option<u32>, name: &str) -> String {
    match round {
        Some(n) => format!("round {n} {name}"),
        None => format!("{} {name}", section.as_str()),
    }
}

impl PhaseRef {
    /// `round 3 write`, `before fill`.
    pub fn place(&self) -> String {
        place_words(self.section, self.round, &self.name)
    }
}
