//! What the controller keeps of a search run over agents (see [`super::search`]): each
//! search phase as it needs it to choose steps, the steps it chose and how each was
//! judged. Plain records, kept in the run's record on disk.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use keystorm_results::merge::StepPart;
use keystorm_results::{PhaseEnd, PhaseRef, SearchResult};
use keystorm_workload::plan::SearchPlan;
use serde::{Deserialize, Serialize};

/// A search phase of a run over agents, as the controller needs it to choose steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchSpec {
    /// The phase's number in the run's schedule.
    pub index: u32,
    pub phase: PhaseRef,
    pub slo: Vec<String>,
    pub from: f64,
    pub to: f64,
    pub resolution: f64,
    pub budget_ms: Option<u64>,
    /// A step's warm-up (ms): counted against the budget with its measured time.
    pub warmup_ms: u64,
    /// A step's warm-up and, for a `duration` phase, its duration (ms).
    pub step_ms: u64,
    /// A `duration` phase: a step's requests due are counted to its end.
    pub timed: bool,
    /// The phase's workers in each shard's process (0 in a record from before they
    /// were kept: a failed step is then put down to the store).
    #[serde(default)]
    pub workers: u32,
}

impl SearchSpec {
    /// The search phases of a schedule.
    pub fn of_schedule(phases: &[keystorm_engine::executor::ScheduledPhase]) -> Vec<SearchSpec> {
        phases
            .iter()
            .enumerate()
            .filter_map(|(index, s)| {
                let search = s.plan.search.as_ref()?;
                Some(SearchSpec {
                    index: index as u32,
                    phase: s.phase_ref.clone(),
                    slo: search.slo.clone(),
                    from: search.from,
                    to: search.to,
                    resolution: search.resolution,
                    budget_ms: search.budget.map(|b| b.as_millis() as u64),
                    warmup_ms: s.plan.warmup.as_millis() as u64,
                    step_ms: keystorm_engine::executor::search::step_length(&s.plan).as_millis()
                        as u64,
                    timed: matches!(s.plan.end, PhaseEnd::Duration(_)),
                    workers: s.plan.tasks(),
                })
            })
            .collect()
    }

    pub fn plan(&self) -> SearchPlan {
        SearchPlan {
            slo: self.slo.clone(),
            from: self.from,
            to: self.to,
            resolution: self.resolution,
            budget: self.budget_ms.map(Duration::from_millis),
        }
    }
}

/// A search as the controller keeps it: the steps it chose, each judged once every
/// shard reported it, and its result once it ended.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FleetSearch {
    pub steps: Vec<ChosenStep>,
    pub result: Option<SearchResult>,
    /// The reports of the step being judged, by shard (not kept in the record: their
    /// shards send them again).
    #[serde(skip)]
    pub reports: BTreeMap<usize, StepPart>,
}

/// One step the controller chose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChosenStep {
    /// `put@1000`, a repeat `put@1000#2`.
    pub name: String,
    pub rate: f64,
    pub repeat: u32,
    /// How the merged step was judged; none until every shard reported it.
    pub passed: Option<bool>,
    /// A failed step: whose side it failed on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_by: Option<keystorm_results::FailedBy>,
    /// Its merged measured time (s).
    pub seconds: f64,
    /// The shards it was given.
    #[serde(default)]
    pub given: BTreeSet<usize>,
    /// The shards that asked for it again without reporting it: it is not judged.
    #[serde(default)]
    pub restarted: BTreeSet<usize>,
    /// Not judged, and run again (see `restarted`).
    #[serde(default)]
    pub void: bool,
}

impl ChosenStep {
    /// Judged, or voided: done with.
    pub fn settled(&self) -> bool {
        self.passed.is_some() || self.void
    }
}
