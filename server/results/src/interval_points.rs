//! A run's intervals read back for charts: line by line, filtered, and merged into at
//! most a given number of points per phase, so a fill that ran for days (86,400
//! intervals a day) still answers with a chart's worth of points. A merged point adds
//! its intervals' counters and merges their latency histograms from
//! `histograms.hlog`: its percentiles are exact, never an average of percentiles.
//! Memory holds the points returned and one histogram per phase and operation being
//! merged, whatever the run's length.
//!
//! A chart point is never narrower than half a second: an interval shorter than
//! [`SHORT_INTERVAL_S`] that follows another of its phase (the part of a phase after its
//! last full second, when it ended on an operation count or was stopped) is folded into
//! the point before it, so a sliver of a few in-flight requests finishing is not drawn
//! as a second of its own — a dip in throughput and a spike in latency that did not
//! happen.

use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::path::Path;

use super::hlog::{self, HLOG_FILE};
use super::{INTERVALS_FILE, IntervalRecord, Section};
use crate::metrics::{Percentiles, new_histogram};
use crate::op_sums::{add_counts, finish_rates};

/// Which intervals to read, and into how many points.
#[derive(Debug, Clone, Default)]
pub struct IntervalQuery<'a> {
    pub section: Option<&'a str>,
    pub round: Option<u32>,
    pub phase: Option<&'a str>,
    /// At most this many points per phase (section, round and phase); `None` reads
    /// every interval as recorded.
    pub max_points: Option<usize>,
}

impl IntervalQuery<'_> {
    fn accepts(&self, r: &IntervalRecord) -> bool {
        self.section.is_none_or(|s| r.section.as_str() == s)
            && self.round.is_none_or(|n| r.round == Some(n))
            && self.phase.is_none_or(|p| r.phase == p)
    }
}

/// Intervals shorter than this (seconds) are folded into the chart point before them.
pub const SHORT_INTERVAL_S: f64 = 0.5;

type PhaseKey = (Section, Option<u32>, String);

fn phase_key(r: &IntervalRecord) -> PhaseKey {
    (r.section, r.round, r.phase.clone())
}

/// The intervals `query` asks for, in the order they were recorded; torn lines (a
/// killed run) are skipped. A run without intervals yet reads as none.
pub fn read_intervals(dir: &Path, query: &IntervalQuery<'_>) -> Vec<IntervalRecord> {
    let Some(max_points) = query.max_points else {
        let mut all = Vec::new();
        for_each_record(dir, query, |r| all.push(r));
        return all;
    };
    let mut counts: HashMap<PhaseKey, u64> = HashMap::new();
    for_each_record(dir, query, |r| {
        *counts.entry(phase_key(&r)).or_default() += 1
    });
    let per_point = |key: &PhaseKey| {
        counts
            .get(key)
            .map_or(1, |n| n.div_ceil(max_points.max(1) as u64))
    };

    let mut points: Vec<IntervalRecord> = Vec::new();
    // The point each phase is filling, by its index in `points`.
    let mut filling: HashMap<PhaseKey, usize> = HashMap::new();
    // The start of each merged point's last interval, by its index in `points`.
    let mut last_starts: HashMap<usize, f64> = HashMap::new();
    // Where each merged point's histograms are: its tags, and its span in the log.
    let mut spans: HashMap<String, TagSpans> = HashMap::new();
    for_each_record(dir, query, |r| {
        let key = phase_key(&r);
        let n = per_point(&key);
        if let Some(&at) = filling.get(&key) {
            let point = &mut points[at];
            if point.warmup == r.warmup && (point.merged < n || r.duration_s < SHORT_INTERVAL_S) {
                last_starts.insert(at, r.t_s);
                add_interval(point, r);
                return;
            }
        }
        filling.insert(key, points.len());
        points.push(r);
    });
    let merged: Vec<usize> = (0..points.len())
        .filter(|&i| points[i].merged > 1)
        .collect();
    if merged.is_empty() {
        return points;
    }
    for &at in &merged {
        let p = &mut points[at];
        let first_ms = hlog::start_ms_of(p.t_s);
        let last_ms = hlog::start_ms_of(last_starts.get(&at).copied().unwrap_or(p.t_s));
        let duration_s = p.duration_s;
        for s in p.ops.values_mut() {
            finish_rates(s, duration_s);
        }
        for op in p.ops.keys() {
            let tag = hlog_tag(p, op.as_str());
            spans
                .entry(tag)
                .or_insert_with(|| TagSpans::new(*op))
                .spans
                .push(Span {
                    first_ms,
                    last_ms,
                    point: at,
                });
        }
    }
    let tags: HashSet<String> = spans.keys().cloned().collect();
    let wanted = |line: &str| {
        line.get("Tag=".len()..)
            .and_then(|rest| rest.split(',').next())
            .is_some_and(|tag| tags.contains(tag))
    };
    let _ = hlog::for_each_line(&dir.join(HLOG_FILE), wanted, |line| {
        if let Some(s) = spans.get_mut(line.tag) {
            s.add(line.start_ms, &line.histogram, &mut points);
        }
    });
    for s in spans.values_mut() {
        s.finish_current(&mut points);
    }
    points
}

/// Calls `each` with every record of the run's intervals file that `query` accepts
/// (its `max_points` aside), in order, line by line; stops at the first error `each`
/// returns. A run without intervals yet has none.
pub fn for_each_interval(
    dir: &Path,
    query: &IntervalQuery<'_>,
    mut each: impl FnMut(IntervalRecord) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let file = match std::fs::File::open(dir.join(INTERVALS_FILE)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for line in std::io::BufReader::new(file).lines() {
        if let Ok(r) = serde_json::from_str::<IntervalRecord>(&line?)
            && query.accepts(&r)
        {
            each(r)?;
        }
    }
    Ok(())
}

/// As [`for_each_interval`], with a phase's sliver of a last interval (shorter than
/// [`SHORT_INTERVAL_S`]) folded into the interval before it, as chart points have it:
/// counters added, rates over both, latency percentiles from both intervals' histograms
/// merged (a pass over the histogram log for each sliver; a run has at most one a part
/// of a phase). Memory holds one interval. What exports of every interval use.
pub fn for_each_folded_interval(
    dir: &Path,
    query: &IntervalQuery<'_>,
    mut each: impl FnMut(IntervalRecord) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut held: Option<IntervalRecord> = None;
    for_each_interval(dir, query, |r| {
        if let Some(h) = held.as_mut()
            && phase_key(h) == phase_key(&r)
            && h.warmup == r.warmup
            && r.duration_s < SHORT_INTERVAL_S
        {
            let (first_ms, last_ms) = (hlog::start_ms_of(h.t_s), hlog::start_ms_of(r.t_s));
            add_interval(h, r);
            let duration_s = h.duration_s;
            for s in h.ops.values_mut() {
                finish_rates(s, duration_s);
            }
            let ops: Vec<_> = h.ops.keys().copied().collect();
            for op in ops {
                let wanted = format!("Tag={},", hlog_tag(h, op.as_str()));
                let mut merged = new_histogram();
                hlog::for_each_line(
                    &dir.join(HLOG_FILE),
                    |line| line.starts_with(&wanted),
                    |line| {
                        if (first_ms..=last_ms).contains(&line.start_ms) {
                            // One precision everywhere, so adding cannot fail.
                            let _ = merged.add(&line.histogram);
                        }
                    },
                )?;
                if let Some(s) = h.ops.get_mut(&op) {
                    s.latency_us = Percentiles::of(&merged);
                }
            }
            return Ok(());
        }
        match held.replace(r) {
            Some(before) => each(before),
            None => Ok(()),
        }
    })?;
    match held {
        Some(last) => each(last),
        None => Ok(()),
    }
}

fn for_each_record(dir: &Path, query: &IntervalQuery<'_>, mut each: impl FnMut(IntervalRecord)) {
    let _ = for_each_interval(dir, query, |r| {
        each(r);
        Ok(())
    });
}

/// Adds the next interval of a phase to the point that stands for it and those before.
fn add_interval(point: &mut IntervalRecord, r: IntervalRecord) {
    point.merged += r.merged;
    // The rate asked over the point's whole time: each interval's, weighted by its time.
    point.asked_per_sec = match (point.asked_per_sec, r.asked_per_sec) {
        (Some(a), Some(b)) if point.duration_s + r.duration_s > 0.0 => {
            Some((a * point.duration_s + b * r.duration_s) / (point.duration_s + r.duration_s))
        }
        (a, b) => a.or(b),
    };
    point.duration_s += r.duration_s;
    point.window = r.window;
    if !r.index.is_empty() {
        point.index = r.index;
    }
    for (op, s) in r.ops {
        add_counts(point.ops.entry(op).or_default(), &s);
    }
}

/// The tag the recorder gave this point's histograms of `op`.
fn hlog_tag(p: &IntervalRecord, op: &str) -> String {
    let round = p.round.map_or_else(|| "-".to_string(), |r| r.to_string());
    let mut parts = vec![p.section.as_str(), &round, &p.phase, op];
    if p.warmup {
        parts.push("warmup");
    }
    hlog::tag(&parts)
}

/// A merged point's place in the histogram log: the starts of its intervals.
struct Span {
    first_ms: u64,
    last_ms: u64,
    point: usize,
}

/// The merged points of one tag in log order, and the histogram of the one being read.
struct TagSpans {
    op: keystorm_types::OpKind,
    spans: Vec<Span>,
    at: usize,
    histogram: Option<hdrhistogram::Histogram<u64>>,
}

impl TagSpans {
    fn new(op: keystorm_types::OpKind) -> TagSpans {
        TagSpans {
            op,
            spans: Vec::new(),
            at: 0,
            histogram: None,
        }
    }

    fn add(
        &mut self,
        start_ms: u64,
        h: &hdrhistogram::Histogram<u64>,
        points: &mut [IntervalRecord],
    ) {
        while self
            .spans
            .get(self.at)
            .is_some_and(|s| s.last_ms < start_ms)
        {
            self.finish_current(points);
            self.at += 1;
        }
        let Some(span) = self.spans.get(self.at) else {
            return;
        };
        if start_ms >= span.first_ms {
            // One precision everywhere, so adding cannot fail.
            let _ = self.histogram.get_or_insert_with(new_histogram).add(h);
        }
    }

    /// Puts the percentiles of the histogram read so far into its point.
    fn finish_current(&mut self, points: &mut [IntervalRecord]) {
        if let (Some(h), Some(span)) = (self.histogram.take(), self.spans.get(self.at))
            && let Some(s) = points[span.point].ops.get_mut(&self.op)
        {
            s.latency_us = Percentiles::of(&h);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::ResultStore;
    use crate::metrics::IntervalStats;
    use keystorm_types::OpKind;

    /// Writes one interval of phase `read` holding `ops` GETs of `latency` each.
    fn write(
        store: &mut ResultStore,
        interval: u64,
        t_s: f64,
        duration_s: f64,
        ops: u64,
        latency: Duration,
    ) {
        let mut stats = IntervalStats::default();
        for _ in 0..ops {
            stats.op_mut(OpKind::Get).record_ok(latency, 1024);
        }
        let duration = Duration::from_secs_f64(duration_s);
        let record = IntervalRecord {
            section: Section::Round,
            round: Some(1),
            phase: "read".into(),
            interval,
            t_s,
            duration_s,
            warmup: false,
            window: Default::default(),
            ops: stats
                .active()
                .map(|(op, s)| (op, s.summarize(duration)))
                .collect(),
            index: Vec::new(),
            merged: 1,
            asked_per_sec: None,
            epoch: None,
            endpoints: Vec::new(),
        };
        store.write_interval(&record, &stats).unwrap();
    }

    #[test]
    fn a_phase_s_sliver_of_a_last_interval_is_folded_into_the_point_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ResultStore::open_append(dir.path()).unwrap();
        for k in 0..3 {
            write(
                &mut store,
                k,
                10.0 + k as f64,
                1.0,
                1000,
                Duration::from_millis(1),
            );
        }
        // The last 50 ms: twenty slow requests that were in flight finishing.
        write(&mut store, 3, 13.0, 0.05, 20, Duration::from_millis(40));
        drop(store);

        let raw = read_intervals(dir.path(), &IntervalQuery::default());
        assert_eq!(raw.len(), 4, "the file keeps every interval as recorded");

        let points = read_intervals(
            dir.path(),
            &IntervalQuery {
                max_points: Some(100),
                ..IntervalQuery::default()
            },
        );
        assert_eq!(points.len(), 3);
        let last = &points[2];
        assert_eq!((last.t_s, last.merged), (12.0, 2));
        assert!((last.duration_s - 1.05).abs() < 1e-9);
        let get = &last.ops[&OpKind::Get];
        assert_eq!(get.ops, 1020);
        assert!((get.ops_per_sec - 1020.0 / 1.05).abs() < 1e-6);
        // No dip: every point runs at about the phase's rate, not 20 / 0.05 s or 20 / s.
        let rates: Vec<f64> = points
            .iter()
            .map(|p| p.ops[&OpKind::Get].ops_per_sec)
            .collect();
        assert!(
            rates.iter().all(|r| (900.0..=1100.0).contains(r)),
            "{rates:?}"
        );
        // Percentiles of the merged histogram: 20 of 1,020 took 40 ms, so p99 did too,
        // while the median stayed at 1 ms.
        assert!(
            (39_000..=40_100).contains(&get.latency_us.p99),
            "{:?}",
            get.latency_us
        );
        assert!(
            (990..=1_010).contains(&get.latency_us.p50),
            "{:?}",
            get.latency_us
        );

        // An export of every interval folds it the same way, one interval at a time.
        let mut folded = Vec::new();
        for_each_folded_interval(dir.path(), &IntervalQuery::default(), |r| {
            folded.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(folded, points);
    }

    #[test]
    fn a_phase_shorter_than_half_a_second_is_one_point_at_its_own_rate() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ResultStore::open_append(dir.path()).unwrap();
        write(&mut store, 0, 2.0, 0.1, 500, Duration::from_millis(1));
        drop(store);
        let points = read_intervals(
            dir.path(),
            &IntervalQuery {
                max_points: Some(100),
                ..IntervalQuery::default()
            },
        );
        assert_eq!(points.len(), 1);
        assert!((points[0].ops[&OpKind::Get].ops_per_sec - 5000.0).abs() < 1e-6);
    }
}
