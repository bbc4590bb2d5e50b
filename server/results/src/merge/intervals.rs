//! The merged run's intervals: the parts' intervals of one phase that began in the same
//! wall-clock second become one interval, their counters summed and their latency
//! histograms added. The parts' files are read side by side in time order (each is in
//! time order already), so only the second being merged is held in memory.

use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::io::BufRead;

use hdrhistogram::Histogram;
use keystorm_s3::ops::OpKind;

use super::parts::{MergeError, Part};
use crate::hlog::{self, HLOG_FILE, HlogReader, OwnedHlogLine};
use crate::index::BucketIndex;
use crate::metrics::{IntervalStats, OpSummary, Percentiles, new_histogram};
use crate::op_sums::{add_counts, finish_rates};
use crate::phase_ref::Section;
use crate::store::ResultStore;
use crate::summary::IntervalRecord;
use crate::window_state::WindowState;
use crate::{INTERVALS_FILE, ResultsError};

type PhaseKey = (Section, Option<u32>, String);

/// One interval of one part with its histograms.
struct Item {
    /// Its start, in milliseconds since the epoch.
    at_ms: u64,
    record: IntervalRecord,
    histograms: Vec<(OpKind, Histogram<u64>)>,
}

/// A part's intervals and histogram log, read in step.
struct PartReader {
    lines: std::io::Lines<std::io::BufReader<std::fs::File>>,
    hlog: Option<HlogReader>,
    /// A histogram line read ahead that belongs to a later interval.
    ahead: Option<OwnedHlogLine>,
    start_epoch_ms: u64,
}

impl PartReader {
    fn open(part: &Part) -> Result<Option<PartReader>, MergeError> {
        let path = part.dir.join(INTERVALS_FILE);
        let file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path, e)),
        };
        let hlog_path = part.dir.join(HLOG_FILE);
        Ok(Some(PartReader {
            lines: std::io::BufReader::new(file).lines(),
            hlog: HlogReader::open(&hlog_path).ok(),
            ahead: None,
            start_epoch_ms: part.start_epoch_ms,
        }))
    }

    /// The next whole interval (torn or foreign lines are skipped) with its histograms.
    fn next(&mut self) -> Option<Item> {
        let record = loop {
            let line = self.lines.next()?.ok()?;
            if let Ok(r) = serde_json::from_str::<IntervalRecord>(&line) {
                break r;
            }
        };
        let start_ms = hlog::start_ms_of(record.t_s);
        let round = record
            .round
            .map_or_else(|| "-".to_string(), |r| r.to_string());
        let prefix = format!(
            "{}.",
            hlog::tag(&[record.section.as_str(), &round, &record.phase])
        );
        let mut histograms = Vec::new();
        loop {
            let line = match self.ahead.take() {
                Some(l) => l,
                None => match self.hlog.as_mut().and_then(|h| h.next_line(|_| true).ok()?) {
                    Some(l) => l,
                    None => break,
                },
            };
            if line.start_ms < start_ms {
                continue;
            }
            let op = line
                .tag
                .strip_prefix(&prefix)
                .map(|rest| rest.strip_suffix(".warmup").unwrap_or(rest))
                .and_then(OpKind::parse);
            match op {
                Some(op) if line.start_ms == start_ms => histograms.push((op, line.histogram)),
                _ => {
                    self.ahead = Some(line);
                    break;
                }
            }
        }
        Some(Item {
            at_ms: self.start_epoch_ms + (record.t_s * 1000.0).round() as u64,
            record,
            histograms,
        })
    }
}

fn io(path: &std::path::Path, e: std::io::Error) -> MergeError {
    MergeError::Results(ResultsError::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

/// One merged interval being added up.
struct Bucket {
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
}

impl Bucket {
    fn add(&mut self, part: usize, first_shard: bool, item: Item) {
        let r = item.record;
        self.first_ms = self.first_ms.min(item.at_ms);
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
        };
        (record, stats)
    }
}

/// Writes the merged intervals (and their histograms) of `parts` into `store`.
pub(super) fn merge(
    parts: &[Part],
    start_epoch_ms: u64,
    store: &mut ResultStore,
) -> Result<(), MergeError> {
    let mut readers = Vec::with_capacity(parts.len());
    for part in parts {
        readers.push(PartReader::open(part)?);
    }
    // The next interval of every part, earliest first.
    let mut next: BinaryHeap<std::cmp::Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut items: Vec<Option<Item>> = Vec::with_capacity(parts.len());
    for (i, reader) in readers.iter_mut().enumerate() {
        let item = reader.as_mut().and_then(PartReader::next);
        if let Some(it) = &item {
            next.push(std::cmp::Reverse((it.at_ms, i)));
        }
        items.push(item);
    }
    let mut pending: Vec<Bucket> = Vec::new();
    let mut numbers: HashMap<PhaseKey, u64> = HashMap::new();
    while let Some(std::cmp::Reverse((at_ms, i))) = next.pop() {
        let Some(item) = items[i].take() else {
            continue;
        };
        let second = at_ms / 1000;
        flush(
            &mut pending,
            Some(second),
            &mut numbers,
            start_epoch_ms,
            store,
        )?;
        let phase = (
            item.record.section,
            item.record.round,
            item.record.phase.clone(),
        );
        let at = match pending
            .iter()
            .position(|b| b.second == second && b.phase == phase)
        {
            Some(at) => at,
            None => {
                pending.push(Bucket {
                    second,
                    phase,
                    first_ms: at_ms,
                    warmup: true,
                    seconds: HashMap::new(),
                    windows: HashMap::new(),
                    ops: BTreeMap::new(),
                    histograms: BTreeMap::new(),
                    index: Vec::new(),
                });
                pending.len() - 1
            }
        };
        pending[at].add(i, parts[i].shard.is_first(), item);
        if let Some(it) = readers[i].as_mut().and_then(PartReader::next) {
            next.push(std::cmp::Reverse((it.at_ms, i)));
            items[i] = Some(it);
        }
    }
    flush(&mut pending, None, &mut numbers, start_epoch_ms, store)
}

/// Writes the buckets of the seconds before `before` (all of them with `None`).
fn flush(
    pending: &mut Vec<Bucket>,
    before: Option<u64>,
    numbers: &mut HashMap<PhaseKey, u64>,
    start_epoch_ms: u64,
    store: &mut ResultStore,
) -> Result<(), MergeError> {
    // Most intervals fall in a second already open: nothing to write yet.
    if before.is_some_and(|s| pending.iter().all(|b| b.second >= s)) {
        return Ok(());
    }
    let (done, keep): (Vec<Bucket>, Vec<Bucket>) = std::mem::take(pending)
        .into_iter()
        .partition(|b| before.is_none_or(|s| b.second < s));
    *pending = keep;
    for bucket in done {
        let number = numbers.entry(bucket.phase.clone()).or_default();
        let (record, stats) = bucket.finish(*number, start_epoch_ms);
        *number += 1;
        store.write_interval(&record, &stats)?;
    }
    Ok(())
}
