//! `keystorm ls`: past runs, newest first (as the web UI lists them).

use crate::CliError;
use crate::cli::ResultsArgs;
use keystorm_console::exit;
use keystorm_console::table::Table;

pub fn ls(args: &ResultsArgs) -> Result<u8, CliError> {
    let runs =
        keystorm_results::list_runs(&args.results).map_err(|e| CliError::failed(e.to_string()))?;
    if runs.is_empty() {
        stdoutln!("no runs in {}", args.results.display());
        return Ok(exit::OK);
    }
    let mut t = Table::new(&[
        "run", "workload", "verdict", "started", "endpoint", "labels",
    ]);
    for (dir, m) in runs.into_iter().rev() {
        let labels = m
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",");
        let rows = keystorm_results::ResultStore::read_summary_or_empty(&dir, &m.run_id)
            .map(|s| s.rows)
            .unwrap_or_default();
        let verdict = keystorm_results::RunVerdict::listed(&m, &rows).headline();
        t.row(vec![
            m.run_id,
            m.workload,
            verdict,
            m.started_at,
            m.endpoint,
            labels,
        ]);
    }
    stdout!("{t}");
    Ok(exit::OK)
}
