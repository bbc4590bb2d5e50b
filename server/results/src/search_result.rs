//! Where a search for the sustainable rate ended: the highest rate at which every SLO
//! held (and sent ≥ 99 % of its rate), the bracket it lies in, whether both ends were
//! confirmed by a second run, and whether the time budget ran out first. Kept in the
//! summary beside the rows of the search's steps (tagged `sweep` with its name).

use serde::{Deserialize, Serialize};

use crate::phase_ref::Section;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SearchResult {
    pub section: Section,
    pub round: Option<u32>,
    /// The search's phase as written; its steps are `put@1000`, a repeat `put@1000#2`.
    pub phase: String,
    /// The SLOs every step had to keep, as written.
    pub slo: Vec<String>,
    /// Operations per second: the highest rate that passed; `None`: `from` failed, run
    /// twice.
    pub sustainable_rate: Option<f64>,
    /// The highest rate that passed (0 if none) and the lowest that failed (`None`:
    /// none failed up to `to`).
    pub bracket: (f64, Option<f64>),
    /// Both ends of the bracket were run twice and held.
    pub confirmed: bool,
    /// The search stopped at its time budget before it was done.
    #[serde(default)]
    pub budget_ran_out: bool,
    /// Steps run.
    pub steps: u32,
    /// Each step as the search judged it, in the order they ran (at most 40).
    #[serde(default)]
    pub judged: Vec<JudgedStep>,
    /// The lowest rate that failed failed on the client's side (`failed_by: client`):
    /// the bracket's upper end bounds what this client sent, not what the store
    /// sustains, which may lie higher. A comparison takes the bracket as open above.
    #[serde(default)]
    pub limited_by_client: bool,
    /// Steps of a search over agents that were not judged, and ran again: a shard's
    /// agent restarted (or another took its shard over) in the middle of them, so
    /// the shards did not run them together. Their rows are on the record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub voided: Vec<String>,
}

/// One step of a search and whether it passed: every SLO held, the client sent its
/// rate and the store answered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JudgedStep {
    /// The step's phase (`put@1000`).
    pub phase: String,
    pub passed: bool,
    /// A failed step: whose side it failed on. Absent on a step that passed, and on the
    /// steps of runs recorded before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_by: Option<FailedBy>,
}

/// Whose side a failed step of a search failed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FailedBy {
    /// The client fell behind its schedule: it sent less than was due, its requests
    /// leaving late (a tenth of their median latency or more), while its workers were
    /// mostly free (fewer in flight on average than half of them). Too few workers for
    /// the store's latency, or too little CPU: the step says nothing of the rate the
    /// store sustains.
    Client,
    /// Any other failure: an SLO broke or the store answered less than it was asked
    /// with requests leaving on time, an SLO on errors or throughput broke, or the
    /// workers were kept busy by the store's latency.
    Store,
}

impl SearchResult {
    /// `search put, round 1: sustainable 3,980 ops/s at put.p99 < 10ms (between 3980 and
    /// 4150 ops/s, both ends confirmed; 11 steps)`.
    pub fn describe(&self) -> String {
        let place = self.round.map_or_else(
            || self.section.as_str().to_string(),
            |n| format!("round {n}"),
        );
        let slo = self.slo.join(", ");
        let found = match self.sustainable_rate {
            Some(r) => format!("sustainable {r:.0} ops/s at {slo}"),
            None => format!(
                "no rate sustainable at {slo} from {:.0} ops/s",
                self.bracket.1.unwrap_or(0.0)
            ),
        };
        let bracket = match self.bracket {
            (lo, Some(hi)) if self.sustainable_rate.is_some() => {
                format!("between {lo:.0} and {hi:.0} ops/s")
            }
            (_, Some(_)) => "its first step failed".to_string(),
            (lo, None) => format!("every step passed, up to {lo:.0} ops/s"),
        };
        let how = if self.budget_ran_out {
            "the time budget ran out before it was done"
        } else if self.confirmed {
            "both ends confirmed"
        } else {
            "not confirmed"
        };
        let voided = match self.voided.len() {
            0 => String::new(),
            1 => format!(
                ", and {} run again: a shard restarted in the middle of it",
                self.voided[0]
            ),
            n => format!(", and {n} run again: a shard restarted in the middle of them"),
        };
        let limit = match self.bracket.1 {
            Some(hi) if self.limited_by_client => format!(
                "; the client, not the store, failed at {hi:.0} ops/s: its requests left \
                 late (too few workers for the store's latency, or too little CPU), so \
                 the store may sustain more"
            ),
            _ => String::new(),
        };
        format!(
            "search {}, {place}: {found} ({bracket}, {how}; {} steps{voided}){limit}",
            self.phase, self.steps
        )
    }
}
