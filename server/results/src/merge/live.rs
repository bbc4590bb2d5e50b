//! A run's shards merged while it goes: agents send each interval with its latency
//! histograms as it ends, and the controller adds them per phase and second of it
//! exactly as the merge afterwards does. A second is given out once every shard still
//! sending has sent a later one, or once it is older than a grace period (a slow or lost
//! shard does not hold the live view back; an interval that comes later than that
//! becomes a point of its own). Memory holds the seconds still open.

use hdrhistogram::Histogram;
use keystorm_types::OpKind;

use super::seconds::{Item, Seconds};
use crate::metrics::IntervalStats;
use crate::summary::IntervalRecord;

/// One interval of one shard, as it arrives.
pub struct LiveInterval {
    /// Its start, in milliseconds since the epoch on the controller's clock.
    pub at_ms: u64,
    pub record: IntervalRecord,
    pub histograms: Vec<(OpKind, Histogram<u64>)>,
    /// Each endpoint's histograms (a shard that drives several), by URL.
    pub endpoint_histograms: Vec<(String, OpKind, Histogram<u64>)>,
}

/// The shards' intervals being merged.
pub struct LiveMerge {
    seconds: Seconds,
    /// The latest second each shard sent an interval of.
    latest: Vec<Option<u64>>,
}

impl LiveMerge {
    /// A merge of `shards` shards of a run that started at `start_epoch_ms`.
    pub fn new(start_epoch_ms: u64, shards: usize) -> LiveMerge {
        LiveMerge {
            seconds: Seconds::new(start_epoch_ms),
            latest: vec![None; shards],
        }
    }

    /// Adds an interval of shard `shard`.
    pub fn add(&mut self, shard: usize, interval: LiveInterval) {
        let second = interval.at_ms / 1000;
        if let Some(latest) = self.latest.get_mut(shard) {
            *latest = Some(latest.map_or(second, |l| l.max(second)));
        }
        self.seconds.add(
            shard,
            shard == 0,
            Item {
                at_ms: interval.at_ms,
                record: interval.record,
                histograms: interval.histograms,
                endpoint_histograms: interval.endpoint_histograms,
                sole_endpoint: None,
            },
        );
    }

    /// The merged intervals ready to show, oldest first: of the seconds that every shard
    /// of `waiting_for` has sent a later second than, and of the seconds before
    /// `now_s - grace_s` whatever was sent.
    pub fn ready(
        &mut self,
        waiting_for: &[usize],
        now_s: u64,
        grace_s: u64,
    ) -> Vec<(IntervalRecord, IntervalStats)> {
        let passed = waiting_for
            .iter()
            .map(|&s| self.latest.get(s).copied().flatten().unwrap_or(0))
            .min()
            .unwrap_or(u64::MAX);
        let before = passed.max(now_s.saturating_sub(grace_s));
        self.seconds.take_before(Some(before))
    }

    /// Every second still open (the run ended).
    pub fn finish(&mut self) -> Vec<(IntervalRecord, IntervalStats)> {
        self.seconds.take_before(None)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::metrics::{OpSummary, new_histogram};
    use crate::phase_ref::Section;
    use crate::window_state::WindowState;

    /// A shard's interval of second `second` of a phase the shard began `offset_ms`
    /// into the clock's second: `n` PUTs with latencies from `rng`, starting a second
    /// after the one before give or take the scheduler.
    fn interval(rng: &mut fastrand::Rng, offset_ms: u64, second: u64, n: u64) -> LiveInterval {
        let mut h = new_histogram();
        for _ in 0..n {
            h.record(10u64.pow(rng.u32(2..6)) + rng.u64(0..999))
                .unwrap();
        }
        let ops = BTreeMap::from([(
            OpKind::Put,
            OpSummary {
                ops: n,
                ..OpSummary::default()
            },
        )]);
        LiveInterval {
            at_ms: 1_000_000 + offset_ms + second * 1000 + rng.u64(0..20),
            record: IntervalRecord {
                section: Section::Before,
                round: None,
                phase: "fill".to_string(),
                interval: second,
                t_s: second as f64,
                duration_s: 1.0,
                warmup: false,
                window: WindowState::default(),
                ops,
                index: Vec::new(),
                merged: 1,
                asked_per_sec: None,
                epoch: None,
                endpoints: Vec::new(),
            },
            histograms: vec![(OpKind::Put, h)],
            endpoint_histograms: Vec::new(),
        }
    }

    /// (second, ops, histogram count) of each merged interval.
    fn shape(merged: &[(IntervalRecord, IntervalStats)]) -> Vec<(u64, u64, u64)> {
        merged
            .iter()
            .map(|(r, s)| {
                (
                    r.interval,
                    r.ops[&OpKind::Put].ops,
                    s.op(OpKind::Put).latency.len(),
                )
            })
            .collect()
    }

    #[test]
    fn intervals_arriving_interleaved_merge_as_the_merge_afterwards_does() {
        let mut rng = fastrand::Rng::with_seed(5);
        const SHARDS: usize = 3;
        const SECONDS: u64 = 20;
        // The shards begin the phase at different points of a second.
        let mut late = false;
        let mut shard_offsets_late = |_: &mut fastrand::Rng| !std::mem::replace(&mut late, true);
        let mut per_shard: Vec<Vec<LiveInterval>> = (0..SHARDS)
            .map(|_| {
                // One begins late in its second: scheduler jitter moves some of its
                // intervals into the next second of the clock.
                let offset = if shard_offsets_late(&mut rng) {
                    990
                } else {
                    rng.u64(0..900)
                };
                (0..SECONDS)
                    .map(|s| {
                        let n = rng.u64(1..200);
                        interval(&mut rng, offset, s, n)
                    })
                    .collect()
            })
            .collect();
        let per_second: Vec<u64> = (0..SECONDS as usize)
            .map(|n| {
                per_shard
                    .iter()
                    .map(|l| l[n].record.ops[&OpKind::Put].ops)
                    .sum()
            })
            .collect();
        // Afterwards: every interval, in time order.
        let mut afterwards = Seconds::new(1_000_000);
        let mut all: Vec<(usize, u64, u64)> = Vec::new();
        for (shard, list) in per_shard.iter().enumerate() {
            for (i, it) in list.iter().enumerate() {
                all.push((shard, it.at_ms, i as u64));
            }
        }
        all.sort_by_key(|&(shard, at, _)| (at, shard));
        let mut expected = Vec::new();
        for &(shard, at, i) in &all {
            expected.extend(afterwards.take_before(Some(at / 1000)));
            let it = &per_shard[shard][i as usize];
            afterwards.add(
                shard,
                shard == 0,
                Item {
                    at_ms: it.at_ms,
                    record: it.record.clone(),
                    histograms: it.histograms.clone(),
                    endpoint_histograms: Vec::new(),
                    sole_endpoint: None,
                },
            );
        }
        expected.extend(afterwards.take_before(None));

        // Live: each shard in its own order, the shards interleaved at random.
        let mut live = LiveMerge::new(1_000_000, SHARDS);
        let mut got = Vec::new();
        for list in &mut per_shard {
            list.reverse();
        }
        while per_shard.iter().any(|l| !l.is_empty()) {
            let shard = rng.usize(0..SHARDS);
            if let Some(it) = per_shard[shard].pop() {
                live.add(shard, it);
                got.extend(live.ready(&[0, 1, 2], 0, 60));
            }
        }
        got.extend(live.finish());
        assert_eq!(shape(&got), shape(&expected));
        // Each merged second holds one interval of every shard: no second with part of
        // the shards in it (a dip that did not happen), however their starts fall.
        assert_eq!(got.len() as u64, SECONDS);
        for (n, (record, _)) in got.iter().enumerate() {
            assert_eq!(record.ops[&OpKind::Put].ops, per_second[n], "second {n}");
        }
        let total: u64 = shape(&got).iter().map(|s| s.2).sum();
        let sent: u64 = all.len() as u64;
        assert!(
            total > sent,
            "every request of every interval is in the merge"
        );
    }

    #[test]
    fn a_second_waits_for_every_shard_unless_it_is_older_than_the_grace() {
        let mut rng = fastrand::Rng::with_seed(6);
        let mut live = LiveMerge::new(1_000_000, 2);
        live.add(0, interval(&mut rng, 0, 0, 10));
        live.add(0, interval(&mut rng, 0, 1, 10));
        assert!(
            live.ready(&[0, 1], 1_001, 5).is_empty(),
            "shard 1 has sent nothing"
        );
        live.add(1, interval(&mut rng, 300, 0, 7));
        live.add(1, interval(&mut rng, 300, 1, 7));
        assert!(
            live.ready(&[0, 1], 1_001, 5).is_empty(),
            "a shard that began later may still send second 0's interval in clock second 1"
        );
        live.add(0, interval(&mut rng, 0, 2, 10));
        live.add(1, interval(&mut rng, 300, 2, 7));
        assert_eq!(shape(&live.ready(&[0, 1], 1_002, 5)), vec![(0, 17, 17)]);
        // Shard 1 goes quiet: its second 3 is not waited for past the grace.
        live.add(0, interval(&mut rng, 0, 3, 10));
        live.add(0, interval(&mut rng, 0, 4, 10));
        assert!(live.ready(&[0, 1], 1_004, 5).is_empty());
        assert_eq!(
            shape(&live.ready(&[0, 1], 1_010, 5)),
            vec![(1, 17, 17), (2, 17, 17), (3, 10, 10)]
        );
        // A lost shard is not waited for at all.
        assert_eq!(shape(&live.ready(&[0], 1_010, 5)), vec![]);
        assert_eq!(shape(&live.finish()), vec![(4, 10, 10)]);
    }
}
