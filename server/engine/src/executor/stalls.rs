//! Write-stall detection, one detector per phase: an interval stalls when its write
//! ops/s (PUT + DELETE) fall below a fraction of the phase's median so far, or its
//! write p99 rises above a multiple of the median p99 so far. Consecutive stalled
//! intervals make one stall. The medians come from histograms of per-interval values
//! (fixed memory however long the phase); stalled intervals do not feed them, so a long
//! stall does not become the new normal.

use hdrhistogram::Histogram;

use crate::metrics::IntervalStats;
use crate::plan::StallPlan;
use keystorm_results::{PhaseRef, StallEvent};
use keystorm_types::OpKind;

/// Intervals shorter than this (the last, partial one) are not judged.
const MIN_INTERVAL_S: f64 = keystorm_results::SHORT_INTERVAL_S;

pub(crate) struct StallDetector {
    plan: StallPlan,
    phase: PhaseRef,
    /// Write ops/s × 1000 of normal intervals.
    rates: Histogram<u64>,
    /// Write p99 (µs) of normal intervals.
    p99s: Histogram<u64>,
    open: Option<StallEvent>,
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, u64::MAX / 4, 2).expect("static histogram bounds are valid")
}

impl StallDetector {
    pub fn new(plan: StallPlan, phase: PhaseRef) -> StallDetector {
        StallDetector {
            plan,
            phase,
            rates: histogram(),
            p99s: histogram(),
            open: None,
        }
    }

    /// Judges one measured interval; returns a stall that just ended.
    pub fn observe(
        &mut self,
        interval: u64,
        t_s: f64,
        duration_s: f64,
        stats: &IntervalStats,
    ) -> Option<StallEvent> {
        if duration_s < MIN_INTERVAL_S {
            return None;
        }
        let mut writes = crate::metrics::new_histogram();
        let mut ops = 0;
        for op in [OpKind::Put, OpKind::Delete] {
            let s = stats.op(op);
            ops += s.ops;
            let _ = writes.add(&s.latency);
        }
        let rate = ops as f64 / duration_s;
        let p99 = (ops > 0).then(|| writes.value_at_quantile(0.99));
        let judged = self.rates.len() >= u64::from(self.plan.min_intervals);
        let median_rate = self.rates.value_at_quantile(0.5) as f64 / 1000.0;
        let median_p99 = self.p99s.value_at_quantile(0.5);
        let slow = judged && rate < self.plan.throughput_below * median_rate;
        let late = judged
            && median_p99 > 0
            && p99.is_some_and(|p| p as f64 > self.plan.p99_above * median_p99 as f64);
        if slow || late {
            let end = t_s + duration_s;
            let s = self.open.get_or_insert(StallEvent {
                phase: self.phase.clone(),
                first_interval: interval,
                last_interval: interval,
                start_t_s: t_s,
                end_t_s: end,
                min_write_ops_per_sec: rate,
                median_write_ops_per_sec: median_rate,
                max_write_p99_us: 0,
                median_write_p99_us: median_p99,
                throughput: false,
                latency: false,
                reshard: None,
            });
            s.last_interval = interval;
            s.end_t_s = end;
            s.min_write_ops_per_sec = s.min_write_ops_per_sec.min(rate);
            s.max_write_p99_us = s.max_write_p99_us.max(p99.unwrap_or(0));
            s.throughput |= slow;
            s.latency |= late;
            return None;
        }
        let _ = self.rates.record(((rate * 1000.0) as u64).max(1));
        if let Some(p) = p99 {
            let _ = self.p99s.record(p.max(1));
        }
        self.open.take()
    }

    /// The stall still open when the phase ends.
    pub fn finish(&mut self) -> Option<StallEvent> {
        self.open.take()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn phase() -> PhaseRef {
        PhaseRef {
            section: keystorm_results::Section::Before,
            round: None,
            index: 0,
            name: "fill".into(),
        }
    }

    fn interval(puts: u64, latency_ms: u64) -> IntervalStats {
        let mut s = IntervalStats::default();
        for _ in 0..puts {
            s.op_mut(OpKind::Put)
                .record_ok(Duration::from_millis(latency_ms), 10);
        }
        s
    }

    #[test]
    fn a_throughput_dip_after_the_warm_intervals_is_one_stall() {
        let mut d = StallDetector::new(StallPlan::default(), phase());
        let mut t = 0.0;
        let mut found = Vec::new();
        let pattern = [100, 100, 100, 100, 100, 100, 10, 0, 5, 100, 100, 20, 100];
        for (i, n) in pattern.iter().enumerate() {
            if let Some(s) = d.observe(i as u64, t, 1.0, &interval(*n, 5)) {
                found.push(s);
            }
            t += 1.0;
        }
        found.extend(d.finish());
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].first_interval, found[0].last_interval), (6, 8));
        assert_eq!(found[0].min_write_ops_per_sec, 0.0);
        assert!(found[0].throughput && !found[0].latency);
        assert_eq!((found[1].first_interval, found[1].last_interval), (11, 11));
    }

    #[test]
    fn nothing_is_judged_before_min_intervals() {
        let mut d = StallDetector::new(StallPlan::default(), phase());
        for i in 0..4 {
            assert!(d.observe(i, i as f64, 1.0, &interval(100, 5)).is_none());
        }
        assert!(d.observe(4, 4.0, 1.0, &interval(0, 5)).is_none());
        assert!(d.finish().is_none());
    }

    #[test]
    fn a_p99_jump_is_a_latency_stall() {
        let mut d = StallDetector::new(StallPlan::default(), phase());
        for i in 0..6 {
            d.observe(i, i as f64, 1.0, &interval(100, 5));
        }
        assert!(d.observe(6, 6.0, 1.0, &interval(90, 80)).is_none());
        let s = d
            .observe(7, 7.0, 1.0, &interval(100, 5))
            .expect("stall ends");
        assert!(s.latency && !s.throughput);
        assert!(s.max_write_p99_us >= 79_000, "{s:?}");
    }
}
