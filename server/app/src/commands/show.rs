//! `keystorm show RUN`: a past run's summary as a table (or JSON).

use std::path::PathBuf;

use keystorm_engine::results::scaling::human_duration;
use keystorm_engine::results::{ListingsReport, ResultStore, find_run, read_listings};

use crate::cli::ShowArgs;
use crate::table::Table;
use crate::{CliError, exit};

pub fn show(args: &ShowArgs) -> Result<u8, CliError> {
    let as_path = PathBuf::from(&args.run);
    let dir = if as_path.join("manifest.json").is_file() {
        as_path
    } else {
        find_run(&args.results.results, &args.run)
            .map_err(|e| CliError::bad_input(e.to_string()))?
    };
    let manifest = ResultStore::read_manifest(&dir).map_err(|e| CliError::failed(e.to_string()))?;
    let summary = ResultStore::read_summary(&dir).map_err(|e| CliError::failed(e.to_string()))?;
    if args.json {
        let text =
            serde_json::to_string_pretty(&summary).map_err(|e| CliError::failed(e.to_string()))?;
        println!("{text}");
        return Ok(exit::OK);
    }
    println!(
        "run {} — workload {} on {} — {} (started {})",
        manifest.run_id,
        manifest.workload,
        manifest.endpoint,
        manifest.status.as_str(),
        manifest.started_at
    );
    print!("{}", crate::table::summary_table(&summary.rows));
    print_listings(&read_listings(&dir), args.extrapolate);
    Ok(exit::OK)
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
            l.phase.round.map_or("-".into(), |n| n.to_string()),
            o.bucket.clone(),
            o.mode.name().to_string(),
            o.concurrency.to_string(),
            o.keys.to_string(),
            format!(
                "{:.2}{}",
                o.seconds,
                if o.complete { "" } else { " (stopped)" }
            ),
            format!("{:.0}", o.keys_per_sec()),
        ]);
    }
    print!("\ncomplete listings:\n{t}");
    for line in &report.lines {
        let Some(fit) = &line.fit else { continue };
        println!(
            "{}: list time = {:.3} s + {:.3} µs per key (R² {:.4}, {} sizes; {:.0} keys/s)",
            line.phase,
            fit.intercept_s,
            fit.slope_s_per_key * 1e6,
            fit.r2,
            fit.points,
            fit.keys_per_sec()
        );
        if let Some(keys) = extrapolate {
            println!(
                "  at this rate, {keys:.3e} keys take {} ({} with {} lister{})",
                human_duration(fit.seconds_for(keys)),
                line.mode,
                line.concurrency,
                if line.concurrency == 1 { "" } else { "s" }
            );
        }
    }
}
