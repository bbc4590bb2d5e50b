//! `keystorm compare BASE NEW…`: runs compared with a base, each metric's change
//! judged against the noise (the results crate's `comparison`): a table led by the
//! changes that are real, or `--json`; with `--fail-on regressed`, exit 1 when one
//! regressed, so a pipeline can gate a release on it.

use keystorm_console::exit;
use keystorm_console::table::{Table, latency};
use keystorm_results::comparison::{
    self, Change, CompareOptions, Comparison, RunChanges, Verdict, percent,
};
use keystorm_results::uncertainty::Estimate;

use crate::CliError;
use crate::cli::{CompareArgs, FailOn, JudgeArgs};

pub fn compare(args: &CompareArgs) -> Result<u8, CliError> {
    let options = options_of(&args.judge)?;
    let base = super::inputs::run_dir(&args.results.results, &args.base)?;
    let news = args
        .new
        .iter()
        .map(|n| super::inputs::run_dir(&args.results.results, n))
        .collect::<Result<Vec<_>, _>>()?;
    let comparison = comparison::compare_dirs(&base, &news, &options)
        .map_err(|e| CliError::bad_input(format!("cannot read a run to compare: {e}")))?;
    if args.json {
        let text = serde_json::to_string_pretty(&comparison)
            .map_err(|e| CliError::failed(e.to_string()))?;
        stdoutln!("{text}");
    } else {
        stdout!("{}", comparison_text(&comparison));
    }
    let regressed: usize = comparison.runs.iter().map(|r| r.counts.regressed).sum();
    if args.fail_on == Some(FailOn::Regressed) && regressed > 0 {
        stderrln!(
            "regressed: {regressed} metric{}; exit {}",
            if regressed == 1 { "" } else { "s" },
            exit::FAILED
        );
        return Ok(exit::FAILED);
    }
    Ok(exit::OK)
}

/// The options the flags ask for, every name checked.
pub(super) fn options_of(judge: &JudgeArgs) -> Result<CompareOptions, CliError> {
    CompareOptions::from_names(judge.noise_floor, &judge.metrics, &judge.ops).map_err(|e| {
        let flag = match e {
            comparison::OptionError::Metric(_) => "--metrics",
            comparison::OptionError::Op(_) => "--ops",
        };
        CliError::bad_input(format!("{flag}: {e}"))
    })
}

/// The comparison as text: per run, the verdicts counted, the real changes largest
/// first, then every metric.
fn comparison_text(c: &Comparison) -> String {
    let mut out = format!(
        "base {} (workload {}, started {})\nnoise floor ±{} %; changes with their 95 % \
         intervals (docs/intervals.md)\n",
        c.base.run_id,
        c.base.workload,
        c.base.started_at,
        c.noise_floor * 100.0
    );
    for run in &c.runs {
        out.push('\n');
        out.push_str(&run_text(run));
    }
    out
}

fn run_text(run: &RunChanges) -> String {
    let n = &run.counts;
    let mut out = format!(
        "{} (workload {}, started {}) against the base: {} improved, {} regressed, {} no \
         change, {} inconclusive, {} not judged\n",
        run.run.run_id,
        run.run.workload,
        run.run.started_at,
        n.improved,
        n.regressed,
        n.no_change,
        n.inconclusive,
        n.not_judged
    );
    if !run.paragraph.is_empty() {
        out.push_str(&format!("{}\n", run.paragraph));
    }
    let mut real: Vec<&Change> = run
        .changes
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Improved | Verdict::Regressed))
        .collect();
    real.sort_by(|a, b| size(b).total_cmp(&size(a)));
    if real.is_empty() {
        out.push_str("no change beyond the noise\n");
    } else {
        out.push_str("changes beyond the noise, largest first:\n");
        for c in &real {
            out.push_str(&format!(
                "  {:<9}  {} {} {}: {} → {}, {}\n",
                c.verdict.as_str(),
                c.place(),
                c.op.as_str(),
                c.metric,
                value_cell(c, c.base.as_ref()),
                value_cell(c, c.new.as_ref()),
                change_cell(c)
            ));
        }
    }
    let mut table = Table::new(&[
        "PLACE",
        "OP",
        "METRIC",
        "BASE",
        "NEW",
        "CHANGE (95 %)",
        "VERDICT",
    ]);
    for c in &run.changes {
        table.row(vec![
            c.place(),
            c.op.as_str().to_string(),
            c.metric.clone(),
            value_cell(c, c.base.as_ref()),
            value_cell(c, c.new.as_ref()),
            change_cell(c),
            c.verdict.as_str().to_string(),
        ]);
    }
    out.push_str("every metric:\n");
    out.push_str(&table.to_string());
    let unsettled: Vec<&Change> = run
        .changes
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Inconclusive | Verdict::Lag))
        .collect();
    if !unsettled.is_empty() {
        out.push_str("not settled:\n");
        for c in unsettled {
            out.push_str(&format!(
                "  {} {} {}: {}\n",
                c.place(),
                c.op.as_str(),
                c.metric,
                c.why
            ));
        }
    }
    if !run.only_in_base.is_empty() {
        out.push_str(&format!(
            "only in the base: {}\n",
            run.only_in_base.join(", ")
        ));
    }
    if !run.only_in_new.is_empty() {
        out.push_str(&format!(
            "only in this run: {}\n",
            run.only_in_new.join(", ")
        ));
    }
    out
}

/// How large a change is, either way (a doubling as large as a halving).
fn size(c: &Change) -> f64 {
    c.ratio.map_or(f64::INFINITY, |r| r.value.ln().abs())
}

/// A side's figure in its metric's unit with the half-width of its interval.
fn value_cell(c: &Change, e: Option<&Estimate>) -> String {
    let Some(e) = e else {
        return "–".into();
    };
    let value = match c.metric.as_str() {
        "ops_per_sec" => format!("{:.1}/s", e.value),
        "sustainable_rate" => format!("{:.0}/s", e.value),
        "mib_per_sec" => format!("{:.2} MiB/s", e.value),
        "p50" | "p99" | "p99.9" => latency(e.value as u64),
        // Shares: error_rate and the tails.
        _ => format!("{:.3} %", e.value * 100.0),
    };
    let share = e.half_width_share();
    // A sustainable rate's interval is its search's bracket, the rate at its low end.
    if (e.value > 0.0 && share > 0.5) || c.metric == "sustainable_rate" {
        // An interval wider than the figure reads better as its bounds than as ±.
        let bound = |v: f64| match c.metric.as_str() {
            "p50" | "p99" | "p99.9" => latency(v as u64),
            "ops_per_sec" => format!("{v:.1}"),
            "sustainable_rate" => format!("{v:.0}"),
            "mib_per_sec" => format!("{v:.2}"),
            _ => format!("{:.3} %", v * 100.0),
        };
        format!("{value} ({}–{})", bound(e.low), bound(e.high))
    } else if e.value > 0.0 && e.high > e.low {
        format!("{value} ±{:.1} %", 100.0 * share)
    } else {
        value
    }
}

fn change_cell(c: &Change) -> String {
    match c.ratio {
        Some(r) => format!(
            "{} ({} to {})",
            percent(r.value),
            percent(r.low),
            percent(r.high)
        ),
        None if c.why.starts_with("from 0") => "from 0".into(),
        None if c.why == "0 in both" => "0 in both".into(),
        None => "–".into(),
    }
}
