//! The run manifest: what ran, where, by which keystorm, and how it ended.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::run_status::RunStatus;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Manifest {
    pub format_version: u32,
    pub run_id: String,
    pub keystorm_version: String,
    pub workload: String,
    /// Path of the workload file as given, if it came from a file.
    pub workload_file: Option<String>,
    pub host: String,
    /// `embedded` or the endpoint URL (never credentials); several joined by commas.
    pub endpoint: String,
    /// A run that drives several endpoints: their URLs, in the order its results number
    /// them (`@E` in the histogram log's tags). Empty for one endpoint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub endpoints: Vec<String>,
    pub client: String,
    pub seed: u64,
    pub labels: BTreeMap<String, String>,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub status: RunStatus,
    /// Why the run failed or was aborted.
    pub error: Option<String>,
    /// Buckets this run created (the only ones cleanup may delete).
    pub created_buckets: Vec<String>,
    /// Buckets the run works on: the workload's, and those it read from a listing or a
    /// key file (the runs list filters on them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub buckets: Vec<String>,
    /// Times the run was resumed after an interruption.
    #[serde(default)]
    pub resumed_at: Vec<String>,
    /// The command line that started the run.
    pub command_line: Vec<String>,
    /// What the command line changed of the workload (endpoint, index layout, client),
    /// reused by a resume.
    #[serde(default, skip_serializing_if = "super::RunOverrides::is_empty")]
    pub overrides: super::RunOverrides,
    /// Peak resident memory of the keystorm process, in KiB (with `embedded`, the
    /// target's memory is included). It counts the pages of files the process maps,
    /// which are the page cache's: those of a key file that a phase picks keys from.
    #[serde(default)]
    pub peak_rss_kib: Option<u64>,
    /// The anonymous part of that memory (RssAnon: heap and stacks, no file pages; with
    /// `embedded`, the target's too), its highest sample (4 a second while the phases
    /// ran, and at the end), in KiB; absent where the kernel does not say, and in runs
    /// recorded before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_anon_kib: Option<u64>,
    /// The process running the run (this host's pid and start time), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<super::ProcessId>,
    /// What cleanup deleted, when the workload asked for it and the run completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleanup: Option<super::CleanupEvent>,
    /// A run merged from the runs of a workload's shards (`keystorm merge`): those
    /// runs, whose folders are kept under `shards/`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<super::merged_part::MergedPart>,
    /// What the run's verdict found when it ended (the findings of `RunVerdict`), the
    /// worst first; absent while it runs, and for a run killed before it could say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub findings: Option<Vec<super::finding::Finding>>,
    /// The thresholds the workload set (`expect:`), judged on every phase they apply to
    /// when the run ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<crate::threshold::Expectation>,
    /// The threshold a phase missed on what it measured so far that stopped the run
    /// (`expect_abort_after`), judged then; the run is `aborted`, and `keystorm run`
    /// exits 3 as for a threshold missed at a phase's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by_threshold: Option<crate::threshold::ThresholdCheck>,
    /// Where the run's latencies end (the kernel's receive time or the client's own
    /// clock); absent in runs recorded before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_clock: Option<crate::LatencyClock>,
}

impl Manifest {
    /// Whether the process that runs the run is known here: `Some(alive)` when it was
    /// started on this host and this system can tell.
    fn process_alive_here(&self) -> Option<bool> {
        let here = gethostname::gethostname().to_string_lossy() == self.host.as_str();
        self.process.filter(|_| here)?.is_alive()
    }

    /// The status as it is now: `running` on disk becomes `killed` when the run was
    /// started on this host by a process that is gone.
    pub fn observed_status(&self) -> RunStatus {
        match self.status {
            RunStatus::Running if self.process_alive_here() == Some(false) => RunStatus::Killed,
            s => s,
        }
    }

    /// What the run's command line changed of its workload; for runs recorded before
    /// these were kept apart, read back from the command line.
    pub fn run_overrides(&self) -> super::RunOverrides {
        if self.overrides.is_empty() {
            super::RunOverrides::from_command_line(&self.command_line)
        } else {
            self.overrides.clone()
        }
    }

    /// Whether a process on this host is running the run right now.
    pub fn running_here(&self) -> bool {
        self.status == RunStatus::Running && self.process_alive_here() == Some(true)
    }
}
