//! `keystorm show RUN`: a past run's summary as a table (or JSON).

use keystorm_results::extrapolation::key_count;
use keystorm_results::scaling::{LinearFit, human_duration};
use keystorm_results::{ListingsReport, ResultStore, RunVerdict, ScalingLine, read_listings};

use crate::CliError;
use crate::cli::ShowArgs;
use keystorm_console::exit;
use keystorm_console::table::Table;

pub fn show(args: &ShowArgs) -> Result<u8, CliError> {
    let dir = super::inputs::run_dir(&args.results.results, &args.run)?;
    let manifest = ResultStore::read_manifest(&dir).map_err(|e| CliError::failed(e.to_string()))?;
    let mut summary = ResultStore::read_summary_or_empty(&dir, &manifest.run_id)
        .map_err(|e| CliError::failed(e.to_string()))?;
    let mut rows = keystorm_results::whole_phase_rows(&dir, &summary.rows);
    if let Some(marks) = &args.tail_marks {
        // The parts of a phase run in parts are left uncounted: the log cannot split them.
        for rows in [&mut rows, &mut summary.rows] {
            keystorm_results::recount_tails(&dir, rows, marks)
                .map_err(|e| CliError::failed(e.to_string()))?;
        }
    }
    let integrity = keystorm_results::read_integrity(&dir, &rows);
    let verdict = RunVerdict::read(&dir, &manifest, &rows);
    // Judged on the whole-phase rows already at hand, as the API does.
    let thresholds = keystorm_results::threshold_judge::judge(&manifest.expect, &rows, &integrity);
    let intervals = keystorm_results::uncertainty::row_intervals(&dir, &rows);
    if args.json {
        return print_json(&summary, &verdict, &integrity, &thresholds, &intervals);
    }
    stdoutln!(
        "run {} — workload {} on {} — {} (started {})",
        manifest.run_id,
        manifest.workload,
        manifest.endpoint,
        verdict.headline(),
        manifest.started_at
    );
    for f in &verdict.findings {
        stdoutln!("{}: {}", f.kind.as_str(), f.text);
    }
    if let Some(error) = &manifest.error {
        stdoutln!("failed: {error}");
    }
    if summary.rows.is_empty() {
        stdoutln!("no phase has finished yet");
    } else if args.by == Some(crate::cli::ShowBy::Endpoint) {
        let table = crate::endpoint_table::endpoint_table(&summary.rows, &manifest.endpoint);
        stdout!("{table}");
        return Ok(exit::OK);
    } else {
        stdout!("{}", keystorm_console::table::summary_text(&summary.rows));
        stdout!("{}", keystorm_console::table::curves_text(&summary));
        stdout!("{}", keystorm_console::table::paused_phases_text(&rows));
        stdout!("{}", tails_text(&rows, args.tail_marks.as_ref()));
        stdout!("{}", keystorm_console::table::intervals_text(&intervals));
        stdout!("{}", keystorm_console::table::integrity_text(&integrity));
    }
    if !thresholds.is_empty() {
        stdoutln!("thresholds (expect):");
        stdout!("{}", keystorm_console::table::thresholds_text(&thresholds));
    }
    let timeline = keystorm_results::read_timeline(&dir);
    if !timeline.entries.is_empty() {
        stdoutln!("timeline (seconds from the run's start):");
        stdout!("{}", keystorm_results::timeline_text(&timeline));
    }
    if let Some(c) = &manifest.cleanup {
        stdoutln!("cleanup: {}", c.describe());
    }
    let report = read_listings(&dir);
    print_listings(&report, args.extrapolate);
    print_metadata_scans(&report);
    print_transfers(&report);
    Ok(exit::OK)
}

/// The summary as `summary.json` has it, with the run's verdict and what it proved
/// about the store (`docs/schema/summary.schema.json` describes both).
fn print_json(
    summary: &keystorm_results::Summary,
    verdict: &RunVerdict,
    integrity: &keystorm_results::IntegrityReport,
    thresholds: &[keystorm_results::threshold::ThresholdCheck],
    intervals: &[keystorm_results::uncertainty::RowIntervals],
) -> Result<u8, CliError> {
    let failed = |e: serde_json::Error| CliError::failed(e.to_string());
    let mut value = serde_json::to_value(summary).map_err(failed)?;
    if let Some(object) = value.as_object_mut() {
        object.insert(
            "verdict".into(),
            serde_json::to_value(verdict).map_err(failed)?,
        );
        object.insert(
            "integrity".into(),
            serde_json::to_value(integrity).map_err(failed)?,
        );
        object.insert(
            "thresholds".into(),
            serde_json::to_value(thresholds).map_err(failed)?,
        );
        object.insert(
            "intervals".into(),
            serde_json::to_value(intervals).map_err(failed)?,
        );
        object.insert(
            "sweeps".into(),
            serde_json::to_value(keystorm_results::sweep_curves(
                &summary.rows,
                &summary.searches,
            ))
            .map_err(failed)?,
        );
    }
    let text = serde_json::to_string_pretty(&value).map_err(failed)?;
    stdoutln!("{text}");
    Ok(exit::OK)
}

/// The operations at or over each mark, per phase; with marks asked for, that none
/// took the first of them when none did (else the silence reads as not counted).
fn tails_text(
    rows: &[keystorm_results::SummaryRow],
    asked: Option<&keystorm_results::tail_marks::TailMarks>,
) -> String {
    let text = keystorm_console::table::tails_text(rows);
    match asked {
        Some(marks) if text.is_empty() => format!(
            "no operation took {} or more\n",
            keystorm_results::tail_marks::mark_words(marks.as_us()[0])
        ),
        _ => text,
    }
}

fn round_of(phase: &keystorm_results::PhaseRef) -> String {
    phase.round.map_or("-".into(), |n| n.to_string())
}

/// What each metadata scan's HEADs found: counts and rate, then per metadata name how
/// many objects carry it and its most common values.
fn print_metadata_scans(report: &ListingsReport) {
    if report.metadata_scans.is_empty() {
        return;
    }
    let mut t = Table::new(&[
        "phase",
        "round",
        "bucket",
        "HEADs",
        "errors",
        "missing",
        "HEAD workers",
        "seconds",
        "HEAD/s",
    ])
    .align_right(3);
    for r in &report.metadata_scans {
        let s = &r.scan;
        let rate = if s.seconds > 0.0 {
            s.heads as f64 / s.seconds
        } else {
            0.0
        };
        t.row(vec![
            s.phase.name.clone(),
            round_of(&s.phase),
            s.bucket.clone(),
            s.heads.to_string(),
            s.head_errors.to_string(),
            s.missing.to_string(),
            s.head_workers.to_string(),
            format!("{:.2}", s.seconds),
            format!("{rate:.0}"),
        ]);
    }
    stdout!("\nmetadata scans:\n{t}");
    for r in &report.metadata_scans {
        let m = &r.scan.metadata;
        stdoutln!(
            "{} / {}: {} objects, {} without metadata",
            r.scan.phase.name,
            r.scan.bucket,
            m.objects,
            m.without_metadata
        );
        for (name, n) in &m.names {
            let shown: Vec<String> = n
                .top_values(3)
                .iter()
                .map(|(v, c)| format!("{v:?} {c}"))
                .collect();
            let more = n.values.len().saturating_sub(3);
            stdoutln!(
                "  {name}: {} objects; {}{}{}",
                n.objects,
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more values")
                } else {
                    String::new()
                },
                if n.other_values > 0 {
                    format!(" ({} objects with values past the cap)", n.other_values)
                } else {
                    String::new()
                }
            );
        }
        if m.other_names > 0 {
            stdoutln!("  {} more names past the cap", m.other_names);
        }
    }
}

/// Each download or upload pass: what moved, what was already there, and the rates.
fn print_transfers(report: &ListingsReport) {
    if report.transfers.is_empty() {
        return;
    }
    let mut t = Table::new(&[
        "phase",
        "round",
        "direction",
        "objects",
        "MiB",
        "skipped",
        "failed",
        "seconds",
        "MiB/s",
        "stream p50 MiB/s",
        "stream max MiB/s",
    ])
    .align_right(3);
    for r in &report.transfers {
        let o = &r.outcome;
        t.row(vec![
            r.phase.name.clone(),
            round_of(&r.phase),
            o.direction.clone(),
            o.objects.to_string(),
            format!("{:.1}", o.bytes as f64 / 1048576.0),
            o.skipped.to_string(),
            o.failed.to_string(),
            format!(
                "{:.2}{}",
                o.seconds,
                if o.complete { "" } else { " (stopped)" }
            ),
            format!("{:.1}", o.mib_per_sec),
            format!("{:.1}", o.per_stream.p50),
            format!("{:.1}", o.per_stream.max),
        ]);
    }
    stdout!("\ntransfers:\n{t}");
    for r in &report.transfers {
        for f in &r.outcome.failures {
            stdoutln!("  {}: {f}", r.phase.name);
        }
    }
}

/// The run's complete listings and, per list phase measured at two sizes or more, the
/// fitted line and what it predicts for `extrapolate` keys.
fn print_listings(report: &ListingsReport, extrapolate: Option<f64>) {
    if report.listings.is_empty() {
        return;
    }
    let mut t = Table::new(&[
        "phase", "round", "bucket", "mode", "listers", "keys", "seconds", "keys/s",
    ])
    .align_right(4);
    for l in &report.listings {
        let o = &l.outcome;
        t.row(vec![
            l.phase.name.clone(),
            round_of(&l.phase),
            o.bucket.clone(),
            o.mode.name().to_string(),
            o.listers.to_string(),
            o.keys.to_string(),
            format!(
                "{:.2}{}",
                o.seconds,
                if o.complete { "" } else { " (stopped)" }
            ),
            format!("{:.0}", o.keys_per_sec()),
        ]);
    }
    stdout!("\ncomplete listings:\n{t}");
    for line in &report.lines {
        let Some(fit) = &line.fit else { continue };
        stdoutln!(
            "{}: list time = {:.3} s + {:.3} µs per key (R² {:.4}, {} sizes; {:.0} keys/s)",
            line.phase,
            fit.intercept_s,
            fit.slope_s_per_key * 1e6,
            fit.r2,
            fit.points,
            fit.keys_per_sec()
        );
        match extrapolate {
            Some(keys) => stdoutln!("  {}", extrapolation_text(line, fit, keys)),
            None => {
                if let Some(refusal) = &fit.refusal {
                    stdoutln!("  not extrapolated: {refusal}");
                }
            }
        }
    }
}

/// What the line says about `keys` keys: the time with its 95 % prediction interval, or
/// why it says nothing.
fn extrapolation_text(line: &ScalingLine, fit: &LinearFit, keys: f64) -> String {
    match fit.extrapolate(keys) {
        Ok(p) => format!(
            "at this rate, {} keys take {} (95 % prediction interval {} to {}; {} with {} lister{})",
            key_count(keys),
            human_duration(p.seconds),
            human_duration(p.low_s),
            human_duration(p.high_s),
            line.mode,
            line.listers,
            if line.listers == 1 { "" } else { "s" }
        ),
        Err(refusal) => format!("not extrapolated to {} keys: {refusal}", key_count(keys)),
    }
}
