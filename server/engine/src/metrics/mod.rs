//! Exact latency accounting: one HdrHistogram per operation per interval, merged
//! exactly (never averaged) into phase, round and run totals.
//!
//! Workers record into their own [`Recorder`]; once a second the collector swaps every
//! recorder out and merges them into an [`IntervalStats`]. Memory is fixed by the
//! histogram bounds and the number of workers, never by the number of operations.

mod cpu;
mod memory;
mod recorder;

pub use cpu::process_cpu_time;
pub(crate) use keystorm_results::metrics::{
    IntervalStats, OpStats, OpSummary, micros, new_histogram,
};
pub use memory::{AnonPeak, peak_rss_kib};
pub use recorder::Recorder;
