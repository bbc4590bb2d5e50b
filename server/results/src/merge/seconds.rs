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
use keystorm_s3::ops::OpKind;

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
}

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
    index: Vec<BucketIndex>,
    /// The lowest epoch any part was in (an `epochs` phase): the run is past an epoch
    /// only once every shard is.
    epoch: Option<u32>,
}

impl Bucket {
    fn add(&mut self, part: usize, first_shard: bool, item: Item) {
        let r = item.record;
        self.first_ms = self.first_ms.min(item.at_ms);
        if let Some(e) = r.epoch {
            self.epoch = Some(self.epoch.map_or(e, |m| m.min(e)));
        }
        self.warmup &= r.warmup;
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
        if first_shard && !r.index.is_empty() {
            self.index = r.index;
        }
    }

    fn finish(self, number: u64, start_epoch_ms: u64) -> (IntervalRecord, IntervalStats) {
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
            endpoints: Vec::new(),
        };
        (record, stats)
    }
}

/// The seconds being added up, how many intervals each phase has had, and where each
/// part's intervals of each phase begin.
pub(crate) struct Seconds {
    start_epoch_ms: u64,
    pending: Vec<Bucket>,
    numbers: HashMap<PhaseKey, u64>,
    part_starts: HashMap<(usize, PhaseKey), u64>,
}

impl Seconds {
    pub fn new(start_epoch_ms: u64) -> Seconds {
        Seconds {
            start_epoch_ms,
            pending: Vec::new(),
            numbers: HashMap::new(),
            part_starts: HashMap::new(),
        }
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
                    index: Vec::new(),
                    epoch: None,
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
                let merged = bucket.finish(*number, self.start_epoch_ms);
                *number += 1;
                merged
            })
            .collect()
    }
}
