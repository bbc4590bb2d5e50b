//! Result files of one run in `results/<run-id>/`, written as the run goes so that a run
//! that dies keeps every interval it finished. Formats are versioned
//! ([`FORMAT_VERSION`]) and documented in `results/README.md`.

mod checkpoint;
mod cleanup;
mod events;
mod hlog;
mod index;
mod interval_points;
mod listings;
mod manifest;
mod overrides;
mod process;
pub mod scaling;
mod store;
mod summary;

pub use checkpoint::{Checkpoint, PartStart, PhasePosition, PhaseRef};
pub use cleanup::CleanupEvent;
pub use events::{
    AsyncEventReader, EventHead, EventReader, EventWriter, Logged, MetadataScanEvent, RawEvent,
    RunEvent,
};
pub use hlog::{
    HLOG_FILE, HlogWriter, for_each_line as for_each_hlog_line, read_merged,
    start_ms_of as hlog_start_ms, tag as hlog_tag,
};
pub use index::{
    BucketIndex, EventPosition, IndexPollingEvent, ReshardEvent, StallEvent, shards_cell,
};
pub use interval_points::{IntervalQuery, for_each_interval, read_intervals};
pub use listings::{
    ListingRecord, ListingsReport, MetadataScanRecord, ScalingLine, TransferRecord, read_listings,
};
pub use manifest::{Manifest, RunStatus};
pub use overrides::{OverrideMismatch, RunOverrides};
pub use process::ProcessId;
pub use store::{ResultStore, ResultsError, find_run, list_runs, new_run_id};
pub use summary::{
    IntervalRecord, Section, Summary, SummaryRow, TotalRow, class_cell, csv_field, write_csv,
};

/// Version of every result file format; bumped on incompatible changes.
pub const FORMAT_VERSION: u32 = 1;

pub const WORKLOAD_FILE: &str = "workload.yaml";
pub const PLAN_FILE: &str = "plan.json";
pub const MANIFEST_FILE: &str = "manifest.json";
pub const INTERVALS_FILE: &str = "intervals.jsonl";
pub const SUMMARY_JSON_FILE: &str = "summary.json";
pub const SUMMARY_CSV_FILE: &str = "summary.csv";
pub const CHECKPOINT_FILE: &str = "checkpoint.json";
pub const EVENTS_FILE: &str = "events.jsonl";
/// Labels and notes edited after the run (the manifest stays as recorded).
pub const ANNOTATIONS_FILE: &str = "annotations.json";

/// Seconds since the Unix epoch as an RFC 3339 UTC timestamp.
pub fn timestamp(t: std::time::SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}
