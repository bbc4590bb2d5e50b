//! keystorm's results model: what a run leaves in `results/<run-id>/` and everything
//! that reads it back. Files are written as the run goes, so that a run that dies keeps
//! every interval it finished; formats are versioned ([`FORMAT_VERSION`]) and
//! documented in `results/README.md`.
//!
//! It holds the records (the event log's types, interval statistics with their exact
//! HdrHistograms, the outcomes of listings, scans and transfers, checkpoints), their
//! writers and their typed streaming readers, and no part of the engine that produces
//! them: the server, the report and a controller adding up many agents' runs read a
//! run with this crate alone.

mod audit;
mod checkpoint;
mod cleanup;
pub mod comparison;
mod endpoint_events;
mod endpoints;
mod error;
mod events;
pub mod extrapolation;
mod files;
mod finding;
mod fleet_event;
mod heatmap;
mod histogram_text;
mod hlog;
pub mod humantime_serde_dur;
mod index;
mod index_layout;
mod integrity;
mod interval_points;
mod key_source;
mod latency_clock;
mod list_outcome;
mod listings;
mod manifest;
pub mod merge;
mod merged_part;
mod metadata;
pub mod metrics;
mod op_sums;
mod overrides;
mod pause;
mod phase_end;
mod phase_ref;
mod process;
mod renamed;
mod resume_pause;
mod run_status;
pub mod scaling;
mod schedule_note;
mod search_judge;
mod search_result;
pub mod secrets;
mod shard;
pub mod space_report;
mod stall_text;
mod step;
mod store;
mod student_t;
mod summary;
mod sweep;
pub mod tail_counts;
mod tail_csv;
pub mod tail_marks;
mod tail_recount;
pub mod threshold;
pub mod threshold_integrity;
pub mod threshold_judge;
pub mod threshold_live;
mod timeline;
mod torn_line;
mod transfer_outcome;
pub mod uncertainty;
mod verdict;
mod whole_phases;
mod window_state;

pub use audit::{AuditCounts, AuditEvent, AuditExample, AuditFinding};
pub use checkpoint::{Checkpoint, LogMarks, PartStart, PhasePosition, Redone};
pub use cleanup::CleanupEvent;
pub use endpoint_events::{EndpointsReport, MAX_ENDPOINT_EVENTS, read_endpoint_events};
pub use endpoints::{
    EndpointEvent, EndpointOps, EndpointRow, EndpointState, endpoint_ops, endpoint_rows,
    endpoint_tag,
};
pub use error::ResultsError;
pub use events::{
    AsyncEventReader, AtOnce, EventHead, EventReader, EventWriter, IntegrityEvent, Logged,
    MetadataScanEvent, PhaseProgress, RawEvent, RunEvent,
};
pub use files::{
    ANNOTATIONS_FILE, CHECKPOINT_FILE, EVENTS_FILE, FORMAT_VERSION, INTERVALS_FILE, MANIFEST_FILE,
    PLAN_FILE, SUMMARY_CSV_FILE, SUMMARY_JSON_FILE, WORKLOAD_FILE, timestamp,
};
pub use finding::{Finding, FindingKind};
pub use fleet_event::{FleetEvent, FleetEventKind, FleetLog, MAX_FLEET_EVENTS};
pub use heatmap::{
    HeatmapBuilder, HeatmapGrid, HeatmapLines, ROWS_PER_DECADE, heatmap, row_bounds_us,
};
pub use histogram_text::{decode_histogram, encode_histogram};
pub use hlog::{
    HLOG_FILE, HlogWriter, for_each_line as for_each_hlog_line, read_merged, read_merged_tags,
    start_ms_of as hlog_start_ms, tag as hlog_tag,
};
pub use index::{
    BucketIndex, EventPosition, IndexPollingEvent, ReshardEvent, StallEvent, shards_cell,
};
pub use index_layout::IndexLayout;
pub use integrity::{IntegrityReport, read_integrity};
pub use interval_points::{
    IntervalQuery, SHORT_INTERVAL_S, for_each_folded_interval, for_each_interval, read_intervals,
};
pub use key_source::{KeySourceKind, KeysEvent};
pub use latency_clock::{ClockSource, LatencyClock};
pub use list_outcome::{BASE62_ALPHABET, ListMode, ListOutcome};
pub use listings::{
    ListingRecord, ListingsReport, MetadataScanRecord, ScalingLine, TransferRecord, read_listings,
};
pub use manifest::Manifest;
pub use metadata::{MAX_VALUES, MetadataName, MetadataSummary};
pub use overrides::{OverrideMismatch, RunOverrides};
pub use pause::{PauseEvent, PauseReason};
pub use phase_end::PhaseEnd;
pub use phase_ref::{PhaseRef, Section, place_words};
pub use process::ProcessId;
#[cfg(feature = "openapi")]
pub use renamed::{HeadWorkersCount, ListersCount};
pub use resume_pause::pause_before_resume;
pub use run_status::RunStatus;
pub use schedule_note::{LagAtMedian, duration_us, schedule_note};
pub use search_judge::{StepOutcome, judge_step};
pub use search_result::{FailedBy, JudgedStep, SearchResult};
pub use shard::{Shard, ShardError};
pub use space_report::{ReportBuilder, SpaceReport};
pub use stall_text::latency_text;
pub use step::{StepEvent, StepKind};
pub use store::{ResultStore, cut_logs_to, find_run, list_runs, new_run_id, write_atomic};
pub use summary::{
    IntervalRecord, OpenLoop, Summary, SummaryRow, TotalRow, class_cell, csv_field, write_csv,
};
pub use sweep::{SweepCurve, SweepStep, sweep_curves};
pub use tail_recount::recount_tails;
pub use timeline::{
    MAX_TIMELINE_ENTRIES, Timeline, TimelineEntry, TimelineKind, read_timeline, timeline_text,
};
pub use transfer_outcome::{StreamRates, TransferOutcome};
pub use verdict::{Overall, RunVerdict, place as verdict_place, threshold_checks, worst_lag};
pub use whole_phases::whole_phase_rows;
pub use window_state::WindowState;
