//! Write-stall detection, one detector per phase: an interval stalls when its write
//! ops/s (PUT + DELETE) fall below a fraction of the phase's median so far, or its
//! write p99 rises above a multiple of the median p99 so far. Consecutive stalled
//! intervals make one stall. The medians come from histograms of per-interval values
//! (fixed memory however long the phase); stalled intervals do not feed them, so a long
//! stall does not become the new normal. A stall is told once nothing later can be the
//! same writes still waiting ([`StallJoiner`]).

use hdrhistogram::Histogram;

use super::stall_joining::StallJoiner;
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
    /// Closed stalls waiting for a later one of the same writes.
    joiner: StallJoiner,
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, u64::MAX / 4, 2).expect("static histogram bounds are valid")
}

/// Writes of `writes` (latencies, µs) that took longer than `p99_above` times the
/// phase's `median_p99`: the ones a stall held. None before a median is known.
fn held_writes(writes: &Histogram<u64>, p99_above: f64, median_p99: u64) -> u64 {
    if median_p99 == 0 || writes.is_empty() {
        return 0;
    }
    let above = (p99_above * median_p99 as f64) as u64 + 1;
    writes.count_between(above, writes.max().max(above))
}

impl StallDetector {
    pub fn new(plan: StallPlan, phase: PhaseRef) -> StallDetector {
        StallDetector {
            plan,
            phase,
            rates: histogram(),
            p99s: histogram(),
            open: None,
            joiner: StallJoiner::default(),
        }
    }

    /// Judges one measured interval; returns a stall to tell: one that ended and that
    /// no later stall can join any more.
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
        let longest = if ops > 0 { writes.max() } else { 0 };
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
                finished_writes: 0,
                held_writes: 0,
                longest_write_us: 0,
                throughput: false,
                latency: false,
                reshard: None,
            });
            s.last_interval = interval;
            s.end_t_s = end;
            s.min_write_ops_per_sec = s.min_write_ops_per_sec.min(rate);
            s.max_write_p99_us = s.max_write_p99_us.max(p99.unwrap_or(0));
            s.finished_writes += ops;
            s.held_writes += held_writes(&writes, self.plan.p99_above, median_p99);
            s.longest_write_us = s.longest_write_us.max(longest);
            s.throughput |= slow;
            s.latency |= late;
            return None;
        }
        let _ = self.rates.record(((rate * 1000.0) as u64).max(1));
        if let Some(p) = p99 {
            let _ = self.p99s.record(p.max(1));
        }
        match self.open.take() {
            Some(ended) => self.joiner.closed(ended),
            None => self.joiner.quiet_until(t_s + duration_s),
        }
    }

    /// The stalls not told yet when the phase ends: the one held, and the one still
    /// open unless it joined it.
    pub fn finish(&mut self) -> Vec<StallEvent> {
        let mut left: Vec<StallEvent> = self
            .open
            .take()
            .and_then(|s| self.joiner.closed(s))
            .into_iter()
            .collect();
        left.extend(self.joiner.finish());
        left
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
        assert!(d.finish().is_empty());
    }

    #[test]
    fn a_p99_jump_is_a_latency_stall() {
        let mut d = StallDetector::new(StallPlan::default(), phase());
        for i in 0..6 {
            d.observe(i, i as f64, 1.0, &interval(100, 5));
        }
        assert!(d.observe(6, 6.0, 1.0, &interval(90, 80)).is_none());
        assert!(d.observe(7, 7.0, 1.0, &interval(100, 5)).is_none());
        let s = d
            .finish()
            .pop()
            .expect("the stall is told at the phase's end");
        assert!(s.latency && !s.throughput);
        assert!(s.max_write_p99_us >= 79_000, "{s:?}");
        assert_eq!((s.finished_writes, s.held_writes), (90, 90));
    }

    /// Writes blocked by a reshard: none finish for 5 s, then 14 finish after 20 s.
    fn reshard_pattern(d: &mut StallDetector, from: u64) -> Vec<StallEvent> {
        let mut told = Vec::new();
        for i in from..from + 40 {
            let s = match i - from {
                6..=10 => interval(0, 5),
                26 => {
                    let mut s = interval(100, 5);
                    for _ in 0..14 {
                        s.op_mut(OpKind::Put).record_ok(Duration::from_secs(20), 10);
                    }
                    s
                }
                _ => interval(100, 5),
            };
            told.extend(d.observe(i, i as f64, 1.0, &s));
        }
        told
    }

    #[test]
    fn a_reshard_s_blocked_writes_are_one_stall_with_the_writes_held_and_the_longest_wait() {
        let mut d = StallDetector::new(StallPlan::default(), phase());
        let mut told = reshard_pattern(&mut d, 0);
        told.extend(d.finish());
        assert_eq!(told.len(), 1, "{told:#?}");
        let s = &told[0];
        assert_eq!((s.first_interval, s.last_interval), (6, 26));
        assert!(s.throughput && s.latency, "{s:?}");
        assert_eq!(s.held_writes, 14);
        assert!(
            (19_900_000..=20_100_000).contains(&s.longest_write_us),
            "{s:?}"
        );
        assert_eq!(s.min_write_ops_per_sec, 0.0);
    }

    #[test]
    fn a_stall_nothing_joins_is_told_a_minute_after_it_ended_and_the_next_is_its_own() {
        let mut d = StallDetector::new(StallPlan::default(), phase());
        let mut told = reshard_pattern(&mut d, 0);
        assert!(told.is_empty(), "held while a later stall could join it");
        for i in 40..88 {
            told.extend(d.observe(i, i as f64, 1.0, &interval(100, 5)));
        }
        assert_eq!(told.len(), 1, "{told:#?}");
        assert!(told[0].end_t_s + 60.0 < 88.0);
        // A dip far from it is a stall of its own.
        told.extend(d.observe(88, 88.0, 1.0, &interval(0, 5)));
        told.extend(d.observe(89, 89.0, 1.0, &interval(100, 5)));
        told.extend(d.finish());
        assert_eq!(told.len(), 2, "{told:#?}");
        assert_eq!(told[1].first_interval, 88);
        assert_eq!((told[1].finished_writes, told[1].held_writes), (0, 0));
    }
}
