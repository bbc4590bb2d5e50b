//! Result files of one run in `results/<run-id>/`, written as the run goes so that a run
//! that dies keeps every interval it finished. Formats are versioned
//! ([`FORMAT_VERSION`]) and documented in `results/README.md`.

mod checkpoint;
mod cleanup;
mod error;
mod events;
mod files;
mod hlog;
mod index;
mod interval_points;
mod listings;
mod manifest;
mod overrides;
mod phase_ref;
mod process;
pub mod scaling;
mod store;
mod summary;
mod torn_line;

pub use checkpoint::{Checkpoint, PartStart, PhasePosition};
pub use cleanup::CleanupEvent;
pub use error::ResultsError;
pub use events::{
    AsyncEventReader, EventHead, EventReader, EventWriter, Logged, MetadataScanEvent,
    PhaseProgress, RawEvent, RunEvent,
};
pub use files::{
    ANNOTATIONS_FILE, CHECKPOINT_FILE, EVENTS_FILE, FORMAT_VERSION, INTERVALS_FILE, MANIFEST_FILE,
    PLAN_FILE, SUMMARY_CSV_FILE, SUMMARY_JSON_FILE, WORKLOAD_FILE, timestamp,
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
pub use phase_ref::{PhaseRef, Section};
pub use process::ProcessId;
pub use store::{ResultStore, find_run, list_runs, new_run_id};
pub use summary::{
    IntervalRecord, Summary, SummaryRow, TotalRow, class_cell, csv_field, write_csv,
};
