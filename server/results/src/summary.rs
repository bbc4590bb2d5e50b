//! Summary rows (phase × round × operation) and interval lines, with their CSV form.

use std::io::Write;

use serde::{Deserialize, Serialize};

use super::phase_ref::Section;
use crate::metrics::OpSummary;
use crate::window_state::WindowState;
use keystorm_types::OpKind;

/// One operation of one phase of one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SummaryRow {
    pub section: Section,
    pub round: Option<u32>,
    pub phase: String,
    pub op: OpKind,
    /// Live objects in the keyspace window when the phase started.
    pub objects_at_start: u64,
    pub started_at: String,
    /// Measured seconds (warm-up excluded).
    pub duration_s: f64,
    /// CPU seconds keystorm itself spent during the whole phase (all its operations).
    pub client_cpu_s: f64,
    #[serde(flatten)]
    pub stats: OpSummary,
    /// Bucket index when the phase started and ended (tracked targets only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub index_at_start: Vec<super::BucketIndex>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub index_at_end: Vec<super::BucketIndex>,
    /// The phase stopped before its end (Ctrl-C, a stop request, a crash): the row
    /// covers what was measured until then. A resume adds a `resumed` row for the rest.
    #[serde(default, skip_serializing_if = "is_false")]
    pub interrupted: bool,
    /// The row covers only what a resumed run measured of the phase; the part before
    /// the resume has its own `interrupted` row.
    #[serde(default, skip_serializing_if = "is_false")]
    pub resumed: bool,
    /// Operations of the row done again: writes the part before this resumed one had
    /// finished beyond the checkpoint it resumed from. They reached the target twice
    /// and are counted twice; a fill's PUTs are its keys plus these.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub redone: u64,
    /// The row's resumed part ran on another host from a copy of the lost process's
    /// run folder (an agent's shard taken over); in a merged row, some part was.
    #[serde(default, skip_serializing_if = "is_false")]
    pub taken_over: bool,
    /// Seconds from the phase's start to its end, pauses included, where it ran in
    /// parts (stopped and resumed, or a merged run's shards): `duration_s`, which the
    /// row's rates divide by, leaves the pauses out. Absent for a phase run in one go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
    /// An open-loop phase (`rate`): the rate it asked for against what it sent, and
    /// what it never sent. The same on every row of the phase (it is the phase's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<OpenLoop>,
    /// A step of a rate sweep (`rates`): the sweep's name, the phase as written, shared
    /// by its steps (each row's `phase` is the step's own, `put@1000`). Its steps' rows,
    /// rate asked against latency, make the sweep's curve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<String>,
    /// A run that drives several endpoints: what each took of the row, adding up to
    /// it (empty for one endpoint: the row is its).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub endpoints: Vec<crate::EndpointRow>,
}

/// How an open-loop phase kept its schedule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OpenLoop {
    /// Operations per second the phase asked for (a shard's part of it on a shard).
    pub asked_per_sec: f64,
    /// Requests sent per second of the measured time, every operation of the phase
    /// together (failed ones too).
    pub sent_per_sec: f64,
    /// Operations the schedule had due by the end of a `duration` phase that were never
    /// sent: the target (or the client) could not keep up. Other ends do every
    /// operation, later: for them `sent_per_sec` says how far behind.
    #[serde(default)]
    pub backlog: u64,
}

impl OpenLoop {
    /// The outcome of rows run one after another (a phase's parts) or side by side
    /// (shards, `side_by_side`): rates asked add up side by side and are one rate one
    /// after another; requests sent are added and spread over `seconds`; what was never
    /// sent adds up. `rows` pairs each row's outcome with its measured seconds and its
    /// part.
    pub fn combine(rows: &[(OpenLoop, f64, usize)], seconds: f64) -> Option<OpenLoop> {
        if rows.is_empty() {
            return None;
        }
        let mut asked: std::collections::BTreeMap<usize, f64> = Default::default();
        let (mut sent, mut backlog) = (0.0, 0);
        for (o, s, part) in rows {
            asked.insert(*part, o.asked_per_sec);
            sent += o.sent_per_sec * s;
            backlog += o.backlog;
        }
        Some(OpenLoop {
            asked_per_sec: asked.values().sum(),
            sent_per_sec: if seconds > 0.0 { sent / seconds } else { 0.0 },
            backlog,
        })
    }

    /// The outcome of shards run side by side, each over the time it ran: rates asked
    /// add up, and so do the rates each shard sent over its own measured seconds
    /// (`seconds_of` its part), so a shard paused or waiting to be taken over while the
    /// others went on is not counted as behind for the time it did not run. `rows` pairs
    /// each row's outcome with its measured seconds and its part.
    pub fn side_by_side(
        rows: &[(OpenLoop, f64, usize)],
        seconds_of: impl Fn(usize) -> f64,
    ) -> Option<OpenLoop> {
        if rows.is_empty() {
            return None;
        }
        let mut parts: std::collections::BTreeMap<usize, (f64, f64)> = Default::default();
        let mut backlog = 0;
        for (o, s, part) in rows {
            let (asked, sent) = parts.entry(*part).or_default();
            *asked = o.asked_per_sec;
            *sent += o.sent_per_sec * s;
            backlog += o.backlog;
        }
        Some(OpenLoop {
            asked_per_sec: parts.values().map(|(asked, _)| asked).sum(),
            sent_per_sec: parts
                .iter()
                .map(|(part, (_, sent))| {
                    let seconds = seconds_of(*part);
                    if seconds > 0.0 { sent / seconds } else { 0.0 }
                })
                .sum(),
            backlog,
        })
    }

    /// Whether the phase fell behind its schedule: operations never sent, or fewer
    /// sent than 97 % of the rate asked.
    pub fn behind(&self) -> bool {
        self.backlog > 0 || self.sent_per_sec < 0.97 * self.asked_per_sec
    }

    /// `asked 6000 ops/s, sent 2316 ops/s (39 %), 11052 never sent`.
    pub fn describe(&self) -> String {
        let share = if self.asked_per_sec > 0.0 {
            format!(" ({:.0} %)", 100.0 * self.sent_per_sec / self.asked_per_sec)
        } else {
            String::new()
        };
        let never = if self.backlog > 0 {
            format!(", {} never sent", self.backlog)
        } else {
            String::new()
        };
        format!(
            "asked {:.0} ops/s, sent {:.0} ops/s{share}{never}",
            self.asked_per_sec, self.sent_per_sec
        )
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl SummaryRow {
    /// A row of round 1's `phase`, PUTs, nothing measured: for tests to fill in.
    #[cfg(test)]
    pub(crate) fn for_test(phase: &str) -> SummaryRow {
        SummaryRow {
            section: crate::Section::Round,
            round: Some(1),
            phase: phase.into(),
            op: OpKind::Put,
            objects_at_start: 0,
            started_at: "2026-11-29T00:00:00Z".into(),
            duration_s: 10.0,
            client_cpu_s: 0.1,
            stats: crate::metrics::OpSummary::default(),
            index_at_start: Vec::new(),
            index_at_end: Vec::new(),
            interrupted: false,
            resumed: false,
            redone: 0,
            taken_over: false,
            wall_s: None,
            open_loop: None,
            sweep: None,
            endpoints: Vec::new(),
        }
    }

    /// The tag of the row's phase × round × operation in `histograms.hlog`.
    pub fn log_tag(&self) -> String {
        let round = self
            .round
            .map_or_else(|| "-".to_string(), |r| r.to_string());
        crate::hlog::tag(&[self.section.as_str(), &round, &self.phase, self.op.as_str()])
    }

    /// `interrupted`, `resumed`, both joined by `+`, or nothing for a whole phase.
    ///
    /// A taken-over row (its part resumed another host's folder, or in a merged row some
    /// part did) says `taken over` instead of `resumed`.
    pub fn part_label(&self) -> String {
        let resumed = if self.taken_over {
            "taken over"
        } else if self.resumed {
            "resumed"
        } else {
            ""
        };
        let interrupted = if self.interrupted { "interrupted" } else { "" };
        [resumed, interrupted]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("+")
    }
}

/// `summary.json`: every finished phase's rows, and per-operation totals of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Summary {
    pub format_version: u32,
    pub run_id: String,
    pub rows: Vec<SummaryRow>,
    /// Whole-run numbers per operation, from the merged histograms of all phases.
    pub totals: Vec<TotalRow>,
    /// Where each search for a sustainable rate (`search`) ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub searches: Vec<crate::SearchResult>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TotalRow {
    pub op: OpKind,
    pub duration_s: f64,
    #[serde(flatten)]
    pub stats: OpSummary,
}

/// One line of `intervals.jsonl`: one second of one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IntervalRecord {
    pub section: Section,
    pub round: Option<u32>,
    pub phase: String,
    /// 0-based interval number within the phase.
    pub interval: u64,
    /// Seconds from the run's start to the interval's start.
    pub t_s: f64,
    pub duration_s: f64,
    /// Warm-up intervals are kept here but left out of the summary.
    pub warmup: bool,
    pub window: WindowState,
    pub ops: std::collections::BTreeMap<OpKind, OpSummary>,
    /// Bucket index as last polled (tracked targets only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub index: Vec<super::BucketIndex>,
    /// How many recorded intervals this record stands for: 1 in the file; more where
    /// the API merged consecutive intervals of a long phase into one chart point
    /// (counters added, latency histograms merged; time to first byte left out).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub merged: u64,
    /// An `epochs` phase: the epoch (from 1) its reads were in when the interval ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch: Option<u32>,
    /// A run that drives several endpoints: what each did in the interval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub endpoints: Vec<crate::EndpointOps>,
    /// An open-loop phase: the operations per second asked of it in this interval (in a
    /// merged run, the rates of the shards that ran in it added up: a shard paused or
    /// done asks nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_per_sec: Option<f64>,
}

fn one() -> u64 {
    1
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

/// The columns before the tail counts; `endpoint` follows them, last.
const CSV_HEADER: &str = "section,round,phase,op,objects_at_start,started_at,duration_s,client_cpu_s,ops,errors,error_rate,ops_per_sec,bytes,mib_per_sec,keys,keys_per_sec,lat_min_us,lat_mean_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,lat_max_us,ttfb_p50_us,ttfb_p99_us,error_classes,shards_at_start,shards_at_end,part,retries,attempt_error_classes,redone";

/// A CSV field, quoted when it holds a comma, quote or line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Error counts as `class=count` pairs joined by `;`.
pub fn class_cell(counts: &crate::metrics::ErrorCounts) -> String {
    counts
        .iter()
        .map(|(c, n)| format!("{c}={n}"))
        .collect::<Vec<_>>()
        .join(";")
}

/// Writes the summary rows as CSV (`.` decimal separator, one header line). A row of a
/// run that drove several endpoints is followed by one line per endpoint, its part of
/// the row (named in the last column, `endpoint`, empty on the row's own line). Before
/// `endpoint`, a column per tail mark the rows were counted at (`over_1s`, `over_10s`:
/// operations that took the mark or longer), empty where a line has no count.
pub fn write_csv(rows: &[SummaryRow], out: &mut impl Write) -> std::io::Result<()> {
    let marks = crate::tail_csv::marks_of(rows.iter().map(|r| &r.stats.latency_us.slower_than));
    writeln!(
        out,
        "{CSV_HEADER}{},endpoint",
        crate::tail_csv::header(&marks)
    )?;
    for r in rows {
        write_csv_line(r, &r.stats, None, &marks, out)?;
        for e in &r.endpoints {
            write_csv_line(r, &e.stats, Some(&e.endpoint), &marks, out)?;
        }
    }
    Ok(())
}

/// One line of `r` with the figures of `s`: the row's own (`endpoint` None) or an
/// endpoint's part of it, which leaves empty what belongs to the whole row (the
/// client's CPU, the bucket index, the writes redone).
fn write_csv_line(
    r: &SummaryRow,
    s: &OpSummary,
    endpoint: Option<&str>,
    marks: &[u64],
    out: &mut impl Write,
) -> std::io::Result<()> {
    let l = &s.latency_us;
    let (t50, t99) = s
        .ttfb_us
        .map(|t| (t.p50.to_string(), t.p99.to_string()))
        .unwrap_or_default();
    let classes = class_cell(&s.error_classes);
    let attempt_classes = class_cell(&s.attempt_error_classes);
    let whole_row = |cell: String| {
        if endpoint.is_none() {
            cell
        } else {
            String::new()
        }
    };
    writeln!(
        out,
        "{},{},{},{},{},{},{:.3},{},{},{},{:.6},{:.3},{},{:.3},{},{:.3},{},{:.1},{},{},{},{},{},{},{},{},{},{},{},{},{},{}{},{}",
        r.section.as_str(),
        r.round.map(|n| n.to_string()).unwrap_or_default(),
        csv_field(&r.phase),
        r.op,
        r.objects_at_start,
        r.started_at,
        r.duration_s,
        whole_row(format!("{:.3}", r.client_cpu_s)),
        s.ops,
        s.errors,
        s.error_rate,
        s.ops_per_sec,
        s.bytes,
        s.mib_per_sec,
        s.keys,
        s.keys_per_sec,
        l.min,
        l.mean,
        l.p50,
        l.p90,
        l.p99,
        l.p999,
        l.max,
        t50,
        t99,
        csv_field(&classes),
        whole_row(super::shards_cell(&r.index_at_start)),
        whole_row(super::shards_cell(&r.index_at_end)),
        r.part_label(),
        s.retries,
        csv_field(&attempt_classes),
        whole_row(r.redone.to_string()),
        crate::tail_csv::cells(&l.slower_than, marks),
        csv_field(endpoint.unwrap_or_default()),
    )
}

#[cfg(test)]
#[path = "summary_csv_tests.rs"]
mod csv_tests;
