//! Intervals of several shards added up per phase and second: their counters summed,
//! their latency histograms added, each part's window and measured time kept apart. The
//! offline merge feeds it the parts' files in time order; the live merge feeds it
//! intervals as agents send them. Memory holds the seconds still open.
//!
//! Each shard's intervals of a phase count from its own first one of the phase, not
//! from the clock's whole seconds: shards start a phase a fraction of a second apart, and
//! cut at the clock's seconds one shard's interval would fall in one second and
//! another's in the next, leaving seconds with part of the shards in them — a dip in
//! throughput at the start and end of every phase that did not happen. The n-th second
//! of a phase holds every shard's interval that began about n seconds into the phase
//! (a part resumed later lands as many seconds later as it began).

use std::collections::{BTreeMap, HashMap};

use hdrhistogram::Histogram;
use keystorm_types::OpKind;

use crate::EndpointOps;
use crate::index::BucketIndex;
use crate::metrics::{IntervalStats, OpSummary, Percentiles, new_histogram};
use crate::op_sums::{add_counts, finish_rates};
use crate::phase_ref::Section;
use crate::summary::IntervalRecord;
use crate::window_state::WindowState;

type PhaseKey = (Section, Option<u32>, String);

/// One interval of one part with its histograms.
pub(crate) struct Item {
    /// Its start, in milliseconds since the epoch.
    pub at_ms: u64,
    pub record: IntervalRecord,
    pub histograms: Vec<(OpKind, Histogram<u64>)>,
    /// Each endpoint's histograms (a part that drove several), by URL.
    pub endpoint_histograms: Vec<(String, OpKind, Histogram<u64>)>,
    /// The endpoint of a part that drove one, in a run whose parts drove several: the
    /// whole interval counts at it.
    pub sole_endpoint: Option<String>,
}

/// What one endpoint did of one operation in a merged second.
type EndpointSum = (OpSummary, Option<Histogram<u64>>);

/// One merged interval being added up.
struct Bucket {
    /// Its number among the phase's seconds (from the phase's first interval).
    number: u64,
    /// A clock second by which every shard's interval of it has begun (shards start a
    /// phase within a second of each other): once every shard has sent a later one, it
    /// has sent all it had of this one.
    second: u64,
    phase: PhaseKey,
    first_ms: u64,
    warmup: bool,
    /// Measured seconds per part, and each part's latest window.
    seconds: HashMap<usize, f64>,
    windows: HashMap<usize, WindowState>,
    ops: BTreeMap<OpKind, OpSummary>,
    histograms: BTreeMap<OpKind, Histogram<u64>>,
    /// Per endpoint URL and operation.
    endpoints: BTreeMap<String, BTreeMap<OpKind, EndpointSum>>,
    index: Vec<BucketIndex>,
    /// The lowest epoch any part was in (an `epochs` phase): the run is past an epoch
    /// only once every shard is.
    epoch: Option<u32>,
    /// An open-loop phase: the rate each part that ran in the second asked.
    asked: HashMap<usize, f64>,
}

impl Bucket {
    fn add(&mut self, part: usize, first_shard: bool, item: Item) {
        let r = item.record;
        self.first_ms = self.first_ms.min(item.at_ms);
        if let Some(e) = r.epoch {
            self.epoch = Some(self.epoch.map_or(e, |m| m.min(e)));
        }
        self.warmup &= r.warmup;
        if let Some(rate) = r.asked_per_sec {
            self.asked.insert(part, rate);
        }
        *self.seconds.entry(part).or_default() += r.duration_s;
        self.windows.insert(part, r.window);
        for (op, s) in &r.ops {
            add_counts(self.ops.entry(*op).or_default(), s);
        }
        for (op, h) in &item.histograms {
            // One precision everywhere, so adding cannot fail.
            let _ = self
                .histograms
                .entry(*op)
                .or_insert_with(new_histogram)
                .add(h);
        }
        let mut count =
            |url: &str, op: OpKind, s: Option<&OpSummary>, h: Option<&Histogram<u64>>| {
                let (sum, hist) = self
                    .endpoints
                    .entry(url.to_string())
                    .or_default()
                    .entry(op)
                    .or_default();
                if let Some(s) = s {
                    add_counts(sum, s);
                }
                if let Some(h) = h {
                    let _ = hist.get_or_insert_with(new_histogram).add(h);
                }
            };
        match &item.sole_endpoint {
            Some(url) if r.endpoints.is_empty() => {
                for (op, s) in &r.ops {
                    count(url, *op, Some(s), None);
                }
                for (op, h) in &item.histograms {
                    count(url, *op, None, Some(h));
                }
            }
            _ => {
                for e in &r.endpoints {
                    for (op, s) in &e.ops {
                        count(&e.endpoint, *op, Some(s), None);
                    }
                }
                for (url, op, h) in &item.endpoint_histograms {
                    count(url, *op, None, Some(h));
                }
            }
        }
        if first_shard && !r.index.is_empty() {
            self.index = r.index;
        }
    }

    /// The merged interval: its record, and its histograms (each endpoint's by its
    /// place in `urls`).
    fn finish(
        self,
        number: u64,
        start_epoch_ms: u64,
        urls: &[String],
    ) -> (IntervalRecord, IntervalStats) {
        let duration = self.seconds.values().copied().fold(0.0, f64::max);
        let window = self
            .windows
            .values()
            .fold(WindowState::default(), |w, p| WindowState {
                tail: w.tail + p.tail,
                head: w.head + p.head,
            });
        let mut stats = IntervalStats::default();
        let mut ops = self.ops;
        let mut histograms = self.histograms;
        for (op, s) in ops.iter_mut() {
            finish_rates(s, duration);
            let slot = stats.op_mut(*op);
            slot.ops = s.ops;
            if let Some(h) = histograms.remove(op) {
                s.latency_us = Percentiles::of(&h);
                slot.latency = h;
            }
        }
        let mut endpoints: Vec<(Option<usize>, EndpointOps)> = Vec::new();
        for (url, ops) in self.endpoints {
            let place = urls.iter().position(|u| *u == url);
            let mut summaries = BTreeMap::new();
            for (op, (mut s, h)) in ops {
                if s.ops + s.errors + s.retries == 0 {
                    continue;
                }
                finish_rates(&mut s, duration);
                if let Some(h) = h {
                    s.latency_us = Percentiles::of(&h);
                    if let Some(i) = place {
                        let slot = stats.endpoint_op_mut(i, op);
                        slot.ops = s.ops;
                        slot.latency = h;
                    }
                }
                summaries.insert(op, s);
            }
            if !summaries.is_empty() {
                endpoints.push((
                    place,
                    EndpointOps {
                        endpoint: url,
                        ops: summaries,
                    },
                ));
            }
        }
        // In the run's order of endpoints, any it does not list after them.
        endpoints.sort_by_key(|(place, _)| place.unwrap_or(usize::MAX));
        let (section, round, phase) = self.phase;
        let record = IntervalRecord {
            section,
            round,
            phase,
            interval: number,
            t_s: self.first_ms.saturating_sub(start_epoch_ms) as f64 / 1000.0,
            duration_s: duration,
            warmup: self.warmup,
            window,
            ops,
            index: self.index,
            merged: 1,
            epoch: self.epoch,
            endpoints: endpoints.into_iter().map(|(_, e)| e).collect(),
            asked_per_sec: (!self.asked.is_empty()).then(|| self.asked.values().sum()),
        };
        (record, stats)
    }
}

/// The seconds being added up, how many intervals each phase has had, and where each
/// part's intervals of each phase begin.
pub(crate) struct Seconds {
    start_epoch_ms: u64,
    /// The merged run's endpoints, in the order its histogram log numbers them.
    urls: Vec<String>,
    pending: Vec<Bucket>,
    numbers: HashMap<PhaseKey, u64>,
    part_starts: HashMap<(usize, PhaseKey), u64>,
}

impl Seconds {
    pub fn new(start_epoch_ms: u64) -> Seconds {
        Seconds {
            start_epoch_ms,
            urls: Vec::new(),
            pending: Vec::new(),
            numbers: HashMap::new(),
            part_starts: HashMap::new(),
        }
    }

    /// The merged run's endpoints (its manifest's list): their histograms are logged by
    /// their place in it.
    pub fn with_endpoints(mut self, urls: Vec<String>) -> Seconds {
        self.urls = urls;
        self
    }

    /// Adds `part`'s interval to the second of its phase it began in.
    pub fn add(&mut self, part: usize, first_shard: bool, item: Item) {
        let phase = (
            item.record.section,
            item.record.round,
            item.record.phase.clone(),
        );
        let start = *self
            .part_starts
            .entry((part, phase.clone()))
            .or_insert(item.at_ms);
        // Intervals are a second apart, give or take the scheduler: the nearest second.
        let number = (item.at_ms.saturating_sub(start) + 500) / 1000;
        let at = match self
            .pending
            .iter()
            .position(|b| b.number == number && b.phase == phase)
        {
            Some(at) => at,
            None => {
                self.pending.push(Bucket {
                    number,
                    second: (start + (number + 1) * 1000) / 1000,
                    phase,
                    first_ms: item.at_ms,
                    warmup: true,
                    seconds: HashMap::new(),
                    windows: HashMap::new(),
                    ops: BTreeMap::new(),
                    histograms: BTreeMap::new(),
                    endpoints: BTreeMap::new(),
                    index: Vec::new(),
                    epoch: None,
                    asked: HashMap::new(),
                });
                self.pending.len() - 1
            }
        };
        self.pending[at].add(part, first_shard, item);
    }

    /// The merged intervals of the seconds before `before` (all of them with `None`),
    /// in the order their seconds opened.
    pub fn take_before(&mut self, before: Option<u64>) -> Vec<(IntervalRecord, IntervalStats)> {
        // Most intervals fall in a second already open: nothing to give yet.
        if before.is_some_and(|s| self.pending.iter().all(|b| b.second >= s)) {
            return Vec::new();
        }
        let (done, keep): (Vec<Bucket>, Vec<Bucket>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|b| before.is_none_or(|s| b.second < s));
        self.pending = keep;
        done.into_iter()
            .map(|bucket| {
                let number = self.numbers.entry(bucket.phase.clone()).or_default();
                let merged = bucket.finish(*number, self.start_epoch_ms, &self.urls);
                *number += 1;
                merged
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EndpointOps;

    fn summary(ops: u64) -> OpSummary {
        OpSummary {
            ops,
            ..OpSummary::default()
        }
    }

    fn histogram(us: u64, n: u64) -> Histogram<u64> {
        let mut h = new_histogram();
        h.record_n(us, n).unwrap();
        h
    }

    fn record(ops: u64, endpoints: Vec<EndpointOps>) -> IntervalRecord {
        IntervalRecord {
            section: Section::Before,
            round: None,
            phase: "fill".into(),
            interval: 0,
            t_s: 0.0,
            duration_s: 1.0,
            warmup: false,
            window: WindowState::default(),
            ops: BTreeMap::from([(OpKind::Put, summary(ops))]),
            index: Vec::new(),
            merged: 1,
            epoch: None,
            endpoints,
            asked_per_sec: None,
        }
    }

    #[test]
    fn endpoints_add_up_across_parts_exactly() {
        let urls: Vec<String> = ["http://a", "http://b"].map(String::from).to_vec();
        let mut seconds = Seconds::new(0).with_endpoints(urls.clone());
        // Part 0 drove both: 60 PUTs at a (100 µs), 40 at b (5 ms).
        let both = record(
            100,
            vec![
                EndpointOps {
                    endpoint: urls[0].clone(),
                    ops: BTreeMap::from([(OpKind::Put, summary(60))]),
                },
                EndpointOps {
                    endpoint: urls[1].clone(),
                    ops: BTreeMap::from([(OpKind::Put, summary(40))]),
                },
            ],
        );
        seconds.add(
            0,
            true,
            Item {
                at_ms: 1_000,
                record: both,
                histograms: vec![(OpKind::Put, histogram(100, 100))],
                endpoint_histograms: vec![
                    (urls[0].clone(), OpKind::Put, histogram(100, 60)),
                    (urls[1].clone(), OpKind::Put, histogram(5_000, 40)),
                ],
                sole_endpoint: None,
            },
        );
        // Part 1 drove b alone: all its 30 PUTs (9 ms) count at b.
        seconds.add(
            1,
            false,
            Item {
                at_ms: 1_050,
                record: record(30, Vec::new()),
                histograms: vec![(OpKind::Put, histogram(9_000, 30))],
                endpoint_histograms: Vec::new(),
                sole_endpoint: Some(urls[1].clone()),
            },
        );
        let merged = seconds.take_before(None);
        assert_eq!(merged.len(), 1);
        let (r, stats) = &merged[0];
        assert_eq!(r.ops[&OpKind::Put].ops, 130);
        let e: Vec<(&str, u64, u64)> = r
            .endpoints
            .iter()
            .map(|e| {
                let s = &e.ops[&OpKind::Put];
                (e.endpoint.as_str(), s.ops, s.latency_us.max)
            })
            .collect();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].0, e[0].1), ("http://a", 60));
        assert_eq!((e[1].0, e[1].1), ("http://b", 70));
        assert!(e[0].2 < 200 && e[1].2 >= 9_000, "{e:?}");
        // The histograms logged for the merged run, by the endpoints' places.
        assert_eq!(stats.endpoints.len(), 2);
        assert_eq!(
            stats.endpoints[1].op(OpKind::Put).unwrap().latency.len(),
            70
        );
    }
}
