//! A running phase's thresholds judged on what it measured so far, once an interval:
//! from the phase's cumulative counters and merged histograms (no request is kept),
//! rates over the time it measured so far, so the live view says which threshold is
//! met or missed so far, with the figure, and `expect_abort_after` can stop a run that
//! missed one. Read as the thresholds are at the phase's end, by the same judge.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::PhaseRef;
use crate::metrics::{IntervalStats, OpSummary};
use crate::summary::OpenLoop;
use crate::threshold::{PhaseFigures, Threshold, ThresholdCheck};

/// The running phase's thresholds on its figures so far (the `thresholds_so_far`
/// event, once an interval while the phase has any to judge).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ThresholdsSoFar {
    pub phase: PhaseRef,
    /// The time the figures are of: what the phase (this part of it, for a resumed
    /// phase) measured so far, warm-up left out, in seconds.
    pub measured_s: f64,
    /// Each threshold of the phase (the workload's and its own) that applies to what
    /// it ran so far, judged on it.
    pub checks: Vec<ThresholdCheck>,
    /// The phase's `expect_abort_after` in seconds: once it measured this long, a
    /// threshold missed so far stops the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_after_s: Option<f64>,
    /// The threshold (as written) whose miss stops the run here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stops_run: Option<String>,
}

impl ThresholdsSoFar {
    /// The first check missed, if any.
    pub fn first_missed(&self) -> Option<&ThresholdCheck> {
        self.checks.iter().find(|c| !c.passed)
    }
}

/// `thresholds` judged on `totals` (the phase's measurements so far, warm-up left
/// out) over `measured`, an open loop asking `rate` a second judged on what it sent
/// in that time; none before the phase measured anything.
pub fn judge_so_far(
    thresholds: &[Threshold],
    place: &str,
    totals: &IntervalStats,
    measured: Duration,
    rate: Option<f64>,
) -> Vec<ThresholdCheck> {
    let measured_s = measured.as_secs_f64();
    if measured_s <= 0.0 {
        return Vec::new();
    }
    let summaries: Vec<(keystorm_types::OpKind, OpSummary)> = totals
        .active()
        .map(|(op, s)| (op, s.summarize(measured)))
        .collect();
    if summaries.is_empty() {
        return Vec::new();
    }
    let sent = totals.total_ops() + totals.total_errors();
    let figures = PhaseFigures {
        ops: summaries.iter().map(|(op, s)| (*op, s)).collect(),
        open_loop: rate.map(|asked| OpenLoop {
            asked_per_sec: asked,
            sent_per_sec: sent as f64 / measured_s,
            backlog: 0,
        }),
    };
    thresholds
        .iter()
        .filter_map(|t| t.check_figures(place, &figures))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use keystorm_types::OpKind;

    fn gets(latency_ms: u64, n: u64) -> IntervalStats {
        let mut totals = IntervalStats::default();
        for _ in 0..n {
            totals
                .op_mut(OpKind::Get)
                .record_ok(Duration::from_millis(latency_ms), 1024);
        }
        totals
    }

    fn parsed(list: &[&str]) -> Vec<Threshold> {
        list.iter().map(|t| t.parse().unwrap()).collect()
    }

    #[test]
    fn latency_so_far_is_read_from_the_merged_histogram() {
        let checks = judge_so_far(
            &parsed(&["get.p99 < 1ms", "get.p50 < 10ms"]),
            "before read",
            &gets(3, 100),
            Duration::from_secs(2),
            None,
        );
        assert_eq!(checks.len(), 2);
        assert!(!checks[0].passed, "{checks:?}");
        assert!(checks[0].actual >= 3_000.0, "{checks:?}");
        assert!(checks[1].passed, "{checks:?}");
        assert_eq!(checks[0].phase, "before read");
    }

    #[test]
    fn a_rate_so_far_is_over_the_time_measured_so_far() {
        // 100 GETs in 2 s measured: 50 a second, whatever the phase's duration.
        let checks = judge_so_far(
            &parsed(&["get.ops_per_sec >= 50", "open_loop.sent >= 99%"]),
            "before read",
            &gets(1, 100),
            Duration::from_secs(2),
            Some(100.0),
        );
        assert_eq!(checks[0].actual, 50.0);
        assert!(checks[0].passed);
        assert_eq!(checks[1].actual, 0.5, "sent 50 a second of 100 asked");
        assert!(!checks[1].passed);
    }

    #[test]
    fn nothing_is_judged_before_the_phase_measured_anything() {
        let thresholds = parsed(&["get.p99 < 1ms"]);
        let none = |totals: &IntervalStats, measured| {
            judge_so_far(&thresholds, "p", totals, measured, None).is_empty()
        };
        assert!(none(&gets(3, 10), Duration::ZERO), "warm-up only");
        assert!(none(&IntervalStats::default(), Duration::from_secs(1)));
        // An operation the phase did not run is not judged.
        assert!(
            judge_so_far(
                &parsed(&["put.p99 < 1ms"]),
                "p",
                &gets(3, 10),
                Duration::from_secs(1),
                None
            )
            .is_empty()
        );
    }
}
