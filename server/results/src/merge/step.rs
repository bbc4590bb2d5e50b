//! One step of a search run by several shards side by side, merged as the merge of
//! their runs would merge it: counters added, latency from the shards' histograms
//! added (never percentiles averaged), the open-loop rates of the shards added. The
//! step's measured time is its longest shard's: the shards run a step together, and a
//! shard that ran it again after a restart ran it as long (the merge of the whole run
//! counts the time any shard ran, which is a little longer). The controller of a run over agents
//! judges each step on these rows before it chooses the next.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use keystorm_types::OpKind;

use crate::metrics::{OpSummary, new_histogram};
use crate::op_sums::{add_counts, finish_rates};
use crate::summary::{OpenLoop, SummaryRow};

/// What one shard measured of a step: its rows (one per operation) and each
/// operation's latency histogram (µs, warm-up left out).
#[derive(Debug, Clone, Default)]
pub struct StepPart {
    pub rows: Vec<SummaryRow>,
    pub histograms: BTreeMap<OpKind, Histogram<u64>>,
}

/// The step's rows over all `parts`, one per operation in the order the first part
/// that ran it names them.
pub fn merge_step(parts: &[StepPart]) -> Vec<SummaryRow> {
    let mut ops: Vec<OpKind> = Vec::new();
    for part in parts {
        for r in &part.rows {
            if !ops.contains(&r.op) {
                ops.push(r.op);
            }
        }
    }
    ops.into_iter()
        .filter_map(|op| merge_op(parts, op))
        .collect()
}

fn merge_op(parts: &[StepPart], op: OpKind) -> Option<SummaryRow> {
    let mut merged: Option<SummaryRow> = None;
    let mut histogram = new_histogram();
    let mut open: Vec<(OpenLoop, f64, usize)> = Vec::new();
    let mut seconds: BTreeMap<usize, f64> = BTreeMap::new();
    for (i, part) in parts.iter().enumerate() {
        for r in part.rows.iter().filter(|r| r.op == op) {
            let row = merged.get_or_insert_with(|| SummaryRow {
                objects_at_start: 0,
                client_cpu_s: 0.0,
                stats: OpSummary::default(),
                ..r.clone()
            });
            if r.started_at < row.started_at {
                row.started_at = r.started_at.clone();
            }
            row.objects_at_start += r.objects_at_start;
            row.client_cpu_s += r.client_cpu_s;
            row.interrupted |= r.interrupted;
            add_counts(&mut row.stats, &r.stats);
            if let Some(lag) = r.stats.schedule_lag_us
                && row
                    .stats
                    .schedule_lag_us
                    .is_none_or(|worst| lag.p99 > worst.p99)
            {
                row.stats.schedule_lag_us = Some(lag);
            }
            if let Some(o) = r.open_loop {
                open.push((o, r.duration_s, i));
            }
            *seconds.entry(i).or_default() += r.duration_s;
        }
        if let Some(h) = part.histograms.get(&op) {
            // One precision everywhere, so adding cannot fail.
            let _ = histogram.add(h);
        }
    }
    let mut row = merged?;
    let measured = seconds.values().copied().fold(0.0, f64::max);
    let lag = row.stats.schedule_lag_us;
    let counted = row.stats.latency_us;
    row.duration_s = measured;
    finish_rates(&mut row.stats, measured);
    row.stats.latency_us = counted.remeasured(Some(&histogram));
    row.stats.schedule_lag_us = lag;
    row.open_loop =
        OpenLoop::side_by_side(&open, |part| seconds.get(&part).copied().unwrap_or(0.0));
    row.endpoints = Vec::new();
    Some(row)
}
