//! A run's measured seconds, as the resampling needs them: each phase's intervals
//! (at most [`MAX_POINTS`] a phase; a longer phase's come merged into blocks of
//! consecutive seconds, as its chart has them) with, per operation, the counters and
//! the latency histogram of the interval as (value, count) pairs. Read once, from
//! `intervals.jsonl` and `histograms.hlog`; memory holds the points, one histogram per
//! operation being merged, never a request.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use hdrhistogram::Histogram;
use keystorm_types::OpKind;

use crate::hlog::{self, HLOG_FILE};
use crate::{IntervalQuery, Section};

/// At most this many points of a phase are resampled.
pub const MAX_POINTS: usize = 300;

/// One operation's part of a measured interval.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpSecond {
    pub ops: u64,
    pub errors: u64,
    pub bytes: u64,
    /// The interval's latency histogram (µs): each recorded value (the highest value
    /// its bucket stands for) with its count, ascending.
    pub latency: Vec<(u64, u64)>,
}

/// One measured interval of a phase (or a block of consecutive ones).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Second {
    pub duration_s: f64,
    pub ops: BTreeMap<OpKind, OpSecond>,
}

/// Where a phase ran: its section, round and name.
pub type PhaseKey = (Section, Option<u32>, String);

/// Every phase's measured seconds of one run.
#[derive(Debug, Default)]
pub struct RunSeconds {
    pub phases: HashMap<PhaseKey, Vec<Second>>,
}

impl RunSeconds {
    /// The seconds of one phase (none when it has none).
    pub fn of(&self, section: Section, round: Option<u32>, phase: &str) -> &[Second] {
        self.phases
            .get(&(section, round, phase.to_string()))
            .map_or(&[], Vec::as_slice)
    }
}

/// A histogram as (value, count) pairs, ascending.
pub fn sparse(h: &Histogram<u64>) -> Vec<(u64, u64)> {
    h.iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect()
}

/// Two sparse histograms added up, ascending.
pub fn add_sparse(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                out.push((x.0, x.1 + y.1));
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                out.push(*x);
                i += 1;
            }
            (Some(x), None) => {
                out.push(*x);
                i += 1;
            }
            (_, Some(y)) => {
                out.push(*y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

/// The measured (not warm-up) seconds of every phase of the run in `dir`.
pub fn read(dir: &Path) -> RunSeconds {
    let points = crate::read_intervals(
        dir,
        &IntervalQuery {
            max_points: Some(MAX_POINTS),
            ..Default::default()
        },
    );
    let mut run = RunSeconds::default();
    // Each operation's log tag: its phase, and where each of the phase's points starts.
    let mut starts: HashMap<PhaseKey, Vec<u64>> = HashMap::new();
    let mut tags: HashMap<String, (PhaseKey, OpKind)> = HashMap::new();
    for p in points.into_iter().filter(|p| !p.warmup) {
        let key: PhaseKey = (p.section, p.round, p.phase.clone());
        let round = p.round.map_or_else(|| "-".to_string(), |r| r.to_string());
        for op in p.ops.keys() {
            let tag = hlog::tag(&[p.section.as_str(), &round, &p.phase, op.as_str()]);
            tags.insert(tag, (key.clone(), *op));
        }
        starts
            .entry(key.clone())
            .or_default()
            .push(hlog::start_ms_of(p.t_s));
        let ops = p
            .ops
            .iter()
            .map(|(op, s)| {
                let second = OpSecond {
                    ops: s.ops,
                    errors: s.errors,
                    bytes: s.bytes,
                    latency: Vec::new(),
                };
                (*op, second)
            })
            .collect();
        run.phases.entry(key).or_default().push(Second {
            duration_s: p.duration_s,
            ops,
        });
    }
    add_histograms(dir, &mut run, &starts, &tags);
    run
}

/// The histogram a tag is merging: into which point, and what it has so far.
struct Filling {
    point: usize,
    histogram: Histogram<u64>,
}

/// Gives each point its operations' histograms: every log line of a tag is merged into
/// the point whose span holds the line's start (lines of a tag come in time order).
fn add_histograms(
    dir: &Path,
    run: &mut RunSeconds,
    starts: &HashMap<PhaseKey, Vec<u64>>,
    tags: &HashMap<String, (PhaseKey, OpKind)>,
) {
    let mut filling: HashMap<String, Filling> = HashMap::new();
    let wanted = |line: &str| {
        line.get("Tag=".len()..)
            .and_then(|rest| rest.split(',').next())
            .is_some_and(|tag| tags.contains_key(tag))
    };
    let flush = |run: &mut RunSeconds, key: &PhaseKey, op: OpKind, f: &Filling| {
        if let Some(s) = run
            .phases
            .get_mut(key)
            .and_then(|seconds| seconds.get_mut(f.point))
            .and_then(|second| second.ops.get_mut(&op))
        {
            // A merged run's shards may each log the same second: added up.
            s.latency = add_sparse(&s.latency, &sparse(&f.histogram));
        }
    };
    // A run whose log cannot be read has counters without latency: its percentiles
    // come out as none, and say so by having no interval.
    let _ = hlog::for_each_line(&dir.join(HLOG_FILE), wanted, |line| {
        let Some((key, op)) = tags.get(line.tag) else {
            return;
        };
        let Some(point_starts) = starts.get(key) else {
            return;
        };
        let point = point_starts
            .partition_point(|&s| s <= line.start_ms)
            .saturating_sub(1);
        match filling.get_mut(line.tag) {
            Some(f) if f.point == point => {
                // One precision everywhere, so adding cannot fail.
                let _ = f.histogram.add(&line.histogram);
            }
            Some(f) => {
                flush(run, key, *op, f);
                *f = Filling {
                    point,
                    histogram: line.histogram,
                };
            }
            None => {
                filling.insert(
                    line.tag.to_string(),
                    Filling {
                        point,
                        histogram: line.histogram,
                    },
                );
            }
        }
    });
    for (tag, f) in &filling {
        if let Some((key, op)) = tags.get(tag) {
            flush(run, key, *op, f);
        }
    }
}
