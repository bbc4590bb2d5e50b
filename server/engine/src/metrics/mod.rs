//! Exact latency accounting: one HdrHistogram per operation per interval, merged
//! exactly (never averaged) into phase, round and run totals.
//!
//! Workers record into their own [`Recorder`]; once a second the collector swaps every
//! recorder out and merges them into an [`IntervalStats`]. Memory is fixed by the
//! histogram bounds and the number of workers, never by the number of operations.

mod cpu;
mod recorder;
mod stats;

pub use cpu::{peak_rss_kib, process_cpu_time};
pub use recorder::Recorder;
pub use stats::{
    ErrorCounts, IntervalStats, OpStats, OpSummary, Percentiles, micros, new_histogram,
};

/// Highest latency a histogram can hold, in microseconds (one hour).
pub const MAX_LATENCY_US: u64 = 3_600_000_000;
/// Significant decimal digits kept by every histogram.
pub const SIGNIFICANT_DIGITS: u8 = 3;
