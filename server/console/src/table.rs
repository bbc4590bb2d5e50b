//! Plain-text tables for the terminal: the run summary and the list of runs.

use std::fmt;

use keystorm_results::SummaryRow;

pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Columns aligned right (numbers).
    right: Vec<bool>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
            right: vec![false; header.len()],
        }
    }

    pub fn align_right(mut self, from: usize) -> Table {
        for r in self.right.iter_mut().skip(from) {
            *r = true;
        }
        self
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |f: &mut fmt::Formatter<'_>, cells: &[String]| -> fmt::Result {
            let mut out = String::new();
            for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
                if i > 0 {
                    out.push_str("  ");
                }
                if self.right[i] {
                    out.push_str(&format!("{c:>w$}"));
                } else {
                    out.push_str(&format!("{c:<w$}"));
                }
            }
            writeln!(f, "{}", out.trim_end())
        };
        line(f, &self.header)?;
        for row in &self.rows {
            line(f, row)?;
        }
        Ok(())
    }
}

/// Microseconds as a readable latency: `850 µs`, `12.3 ms`, `1.20 s` (the results
/// model's wording, which its texts of stalls use too).
pub fn latency(us: u64) -> String {
    keystorm_results::latency_text(us)
}

/// The row's phase with the part it covers, so two parts of a phase are told apart:
/// `write`, `write (interrupted)`, `write (resumed; 6 redone)`, `write (taken over)`.
pub fn phase_cell(r: &SummaryRow) -> String {
    let redone = (r.redone > 0).then(|| format!("{} redone", r.redone));
    let notes: Vec<String> = [Some(r.part_label()), redone]
        .into_iter()
        .flatten()
        .filter(|n| !n.is_empty())
        .collect();
    if notes.is_empty() {
        r.phase.clone()
    } else {
        format!("{} ({})", r.phase, notes.join("; "))
    }
}

/// The per-round summary: one line per phase × round × operation.
pub fn summary_table(rows: &[SummaryRow]) -> Table {
    let mut t = Table::new(&[
        "phase", "round", "op", "objects", "ops", "ops/s", "MiB/s", "p50", "p90", "p99", "p99.9",
        "max", "errors",
    ])
    .align_right(3);
    for r in rows {
        let s = &r.stats;
        let l = &s.latency_us;
        t.row(vec![
            phase_cell(r),
            r.round.map(|n| n.to_string()).unwrap_or_else(|| "-".into()),
            r.op.to_string(),
            r.objects_at_start.to_string(),
            s.ops.to_string(),
            format!("{:.1}", s.ops_per_sec),
            format!("{:.2}", s.mib_per_sec),
            latency(l.p50),
            latency(l.p90),
            latency(l.p99),
            latency(l.p999),
            latency(l.max),
            errors_cell(s),
        ]);
    }
    t
}

/// The summary table, then a line per open-loop phase: the rate it asked against what
/// it sent, what it never sent, and how late its requests left (schedule lag), so the
/// client's delay is told apart from the store's.
pub fn summary_text(rows: &[SummaryRow]) -> String {
    let mut out = summary_table(rows).to_string().trim_end().to_string();
    let mut seen: Vec<(&str, Option<u32>, &str, bool)> = Vec::new();
    for r in rows {
        let Some(o) = &r.open_loop else {
            continue;
        };
        let key = (r.section.as_str(), r.round, r.phase.as_str(), r.resumed);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let lags: Vec<String> = rows
            .iter()
            .filter(|x| (x.section.as_str(), x.round, x.phase.as_str(), x.resumed) == key)
            .filter_map(|x| {
                let l = x.stats.schedule_lag_us?;
                Some(format!(
                    "{} p50 {} p99 {}",
                    x.op,
                    latency(l.p50),
                    latency(l.p99)
                ))
            })
            .collect();
        let place = r.round.map_or_else(
            || format!("{} {}", r.section.as_str(), r.phase),
            |n| format!("round {n} {}", r.phase),
        );
        let lag = if lags.is_empty() {
            String::new()
        } else {
            format!("; schedule lag {}", lags.join(", "))
        };
        let behind = if o.behind() { " — fell behind" } else { "" };
        out.push_str(&format!(
            "\nopen loop, {place}: {}{lag}{behind}",
            o.describe()
        ));
    }
    out.push('\n');
    out
}

/// Where each rate sweep stopped keeping up and where each search for a sustainable
/// rate ended, a line each (a search's steps are judged by its SLOs, not as a sweep's);
/// nothing when neither ran.
pub fn curves_text(summary: &keystorm_results::Summary) -> String {
    let searched = |c: &keystorm_results::SweepCurve| {
        summary.searches.iter().any(|s| {
            (s.section, s.round, s.phase.as_str()) == (c.section, c.round, c.sweep.as_str())
        })
    };
    let sweeps = keystorm_results::sweep_curves(&summary.rows, &summary.searches)
        .into_iter()
        .filter(|c| !searched(c))
        .map(|c| format!("{}\n", sweep_line(&c)));
    let searches = summary
        .searches
        .iter()
        .map(|s| format!("{}\n", s.describe()));
    sweeps.chain(searches).collect()
}

/// `sweep put, round 1, put: kept up to 2000 ops/s (p50 2.4 ms, p99 5.6 ms); behind
/// from 4000 ops/s (sent 90 %, p99 211.3 ms)`.
fn sweep_line(c: &keystorm_results::SweepCurve) -> String {
    let place = c
        .round
        .map_or_else(|| c.section.as_str().to_string(), |n| format!("round {n}"));
    let head = format!("sweep {}, {place}, {}: ", c.sweep, c.op);
    let behind = c.first_behind().map(|b| {
        format!(
            "{:.0} ops/s (sent {:.0} %, p99 {})",
            b.asked_per_sec,
            100.0 * b.sent_per_sec / b.asked_per_sec,
            latency(b.p99_us)
        )
    });
    let kept = c.knee().map(|k| {
        format!(
            "kept up to {:.0} ops/s (p50 {}, p99 {})",
            k.asked_per_sec,
            latency(k.p50_us),
            latency(k.p99_us)
        )
    });
    let (kept, behind) = match (kept, behind) {
        (Some(k), Some(b)) => (k, format!("; behind from {b}")),
        (Some(k), None) => (k, "; kept up at every step".to_string()),
        (None, Some(b)) => (String::new(), format!("behind from its first step, {b}")),
        (None, None) => (String::new(), "no step measured".to_string()),
    };
    format!("{head}{kept}{behind}")
}

/// The operations slower than a percentile of many shows, per whole-phase row, at the
/// marks it was counted at: `round 2 write put: 16 took 1 s or more (3 of them 10 s or
/// more)`; nothing when none.
pub fn tails_text(rows: &[SummaryRow]) -> String {
    rows.iter()
        .filter_map(|r| {
            let words = r.stats.latency_us.slower_than.words()?;
            Some(format!(
                "{} {}: {words}\n",
                keystorm_results::verdict_place(r),
                r.op.as_str()
            ))
        })
        .collect()
}

/// Each row's throughput and latency percentiles with their 95 % intervals:
/// `round 1 read get: 1840.2 ops/s (1812.0–1868.9, ±1.5 %); p50 410 µs (402–418),
/// p99 1.9 ms (1.7–2.2 ms) — 30 s`, or why a row has none.
pub fn intervals_text(rows: &[keystorm_results::uncertainty::RowIntervals]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "95 % intervals (a bootstrap over each phase's seconds; docs/intervals.md):\n",
    );
    for r in rows {
        let place = keystorm_results::place_words(r.section, r.round, &r.phase);
        let said = match (&r.ops_per_sec, &r.none_because) {
            (Some(i), _) => {
                let mut said = format!(
                    "{:.1} ops/s ({:.1}–{:.1}, ±{:.1} %)",
                    i.value,
                    i.low,
                    i.high,
                    100.0 * i.half_width_share()
                );
                for (name, e) in [
                    ("p50", &r.p50_us),
                    ("p99", &r.p99_us),
                    ("p99.9", &r.p999_us),
                ] {
                    if let Some(e) = e {
                        said.push_str(&format!(
                            "; {name} {} ({}–{})",
                            latency(e.value as u64),
                            latency(e.low as u64),
                            latency(e.high as u64)
                        ));
                    }
                }
                format!("{said} — {} s", r.seconds)
            }
            (None, Some(why)) => format!("no interval: {why}"),
            (None, None) => "no interval".to_string(),
        };
        out.push_str(&format!("  {place} {}: {said}\n", r.op.as_str()));
    }
    out
}

/// The phases whose parts left a pause between them (whole-phase rows, or a merged
/// run's): `round 1 read: ran 20.0 s in 26.0 s of wall clock (paused 6.0 s); its
/// rates divide by the 20.0 s it ran (at 1000 ops/s over the wall clock)`.
pub fn paused_phases_text(rows: &[SummaryRow]) -> String {
    let mut out = String::new();
    let mut seen: Vec<(&str, Option<u32>, &str)> = Vec::new();
    for r in rows {
        let Some(wall) = r.wall_s.filter(|w| *w > r.duration_s + 0.5) else {
            continue;
        };
        let key = (r.section.as_str(), r.round, r.phase.as_str());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let ops: u64 = rows
            .iter()
            .filter(|x| (x.section.as_str(), x.round, x.phase.as_str()) == key)
            .map(|x| x.stats.ops)
            .sum();
        out.push_str(&format!(
            "{}: ran {:.1} s in {wall:.1} s of wall clock (paused {:.1} s); its rates divide \
             by the {:.1} s it ran ({:.0} ops/s over the wall clock)\n",
            keystorm_results::verdict_place(r),
            r.duration_s,
            wall - r.duration_s,
            r.duration_s,
            ops as f64 / wall
        ));
    }
    out
}

/// Examples of corrupt or missing objects printed under the verdict.
const INTEGRITY_EXAMPLES_SHOWN: usize = 10;

/// `  met     round 1 write: put.p99 < 20ms (4.2 ms)`: one line per threshold judged.
pub fn thresholds_text(checks: &[keystorm_results::threshold::ThresholdCheck]) -> String {
    checks
        .iter()
        .map(|c| {
            format!(
                "  {:<7} {}: {} ({})\n",
                if c.passed { "met" } else { "MISSED" },
                c.phase,
                c.expect,
                c.actual_text
            )
        })
        .collect()
}

/// What a run proved about the store, for the terminal: nothing for a run that
/// verified nothing, audited nothing and lost nothing; a line when all was as written
/// and one per audited bucket; else the counts and the first objects found, with where
/// their bodies differed or how they were listed.
pub fn integrity_text(r: &keystorm_results::IntegrityReport) -> String {
    if r.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    if !r.verified_phases.is_empty() || r.corrupt > 0 || r.missing > 0 {
        out.push_str(&verification_text(r));
    }
    for a in &r.audits {
        out.push_str(&audit_text(a));
    }
    out
}

fn verification_text(r: &keystorm_results::IntegrityReport) -> String {
    let checked = match r.verified_phases.len() {
        0 => "no phase verified its GETs".to_string(),
        1 => format!("verified {} GETs in 1 phase", r.verified_gets),
        n => format!("verified {} GETs in {n} phases", r.verified_gets),
    };
    if r.corrupt == 0 && r.missing == 0 {
        return format!("integrity: {checked}: every body as written, no live key missing\n");
    }
    let mut out = format!(
        "integrity: NOT AS WRITTEN: {} corrupt, {} missing ({checked})\n",
        r.corrupt, r.missing
    );
    for e in r.examples.iter().take(INTEGRITY_EXAMPLES_SHOWN) {
        out.push_str(&format!(
            "  {} {}/{}: {}\n",
            e.class, e.bucket, e.key, e.detail
        ));
    }
    let more = r.examples.len().saturating_sub(INTEGRITY_EXAMPLES_SHOWN);
    if more > 0 {
        out.push_str(&format!("  ({more} more in the run's events)\n"));
    }
    out
}

/// One bucket's audit: `audit round 2 check, bucket b: 11411 keys listed exactly as
/// written (…)`, or the counts of what was not and the first keys.
fn audit_text(a: &keystorm_results::AuditEvent) -> String {
    let c = &a.counts;
    let place = match a.phase.round {
        Some(n) => format!("round {n} {}", a.phase.name),
        None => format!("{} {}", a.phase.section.as_str(), a.phase.name),
    };
    let speed = format!(
        "listed in {:.1} s, {:.0} keys/s; compared in {:.1} s",
        a.list_seconds,
        a.listed_per_sec(),
        a.compare_seconds
    );
    if c.clean() {
        return format!(
            "audit {place}, bucket {}: {} keys listed exactly as written ({speed})\n",
            a.bucket, c.expected
        );
    }
    let mut out = format!(
        "audit {place}, bucket {}: NOT AS WRITTEN: {} missing, {} doubled, {} extra, {} size \
         mismatches ({} keys expected, {} listed; {speed})\n",
        a.bucket, c.missing, c.doubled, c.extra, c.size_mismatch, c.expected, c.listed
    );
    for e in a.examples.iter().take(INTEGRITY_EXAMPLES_SHOWN) {
        out.push_str(&format!(
            "  {} {}: {}\n",
            e.finding.as_str(),
            e.key,
            e.detail
        ));
    }
    let more = a.examples.len().saturating_sub(INTEGRITY_EXAMPLES_SHOWN);
    if more > 0 {
        out.push_str(&format!("  ({more} more in the run's events)\n"));
    }
    out
}

/// Failed operations with their classes, and the retries when there were any:
/// `3 (timeout=3); retries 812`.
pub fn errors_cell(s: &keystorm_results::metrics::OpSummary) -> String {
    let mut cell = if s.errors == 0 {
        "0".to_string()
    } else {
        format!(
            "{} ({})",
            s.errors,
            s.error_classes
                .iter()
                .map(|(c, n)| format!("{c}={n}"))
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    if s.retries > 0 {
        cell.push_str(&format!("; retries {}", s.retries));
    }
    cell
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_units_are_written_out() {
        assert_eq!(latency(850), "850 µs");
        assert_eq!(latency(12_345), "12.3 ms");
        assert_eq!(latency(1_200_000), "1.20 s");
    }

    #[test]
    fn columns_line_up() {
        let mut t = Table::new(&["a", "n"]).align_right(1);
        t.row(vec!["long-name".into(), "5".into()]);
        t.row(vec!["x".into(), "12345".into()]);
        let s = t.to_string();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[1], "long-name      5");
        assert_eq!(lines[2], "x          12345");
    }

    /// A PUT row of an open-loop phase of round `round` with these stats.
    fn open_loop_row(
        round: u32,
        phase: &str,
        stats: keystorm_results::metrics::OpSummary,
        open_loop: keystorm_results::OpenLoop,
    ) -> SummaryRow {
        SummaryRow {
            section: keystorm_results::Section::Round,
            round: Some(round),
            phase: phase.into(),
            op: keystorm_types::OpKind::Put,
            objects_at_start: 0,
            started_at: String::new(),
            duration_s: 10.0,
            client_cpu_s: 0.0,
            stats,
            index_at_start: Vec::new(),
            index_at_end: Vec::new(),
            interrupted: false,
            resumed: false,
            redone: 0,
            taken_over: false,
            wall_s: None,
            open_loop: Some(open_loop),
            sweep: None,
            endpoints: Vec::new(),
        }
    }

    #[test]
    fn a_sweep_says_up_to_which_step_it_kept_up_and_where_it_fell_behind() {
        use keystorm_results::OpenLoop;
        use keystorm_results::metrics::{OpSummary, Percentiles};
        let step = |asked: f64, sent: f64, p99: u64| SummaryRow {
            sweep: Some("put".into()),
            ..open_loop_row(
                1,
                &format!("put@{asked}"),
                OpSummary {
                    latency_us: Percentiles {
                        p50: p99 / 2,
                        p99,
                        ..Percentiles::default()
                    },
                    ..OpSummary::default()
                },
                OpenLoop {
                    asked_per_sec: asked,
                    sent_per_sec: sent,
                    backlog: 0,
                },
            )
        };
        // Out of order, and a step past the knee that kept up again: the knee is the
        // last step kept before the first that fell behind.
        let rows = [
            step(2000.0, 1995.0, 5_600),
            step(1000.0, 1000.0, 2_700),
            step(8000.0, 7990.0, 900_000),
            step(4000.0, 3590.0, 211_300),
        ];
        let summary = |rows: Vec<SummaryRow>| keystorm_results::Summary {
            format_version: 1,
            run_id: "r".into(),
            rows,
            totals: Vec::new(),
            searches: Vec::new(),
        };
        let text = curves_text(&summary(rows.to_vec()));
        assert_eq!(
            text.trim_end(),
            "sweep put, round 1, put: kept up to 2000 ops/s (p50 2.8 ms, p99 5.6 ms); behind \
             from 4000 ops/s (sent 90 %, p99 211.3 ms)"
        );
        let behind_at_once = curves_text(&summary(vec![step(500.0, 100.0, 9_000)]));
        assert_eq!(
            behind_at_once.trim_end(),
            "sweep put, round 1, put: behind from its first step, 500 ops/s (sent 20 %, p99 9.0 \
             ms)"
        );
    }

    #[test]
    fn an_open_loop_phase_that_fell_behind_says_so_under_the_table() {
        use keystorm_results::OpenLoop;
        use keystorm_results::metrics::{OpSummary, Percentiles};
        let row = open_loop_row(
            2,
            "write",
            OpSummary {
                ops: 23_160,
                schedule_lag_us: Some(Percentiles {
                    p50: 812_000,
                    p99: 1_630_000,
                    ..Percentiles::default()
                }),
                ..OpSummary::default()
            },
            OpenLoop {
                asked_per_sec: 6000.0,
                sent_per_sec: 2316.0,
                backlog: 36_840,
            },
        );
        let text = summary_text(&[row]);
        let last = text.lines().last().unwrap();
        assert_eq!(
            last,
            "open loop, round 2 write: asked 6000 ops/s, sent 2316 ops/s (39 %), 36840 never \
             sent; schedule lag put p50 812.0 ms p99 1.63 s — fell behind"
        );
        assert!(text.ends_with('\n'));
    }
}
