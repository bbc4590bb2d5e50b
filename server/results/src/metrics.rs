//! Per-operation statistics and their exact merge.

use std::collections::BTreeMap;
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::tail_counts::TailCounts;
use crate::tail_marks::TailMarks;
use keystorm_types::{ErrorClass, OpKind};

#[path = "legacy_tails.rs"]
mod legacy_tails;

/// Highest latency a histogram can hold, in microseconds (one hour).
pub const MAX_LATENCY_US: u64 = 3_600_000_000;
/// Significant decimal digits kept by every histogram.
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// A histogram with the precision every keystorm histogram shares, so any two merge
/// exactly. It grows with the largest value recorded (values are clamped to one hour),
/// so an idle or fast operation costs a few kilobytes, not the full range.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new(SIGNIFICANT_DIGITS).expect("constant histogram precision is valid")
}

/// Error counts by class label (`slowdown`, `http_404`, ...).
pub type ErrorCounts = BTreeMap<String, u64>;

/// What one operation kind did during some span of time.
#[derive(Debug, Clone)]
pub struct OpStats {
    /// Latency of successful operations, microseconds.
    pub latency: Histogram<u64>,
    /// Time to first byte of successful GETs, microseconds.
    pub ttfb: Histogram<u64>,
    /// Successful operations.
    pub ops: u64,
    /// Payload bytes moved (PUT sent, GET received).
    pub bytes: u64,
    /// Keys returned by LIST pages.
    pub keys: u64,
    /// Failed operations by class (the class of their last attempt).
    pub errors: BTreeMap<ErrorClass, u64>,
    /// Failed attempts that were tried again, by class: an operation's attempts are
    /// one plus its retries, so all attempts are `ops + errors + retries()`, and the
    /// failed ones `errors + retried` class by class.
    pub retried: BTreeMap<ErrorClass, u64>,
    /// Open loop: how late each request left after its scheduled time, microseconds —
    /// the client's own delay, which open-loop latency (counted from the schedule)
    /// includes.
    pub schedule_lag: Histogram<u64>,
}

impl Default for OpStats {
    fn default() -> Self {
        OpStats {
            latency: new_histogram(),
            ttfb: new_histogram(),
            ops: 0,
            bytes: 0,
            keys: 0,
            errors: BTreeMap::new(),
            retried: BTreeMap::new(),
            schedule_lag: new_histogram(),
        }
    }
}

/// Saturating conversion to whole microseconds, at least 1 (histograms start at 1).
pub fn micros(d: Duration) -> u64 {
    (d.as_micros().min(u128::from(MAX_LATENCY_US)) as u64).max(1)
}

impl OpStats {
    pub fn record_ok(&mut self, latency: Duration, bytes: u64) {
        self.ops += 1;
        self.bytes += bytes;
        // Values are clamped into the histogram's range, so recording cannot fail.
        let _ = self.latency.record(micros(latency));
    }

    /// An open-loop request that left `lag` after its scheduled time.
    pub fn record_lag(&mut self, lag: Duration) {
        let us = (lag.as_micros().min(u128::from(MAX_LATENCY_US))) as u64;
        // Values are clamped into the histogram's range, so recording cannot fail.
        let _ = self.schedule_lag.record(us);
    }

    pub fn record_error(&mut self, class: ErrorClass) {
        *self.errors.entry(class).or_insert(0) += 1;
    }

    /// A failed attempt of class `class` that was tried again.
    pub fn record_retry(&mut self, class: ErrorClass) {
        *self.retried.entry(class).or_insert(0) += 1;
    }

    pub fn error_total(&self) -> u64 {
        self.errors.values().sum()
    }

    /// Attempts after a failed one.
    pub fn retries(&self) -> u64 {
        self.retried.values().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.ops == 0 && self.errors.is_empty() && self.retried.is_empty()
    }

    /// Adds `other` exactly: histograms merge bucket by bucket, counters add.
    pub fn merge(&mut self, other: &OpStats) {
        // Same bounds everywhere, so `add` cannot fail.
        let _ = self.latency.add(&other.latency);
        let _ = self.ttfb.add(&other.ttfb);
        let _ = self.schedule_lag.add(&other.schedule_lag);
        self.ops += other.ops;
        self.bytes += other.bytes;
        self.keys += other.keys;
        for (class, n) in &other.errors {
            *self.errors.entry(*class).or_insert(0) += n;
        }
        for (class, n) in &other.retried {
            *self.retried.entry(*class).or_insert(0) += n;
        }
    }

    /// Rates and percentiles over `elapsed`.
    pub fn summarize(&self, elapsed: Duration) -> OpSummary {
        let secs = elapsed.as_secs_f64();
        let per_sec = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
        let errors: ErrorCounts = self.errors.iter().map(|(c, n)| (c.label(), *n)).collect();
        let mut attempt_errors = errors.clone();
        for (class, n) in &self.retried {
            *attempt_errors.entry(class.label()).or_insert(0) += n;
        }
        let error_total = self.error_total();
        let attempts = self.ops + error_total;
        OpSummary {
            ops: self.ops,
            errors: error_total,
            error_rate: if attempts > 0 {
                error_total as f64 / attempts as f64
            } else {
                0.0
            },
            error_classes: errors,
            retries: self.retries(),
            attempt_error_classes: attempt_errors,
            ops_per_sec: per_sec(self.ops),
            bytes: self.bytes,
            mib_per_sec: per_sec(self.bytes) / (1024.0 * 1024.0),
            keys: self.keys,
            keys_per_sec: per_sec(self.keys),
            latency_us: Percentiles::of(&self.latency),
            ttfb_us: (!self.ttfb.is_empty()).then(|| Percentiles::of(&self.ttfb)),
            schedule_lag_us: (!self.schedule_lag.is_empty())
                .then(|| Percentiles::of(&self.schedule_lag)),
        }
    }
}

/// Latency percentiles read from a (merged) histogram, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(from = "legacy_tails::StoredPercentiles")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Percentiles {
    pub min: u64,
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    /// A phase's latency: how many operations took each of the run's tail marks or
    /// longer (1 s and 10 s unless the workload's `tail_marks` says), ascending by
    /// mark, zeros included: the tail a percentile of many operations hides (16 PUTs a
    /// reshard held are under p99.9 of 20,000). Absent where no tail is counted.
    #[serde(default, skip_serializing_if = "TailCounts::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<crate::tail_counts::TailCount>))]
    pub slower_than: TailCounts,
}

impl Percentiles {
    /// The percentiles of `h`; no tail counted (see [`Percentiles::with_tails`]).
    pub fn of(h: &Histogram<u64>) -> Percentiles {
        if h.is_empty() {
            return Percentiles::default();
        }
        Percentiles {
            min: h.min(),
            mean: (h.mean() * 10.0).round() / 10.0,
            p50: h.value_at_quantile(0.50),
            p90: h.value_at_quantile(0.90),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
            slower_than: TailCounts::default(),
        }
    }

    /// The percentiles of `h` and its tail at `marks`.
    pub fn with_tails(h: &Histogram<u64>, marks: &TailMarks) -> Percentiles {
        Percentiles {
            slower_than: crate::tail_counts::slower_than(h, marks),
            ..Percentiles::of(h)
        }
    }

    /// The percentiles of `h` with its tail counted at the marks `self`'s was (none
    /// where none was): a row's latency read again from a merge of its histograms
    /// (nothing where it has none).
    pub fn remeasured(&self, h: Option<&Histogram<u64>>) -> Percentiles {
        match (h, self.slower_than.marks()) {
            (None, _) => Percentiles::default(),
            (Some(h), Some(marks)) => Percentiles::with_tails(h, &marks),
            (Some(h), None) => Percentiles::of(h),
        }
    }
}

/// The numbers reported for one operation over a span of time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OpSummary {
    /// Successful operations.
    pub ops: u64,
    /// Failed operations: every attempt failed, or the last failure was not retriable.
    pub errors: u64,
    /// `errors / (ops + errors)`: per operation, retries aside.
    pub error_rate: f64,
    /// Failed operations by the class of their last attempt.
    pub error_classes: ErrorCounts,
    /// Attempts after a failed one; all attempts are `ops + errors + retries`.
    #[serde(default)]
    pub retries: u64,
    /// Failed attempts by class, the retried ones and each failed operation's last:
    /// they add up to `errors + retries`.
    #[serde(default)]
    pub attempt_error_classes: ErrorCounts,
    pub ops_per_sec: f64,
    pub bytes: u64,
    pub mib_per_sec: f64,
    pub keys: u64,
    pub keys_per_sec: f64,
    pub latency_us: Percentiles,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttfb_us: Option<Percentiles>,
    /// Open loop: how late requests left after their scheduled time (µs), the client's
    /// own delay inside `latency_us`; absent for a closed loop, and where intervals
    /// were merged (a chart point of many seconds, a killed part rebuilt from its log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_lag_us: Option<Percentiles>,
}

/// All operations of one span (an interval, a phase, a round, a run).
#[derive(Debug, Clone, Default)]
pub struct IntervalStats {
    pub ops: [OpStats; 5],
    /// A run that drives several endpoints: what went to each (by its place in the
    /// run's endpoint list), so that they add up to `ops` exactly. Empty for one
    /// endpoint, where `ops` is that endpoint's.
    pub endpoints: Vec<EndpointStats>,
}

/// What one endpoint took of each operation; an operation it never saw holds nothing,
/// so an endpoint costs memory for the operations sent to it only.
#[derive(Debug, Clone, Default)]
pub struct EndpointStats {
    ops: [Option<Box<OpStats>>; 5],
}

impl EndpointStats {
    pub fn op(&self, kind: OpKind) -> Option<&OpStats> {
        self.ops[kind.index()].as_deref()
    }

    pub fn op_mut(&mut self, kind: OpKind) -> &mut OpStats {
        self.ops[kind.index()].get_or_insert_with(Default::default)
    }

    pub fn merge(&mut self, other: &EndpointStats) {
        for (mine, theirs) in self.ops.iter_mut().zip(other.ops.iter()) {
            if let Some(t) = theirs {
                mine.get_or_insert_with(Default::default).merge(t);
            }
        }
    }

    /// Operations that did anything, in a fixed order.
    pub fn active(&self) -> impl Iterator<Item = (OpKind, &OpStats)> {
        OpKind::ALL.into_iter().filter_map(|k| {
            self.ops[k.index()]
                .as_deref()
                .filter(|s| !s.is_empty())
                .map(|s| (k, s))
        })
    }
}

impl IntervalStats {
    pub fn op(&self, kind: OpKind) -> &OpStats {
        &self.ops[kind.index()]
    }

    pub fn op_mut(&mut self, kind: OpKind) -> &mut OpStats {
        &mut self.ops[kind.index()]
    }

    /// What endpoint `e` took of `kind` (the list grows to hold it).
    pub fn endpoint_op_mut(&mut self, e: usize, kind: OpKind) -> &mut OpStats {
        if self.endpoints.len() <= e {
            self.endpoints.resize_with(e + 1, Default::default);
        }
        self.endpoints[e].op_mut(kind)
    }

    pub fn merge(&mut self, other: &IntervalStats) {
        for (mine, theirs) in self.ops.iter_mut().zip(other.ops.iter()) {
            mine.merge(theirs);
        }
        if self.endpoints.len() < other.endpoints.len() {
            self.endpoints
                .resize_with(other.endpoints.len(), Default::default);
        }
        for (mine, theirs) in self.endpoints.iter_mut().zip(other.endpoints.iter()) {
            mine.merge(theirs);
        }
    }

    /// Operations that did anything, in a fixed order.
    pub fn active(&self) -> impl Iterator<Item = (OpKind, &OpStats)> {
        OpKind::ALL
            .into_iter()
            .map(|k| (k, &self.ops[k.index()]))
            .filter(|(_, s)| !s.is_empty())
    }

    pub fn total_ops(&self) -> u64 {
        self.ops.iter().map(|s| s.ops).sum()
    }

    pub fn total_errors(&self) -> u64 {
        self.ops.iter().map(|s| s.error_total()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_mark_goes_as_far_as_a_histogram_holds() {
        assert_eq!(crate::tail_marks::MAX_TAIL_MARK_US, MAX_LATENCY_US);
    }

    #[test]
    fn merging_equals_recording_into_one() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut parts: Vec<OpStats> = (0..8).map(|_| OpStats::default()).collect();
        let mut single = OpStats::default();
        for n in 0..50_000u64 {
            let us = 1 + rng.u64(0..2_000_000) * rng.u64(0..3) / 2 + rng.u64(0..500);
            let d = Duration::from_micros(us);
            parts[(n % 8) as usize].record_ok(d, n % 100);
            single.record_ok(d, n % 100);
            if n % 997 == 0 {
                parts[(n % 8) as usize].record_error(ErrorClass::SlowDown);
                single.record_error(ErrorClass::SlowDown);
            }
        }
        let mut merged = OpStats::default();
        for p in &parts {
            merged.merge(p);
        }
        assert_eq!(merged.latency, single.latency);
        assert_eq!(merged.ops, single.ops);
        assert_eq!(merged.bytes, single.bytes);
        assert_eq!(merged.errors, single.errors);
        let e = Duration::from_secs(10);
        assert_eq!(merged.summarize(e), single.summarize(e));
        // And the merged percentiles are not an average of the parts' percentiles.
        let p99s: Vec<u64> = parts
            .iter()
            .map(|p| p.latency.value_at_quantile(0.99))
            .collect();
        assert!(p99s.iter().all(|&p| p > 0));
    }

    #[test]
    fn summary_rates_and_error_rate() {
        let mut s = OpStats::default();
        for _ in 0..90 {
            s.record_ok(Duration::from_millis(2), 1024 * 1024);
        }
        for _ in 0..10 {
            s.record_error(ErrorClass::Http(404));
        }
        let sum = s.summarize(Duration::from_secs(3));
        assert_eq!(sum.ops, 90);
        assert_eq!(sum.errors, 10);
        assert!((sum.error_rate - 0.1).abs() < 1e-9);
        assert!((sum.ops_per_sec - 30.0).abs() < 1e-9);
        assert!((sum.mib_per_sec - 30.0).abs() < 1e-9);
        assert_eq!(sum.error_classes.get("http_404"), Some(&10));
        assert!(sum.latency_us.p50 >= 1999 && sum.latency_us.p50 <= 2001);
    }

    #[test]
    fn retries_count_attempts_apart_from_operations() {
        let mut s = OpStats::default();
        // Two operations succeed, one after a retried 503; one fails after a retried
        // timeout with a reset.
        s.record_ok(Duration::from_millis(1), 0);
        s.record_retry(ErrorClass::SlowDown);
        s.record_ok(Duration::from_millis(1), 0);
        s.record_retry(ErrorClass::Timeout);
        s.record_error(ErrorClass::Connection);
        let mut merged = OpStats::default();
        merged.merge(&s);
        merged.merge(&s);
        let sum = merged.summarize(Duration::from_secs(1));
        assert_eq!((sum.ops, sum.errors, sum.retries), (4, 2, 4));
        assert!((sum.error_rate - 2.0 / 6.0).abs() < 1e-9, "per operation");
        assert_eq!(sum.error_classes.get("connection"), Some(&2));
        assert_eq!(sum.error_classes.len(), 1);
        let attempts: ErrorCounts = [("connection", 2), ("slowdown", 2), ("timeout", 2)]
            .into_iter()
            .map(|(c, n)| (c.to_string(), n))
            .collect();
        assert_eq!(sum.attempt_error_classes, attempts);
    }

    #[test]
    fn latency_is_clamped_into_range() {
        let mut s = OpStats::default();
        s.record_ok(Duration::from_secs(10 * 3600), 0);
        s.record_ok(Duration::ZERO, 0);
        assert_eq!(s.ops, 2);
        assert_eq!(s.latency.len(), 2);
    }
}
