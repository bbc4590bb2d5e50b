//! What a run split over agents is asked to be: the workload, where it goes, how many
//! agents, and what its manifest says of it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A run to split over agents, already validated. Kept in the run's record as it was
/// started, so a controller started again picks the same run up.
#[derive(Clone, Serialize, Deserialize)]
pub struct NewFleetRun {
    pub workload: String,
    pub text: String,
    pub workload_file: Option<String>,
    pub endpoint: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub agents: u32,
    /// The whole workload's plan (JSON), for the merged run's `plan.json`.
    pub plan: serde_json::Value,
    pub command_line: Vec<String>,
    /// The endpoint every agent sends to (never credentials).
    pub target: String,
    /// The S3 client the agents use and the keyspace seed, for the run's manifest.
    pub client: String,
    pub seed: u64,
    /// How many phases the run has (before + rounds × round phases + after).
    pub phases: usize,
    /// The workload's `agents.on_loss: abort`: a lost agent stops the run.
    pub abort_on_loss: bool,
    /// The buckets the run works on (for the manifest).
    pub buckets: Vec<String>,
    /// Its searches for the sustainable rate, whose steps the controller chooses.
    #[serde(default)]
    pub searches: Vec<super::search_record::SearchSpec>,
}
