//! What a comparison answers with: each metric judged ([`Change`]), per compared run
//! ([`RunChanges`]) and as a whole ([`Comparison`]), and the runs as read for it
//! ([`RunData`]).

use std::path::Path;

use serde::{Deserialize, Serialize};

use keystorm_types::OpKind;

use super::index_story::IndexStory;
use super::judge::Verdict;
use super::metric::Better;
use crate::uncertainty::{self, Estimate, RunSeconds};
use crate::{ClockSource, ResultStore, ResultsError, Section, SummaryRow};

/// Which run a side is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunLabel {
    pub run_id: String,
    pub workload: String,
    pub started_at: String,
}

/// One metric of one phase × round × operation, judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Change {
    pub section: Section,
    /// The round; absent outside the rounds and for a round phase's rounds together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// A round phase's rounds together (their intervals drawn over the rounds).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all_rounds: bool,
    pub phase: String,
    pub op: OpKind,
    /// `ops_per_sec`, `mib_per_sec`, `p50`, `p99`, `p99.9` (µs), `error_rate` (a
    /// share), `over_1s`… (the share of timed operations at or over the mark), or
    /// `sustainable_rate` (a search's, ops/s; its interval is the bracket its search
    /// ended in, and `phase` the search's phase).
    pub metric: String,
    pub better: Better,
    /// Each side's figure with its 95 % interval; absent where it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<Estimate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<Estimate>,
    /// New ÷ base with its 95 % interval; absent from a base of 0 or without
    /// intervals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<Estimate>,
    pub verdict: Verdict,
    /// The verdict in words: the change and its interval against the floor, or why it
    /// could not be judged and what would settle it.
    pub why: String,
}

impl Change {
    /// `round 2 write`, `before fill`, `write (rounds 1–4)`.
    pub fn place(&self) -> String {
        if self.all_rounds {
            format!("{} (all rounds)", self.phase)
        } else {
            crate::place_words(self.section, self.round, &self.phase)
        }
    }
}

/// How many metrics came out each way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerdictCounts {
    pub improved: usize,
    pub regressed: usize,
    pub no_change: usize,
    pub inconclusive: usize,
    /// Percentiles not judged: mostly schedule lag.
    pub not_judged: usize,
}

/// One run against the base.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunChanges {
    pub run: RunLabel,
    /// The comparison in one paragraph: each operation's throughput ratio with its
    /// interval, the reshards and write stalls of both runs, and whether a difference
    /// recurs round by round.
    pub paragraph: String,
    /// This run's reshards and write stalls.
    pub index: IndexStory,
    pub counts: VerdictCounts,
    pub changes: Vec<Change>,
    /// Phase × operation rows only one side has (`round 3 mixed delete`): not judged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only_in_base: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only_in_new: Vec<String>,
}

/// Runs compared with a base.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Comparison {
    pub base: RunLabel,
    /// The base's reshards and write stalls.
    pub base_index: IndexStory,
    /// Changes within ± this share are no change.
    pub noise_floor: f64,
    /// The intervals' confidence (0.95).
    pub confidence: f64,
    pub tail_marks_us: Vec<u64>,
    pub runs: Vec<RunChanges>,
}

/// A run read for comparing: its label, whole-phase rows and measured seconds.
pub struct RunData {
    pub label: RunLabel,
    pub rows: Vec<SummaryRow>,
    pub seconds: RunSeconds,
    pub index: IndexStory,
    /// Where its latencies end; runs recorded before it was kept ended on the
    /// client's clock.
    pub clock: ClockSource,
    /// Where its searches for the sustainable rate ended.
    pub searches: Vec<crate::SearchResult>,
}

impl RunData {
    /// The run in `dir`.
    pub fn read(dir: &Path) -> Result<RunData, ResultsError> {
        let manifest = ResultStore::read_manifest(dir)?;
        let summary = ResultStore::read_summary_or_empty(dir, &manifest.run_id)?;
        Ok(RunData {
            label: RunLabel {
                run_id: manifest.run_id.clone(),
                workload: manifest.workload.clone(),
                started_at: manifest.started_at.clone(),
            },
            rows: crate::whole_phase_rows(dir, &summary.rows),
            seconds: uncertainty::seconds::read(dir),
            index: IndexStory::read(dir),
            clock: manifest
                .latency_clock
                .map_or(ClockSource::User, |c| c.source),
            searches: summary.searches,
        })
    }
}
