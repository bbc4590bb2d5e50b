//! The merged run's intervals: the parts' intervals of one phase that began in the same
//! second of it (counted from each part's start of the phase) become one interval, their counters summed and their latency
//! histograms added. The parts' files are read side by side in time order (each is in
//! time order already), so only the second being merged is held in memory.

use std::collections::BinaryHeap;
use std::io::BufRead;

use keystorm_types::OpKind;

use super::parts::{MergeError, Part, endpoint_list, part_endpoints};
use super::seconds::{Item, Seconds};
use crate::hlog::{self, HLOG_FILE, HlogReader, OwnedHlogLine};
use crate::metrics::IntervalStats;
use crate::store::ResultStore;
use crate::summary::IntervalRecord;
use crate::{INTERVALS_FILE, ResultsError};

/// A part's intervals and histogram log, read in step.
struct PartReader {
    lines: std::io::Lines<std::io::BufReader<std::fs::File>>,
    hlog: Option<HlogReader>,
    /// A histogram line read ahead that belongs to a later interval.
    ahead: Option<OwnedHlogLine>,
    start_epoch_ms: u64,
    /// The part's endpoints, as its log numbers them.
    urls: Vec<String>,
    /// The endpoint of a part that drove one, in a run whose parts drove several.
    sole: Option<String>,
}

impl PartReader {
    fn open(part: &Part, several: bool) -> Result<Option<PartReader>, MergeError> {
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
            sole: several
                .then(|| part_endpoints(part))
                .filter(|u| u.len() == 1)
                .map(|u| u[0].clone()),
            urls: part_endpoints(part),
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
        let mut endpoint_histograms = Vec::new();
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
            let last = line
                .tag
                .strip_prefix(&prefix)
                .map(|rest| rest.strip_suffix(".warmup").unwrap_or(rest));
            // `op`, or `op@E` for endpoint E's share.
            let (op, endpoint) = match last.and_then(|l| l.split_once('@')) {
                Some((op, e)) => (
                    OpKind::parse(op),
                    e.parse::<usize>().ok().and_then(|e| self.urls.get(e)),
                ),
                None => (last.and_then(OpKind::parse), None),
            };
            match (op, endpoint) {
                (Some(op), Some(url)) if line.start_ms == start_ms => {
                    endpoint_histograms.push((url.clone(), op, line.histogram))
                }
                (Some(op), None) if line.start_ms == start_ms => {
                    histograms.push((op, line.histogram))
                }
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
            endpoint_histograms,
            sole_endpoint: self.sole.clone(),
        })
    }
}

fn io(path: &std::path::Path, e: std::io::Error) -> MergeError {
    MergeError::Results(ResultsError::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

/// Writes the merged intervals (and their histograms) of `parts` into `store`.
pub(super) fn merge(
    parts: &[Part],
    start_epoch_ms: u64,
    store: &mut ResultStore,
) -> Result<(), MergeError> {
    let urls = endpoint_list(parts);
    let mut readers = Vec::with_capacity(parts.len());
    for part in parts {
        readers.push(PartReader::open(part, !urls.is_empty())?);
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
    let mut seconds = Seconds::new(start_epoch_ms).with_endpoints(urls);
    while let Some(std::cmp::Reverse((at_ms, i))) = next.pop() {
        let Some(item) = items[i].take() else {
            continue;
        };
        write(seconds.take_before(Some(at_ms / 1000)), store)?;
        seconds.add(i, parts[i].shard.is_first(), item);
        if let Some(it) = readers[i].as_mut().and_then(PartReader::next) {
            next.push(std::cmp::Reverse((it.at_ms, i)));
            items[i] = Some(it);
        }
    }
    write(seconds.take_before(None), store)
}

fn write(
    merged: Vec<(IntervalRecord, IntervalStats)>,
    store: &mut ResultStore,
) -> Result<(), MergeError> {
    for (record, stats) in merged {
        store.write_interval(&record, &stats)?;
    }
    Ok(())
}
