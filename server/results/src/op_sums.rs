//! Adding up the counters of an operation's statistics over several spans (intervals
//! merged into a chart point, the shards of one workload) and working out its rates
//! again; latency is never added here, it comes from merged histograms.

use crate::metrics::{OpSummary, Percentiles};

/// Adds the counters of `s` to `mine` (operations, errors by class, bytes, keys,
/// retries).
pub(crate) fn add_counts(mine: &mut OpSummary, s: &OpSummary) {
    mine.ops += s.ops;
    mine.errors += s.errors;
    mine.bytes += s.bytes;
    mine.keys += s.keys;
    mine.retries += s.retries;
    for (class, n) in &s.error_classes {
        *mine.error_classes.entry(class.clone()).or_default() += n;
    }
    for (class, n) in &s.attempt_error_classes {
        *mine.attempt_error_classes.entry(class.clone()).or_default() += n;
    }
}

/// Rates over `duration_s`; latency is cleared for the caller to fill from a merged
/// histogram, and time to first byte (not in the histogram log) is left out.
pub(crate) fn finish_rates(s: &mut OpSummary, duration_s: f64) {
    let per_sec = |n: u64| {
        if duration_s > 0.0 {
            n as f64 / duration_s
        } else {
            0.0
        }
    };
    let attempts = s.ops + s.errors;
    s.error_rate = if attempts > 0 {
        s.errors as f64 / attempts as f64
    } else {
        0.0
    };
    s.ops_per_sec = per_sec(s.ops);
    s.mib_per_sec = per_sec(s.bytes) / (1024.0 * 1024.0);
    s.keys_per_sec = per_sec(s.keys);
    s.latency_us = Percentiles::default();
    s.ttfb_us = None;
    s.schedule_lag_us = None;
}
