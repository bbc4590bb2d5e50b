//! What several commands read: a workload file (validated, its warnings printed) and
//! a past run's folder (by path, id or unique prefix).

use crate::CliError;

/// Loads and validates a workload, printing its warnings; errors are exit code 2.
pub(crate) fn load(
    path: &std::path::Path,
) -> Result<(keystorm_workload::plan::Plan, String), CliError> {
    let (plan, warnings, text) = keystorm_workload::spec::load_workload(path)
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    for w in warnings {
        stderrln!(
            "warning: {}:{}:{}: {}",
            path.display(),
            w.line,
            w.column,
            w.message
        );
    }
    Ok((plan, text))
}

/// The folder of run `id`: a run folder given as a path, a run id, or a unique prefix of
/// one in `root`; a prefix that fits several runs says which.
pub(crate) fn run_dir(root: &std::path::Path, id: &str) -> Result<std::path::PathBuf, CliError> {
    let as_path = std::path::PathBuf::from(id);
    if as_path.join(keystorm_results::MANIFEST_FILE).is_file() {
        return Ok(as_path);
    }
    keystorm_results::find_run(root, id).map_err(|e| {
        let runs = keystorm_results::list_runs(root).unwrap_or_default();
        let fitting: Vec<&str> = runs
            .iter()
            .map(|(_, m)| m.run_id.as_str())
            .filter(|r| r.starts_with(id))
            .collect();
        CliError::bad_input(match fitting.as_slice() {
            [first, .., last] => format!(
                "{} runs start with {id:?} ({first} .. {last}): give more of the id",
                fitting.len()
            ),
            _ if runs.is_empty() => format!(
                "no run {id:?}: {} holds no runs (--results or KEYSTORM_RESULTS picks the folder)",
                root.display()
            ),
            _ => format!("{e} ({}; `keystorm ls` lists them)", root.display()),
        })
    })
}
