//! The names of a run folder's files, the version of their formats, and how times are
//! written in them.

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
