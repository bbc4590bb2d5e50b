//! The merged run's summary: one row per phase × round × operation over all parts, its
//! latency from the parts' interval histograms of that phase added together, its
//! counters summed; and whole-run totals per operation the same way.

use std::collections::HashMap;

use hdrhistogram::Histogram;
use keystorm_types::OpKind;

use super::parts::{MergeError, Part, endpoint_list, part_endpoints};
use crate::EndpointRow;
use crate::hlog::{self, HLOG_FILE};
use crate::metrics::{OpSummary, Percentiles, new_histogram};
use crate::op_sums::{add_counts, finish_rates};
use crate::phase_ref::{PhaseRef, Section};
use crate::summary::{OpenLoop, Summary, SummaryRow, TotalRow};

type RowKey = (Section, Option<u32>, String, OpKind);

/// What is added up for one row.
struct RowSum {
    row: SummaryRow,
    /// Measured seconds per part (a part's interrupted and resumed rows add up).
    seconds: HashMap<usize, f64>,
    /// Whether each part's last row of the phase was interrupted.
    interrupted: HashMap<usize, bool>,
    /// Each row's open-loop outcome, measured seconds and part.
    open: Vec<(OpenLoop, f64, usize)>,
    /// The worst part's schedule lag (lag histograms are not logged, so not merged).
    lag: Option<Percentiles>,
    /// A part's latency summary, for the marks its tail was counted at: the merged
    /// tail is counted at them from the merged histogram.
    counted: Percentiles,
    /// Each endpoint's counters, in the merged run's endpoint order.
    endpoints: Vec<(String, OpSummary)>,
    /// When each part's row ran (its start and measured seconds): a handful per part.
    spans: Vec<(String, f64)>,
}

/// The latency histograms of every phase × operation (warm-up left out), over all
/// parts, by log tag; and per operation over the whole run.
struct Histograms {
    by_tag: HashMap<String, Histogram<u64>>,
    by_op: HashMap<OpKind, Histogram<u64>>,
    /// Each endpoint's lines of each row (a run that drove several): by row tag and
    /// endpoint URL.
    by_endpoint: HashMap<(String, String), Histogram<u64>>,
}

fn read_histograms(parts: &[Part]) -> Result<Histograms, MergeError> {
    let mut h = Histograms {
        by_tag: HashMap::new(),
        by_op: HashMap::new(),
        by_endpoint: HashMap::new(),
    };
    let several = !endpoint_list(parts).is_empty();
    for part in parts {
        let urls = part_endpoints(part);
        // A part that drove one endpoint: its rows are that endpoint's.
        let sole = (several && urls.len() == 1).then(|| urls[0].clone());
        let path = part.dir.join(HLOG_FILE);
        if !path.is_file() {
            continue;
        }
        hlog::for_each_line(
            &path,
            |_| true,
            |line| {
                if line.tag.ends_with(".warmup") {
                    return;
                }
                let last = line.tag.rsplit('.').next().unwrap_or_default();
                if let Some((_, e)) = last.split_once('@') {
                    let base = line.tag.rsplit_once('@').map_or("", |(b, _)| b);
                    if let Some(url) = e.parse::<usize>().ok().and_then(|e| urls.get(e)) {
                        let _ = h
                            .by_endpoint
                            .entry((base.to_string(), url.clone()))
                            .or_insert_with(new_histogram)
                            .add(&line.histogram);
                    }
                    return;
                }
                let Some(op) = OpKind::parse(last) else {
                    return;
                };
                if let Some(url) = &sole {
                    let _ = h
                        .by_endpoint
                        .entry((line.tag.to_string(), url.clone()))
                        .or_insert_with(new_histogram)
                        .add(&line.histogram);
                }
                // One precision everywhere, so adding cannot fail.
                let _ = h
                    .by_tag
                    .entry(line.tag.to_string())
                    .or_insert_with(new_histogram)
                    .add(&line.histogram);
                let _ = h
                    .by_op
                    .entry(op)
                    .or_insert_with(new_histogram)
                    .add(&line.histogram);
            },
        )
        .map_err(|e| MergeError::Unreadable {
            path: path.clone(),
            message: e.to_string(),
        })?;
    }
    Ok(h)
}

fn latency(h: Option<&Histogram<u64>>) -> Percentiles {
    h.map(Percentiles::of).unwrap_or_default()
}

pub(super) fn merge(parts: &[Part], run_id: &str) -> Result<Summary, MergeError> {
    let histograms = read_histograms(parts)?;
    let urls = endpoint_list(parts);
    let mut order: Vec<RowKey> = Vec::new();
    let mut sums: HashMap<RowKey, RowSum> = HashMap::new();
    for (i, part) in parts.iter().enumerate() {
        for r in &part.summary.rows {
            let key = (r.section, r.round, r.phase.clone(), r.op);
            let sum = sums.entry(key.clone()).or_insert_with(|| {
                order.push(key);
                RowSum {
                    row: SummaryRow {
                        objects_at_start: 0,
                        client_cpu_s: 0.0,
                        stats: OpSummary::default(),
                        interrupted: false,
                        resumed: false,
                        redone: 0,
                        taken_over: false,
                        ..r.clone()
                    },
                    seconds: HashMap::new(),
                    interrupted: HashMap::new(),
                    open: Vec::new(),
                    lag: None,
                    counted: r.stats.latency_us,
                    endpoints: urls
                        .iter()
                        .map(|u| (u.clone(), OpSummary::default()))
                        .collect(),
                    spans: Vec::new(),
                }
            });
            sum.spans.push((r.started_at.clone(), r.duration_s));
            add_endpoints(&mut sum.endpoints, r, &part_endpoints(part));
            if let Some(o) = r.open_loop {
                sum.open.push((o, r.duration_s, i));
            }
            if let Some(l) = r.stats.schedule_lag_us
                && sum.lag.is_none_or(|worst| l.p99 > worst.p99)
            {
                sum.lag = Some(l);
            }
            let first_of_part = !sum.seconds.contains_key(&i);
            if first_of_part {
                sum.row.objects_at_start += r.objects_at_start;
                if r.started_at < sum.row.started_at {
                    sum.row.started_at = r.started_at.clone();
                }
            }
            *sum.seconds.entry(i).or_default() += r.duration_s;
            sum.interrupted.insert(i, r.interrupted);
            sum.row.client_cpu_s += r.client_cpu_s;
            sum.row.redone += r.redone;
            sum.row.taken_over |= r.taken_over;
            add_counts(&mut sum.row.stats, &r.stats);
            // The bucket index is polled by shard 0 alone.
            if part.shard.is_first() {
                if first_of_part && !r.index_at_start.is_empty() {
                    sum.row.index_at_start = r.index_at_start.clone();
                }
                if !r.index_at_end.is_empty() {
                    sum.row.index_at_end = r.index_at_end.clone();
                }
            }
        }
    }
    let rows = order
        .into_iter()
        .filter_map(|key| sums.remove(&key))
        .map(|mut sum| {
            // The shards ran side by side: the phase ran while any of them did (a shard
            // paused or waiting to be taken over while others went on is time it ran);
            // the longest shard's measured time where the parts' times cannot be read.
            let longest = sum.seconds.values().copied().fold(0.0, f64::max);
            let seconds = crate::whole_phases::union_seconds(&sum.spans).unwrap_or(longest);
            sum.row.duration_s = seconds;
            // From the first part's start to the end of the last: pauses included.
            let last = sum
                .spans
                .iter()
                .max_by_key(|(start, seconds)| crate::whole_phases::part_end(start, *seconds));
            sum.row.wall_s = last.and_then(|(start, seconds)| {
                crate::whole_phases::wall_seconds(&sum.row.started_at, start, *seconds)
            });
            finish_rates(&mut sum.row.stats, seconds);
            sum.row.stats.latency_us = sum
                .counted
                .remeasured(histograms.by_tag.get(&sum.row.log_tag()));
            sum.row.stats.schedule_lag_us = sum.lag;
            // Side by side: the shards' rates add up.
            sum.row.open_loop = OpenLoop::side_by_side(&sum.open, |part| {
                sum.seconds.get(&part).copied().unwrap_or(0.0)
            });
            sum.row.interrupted = sum.interrupted.values().any(|&b| b);
            let tag = sum.row.log_tag();
            sum.row.endpoints = sum
                .endpoints
                .into_iter()
                .filter(|(_, s)| s.ops + s.errors + s.retries > 0)
                .map(|(endpoint, mut stats)| {
                    finish_rates(&mut stats, seconds);
                    stats.latency_us = sum
                        .counted
                        .remeasured(histograms.by_endpoint.get(&(tag.clone(), endpoint.clone())));
                    EndpointRow { endpoint, stats }
                })
                .collect();
            sum.row
        })
        .collect::<Vec<SummaryRow>>();
    let totals = totals(parts, &histograms, &rows);
    Ok(Summary {
        format_version: crate::FORMAT_VERSION,
        run_id: run_id.to_string(),
        rows,
        totals,
        // A search over agents was chosen by their controller, which told every shard
        // the same result: the first part that has it says it.
        searches: parts
            .iter()
            .map(|p| &p.summary.searches)
            .find(|s| !s.is_empty())
            .cloned()
            .unwrap_or_default(),
    })
}

/// Adds what each endpoint took of the part's row `r` (the part's endpoints `mine`) to
/// `into`: its breakdown, or the whole row for a part that drove one endpoint.
fn add_endpoints(into: &mut [(String, OpSummary)], r: &SummaryRow, mine: &[String]) {
    let whole = [EndpointRow {
        endpoint: mine.first().cloned().unwrap_or_default(),
        stats: r.stats.clone(),
    }];
    let rows = if r.endpoints.is_empty() && mine.len() == 1 {
        &whole[..]
    } else {
        &r.endpoints[..]
    };
    for e in rows {
        if let Some((_, sum)) = into.iter_mut().find(|(u, _)| *u == e.endpoint) {
            add_counts(sum, &e.stats);
        }
    }
}

/// The run's totals per operation: counts added, latency from the merged histograms,
/// rates over the measured seconds of the merged phases the operation ran in (each the
/// time some shard ran it), as a single run's totals are over its phases' seconds.
fn totals(parts: &[Part], histograms: &Histograms, rows: &[SummaryRow]) -> Vec<TotalRow> {
    let mut order: Vec<OpKind> = Vec::new();
    let mut sums: HashMap<OpKind, (OpSummary, f64)> = HashMap::new();
    for part in parts {
        for t in &part.summary.totals {
            let (stats, seconds) = sums.entry(t.op).or_insert_with(|| {
                order.push(t.op);
                (OpSummary::default(), 0.0)
            });
            add_counts(stats, &t.stats);
            *seconds = seconds.max(t.duration_s);
        }
    }
    order
        .into_iter()
        .filter_map(|op| sums.remove(&op).map(|s| (op, s)))
        .map(|(op, (mut stats, longest))| {
            let phases: f64 = rows
                .iter()
                .filter(|r| r.op == op)
                .map(|r| r.duration_s)
                .sum();
            let seconds = if phases > 0.0 { phases } else { longest };
            finish_rates(&mut stats, seconds);
            stats.latency_us = latency(histograms.by_op.get(&op));
            TotalRow {
                op,
                duration_s: seconds,
                stats,
            }
        })
        .collect()
}

/// The rows grouped by phase, in order, each with the phase as events name it.
pub(super) fn by_phase(rows: &[SummaryRow]) -> Vec<(PhaseRef, Vec<SummaryRow>)> {
    let mut out: Vec<(PhaseRef, Vec<SummaryRow>)> = Vec::new();
    let mut positions: HashMap<(Section, Option<u32>), usize> = HashMap::new();
    for row in rows {
        let same = out.last().is_some_and(|(p, _)| {
            p.section == row.section && p.round == row.round && p.name == row.phase
        });
        if !same {
            let next = positions.entry((row.section, row.round)).or_default();
            out.push((
                PhaseRef {
                    section: row.section,
                    round: row.round,
                    index: *next,
                    name: row.phase.clone(),
                },
                Vec::new(),
            ));
            *next += 1;
        }
        if let Some((_, group)) = out.last_mut() {
            group.push(row.clone());
        }
    }
    out
}
