//! One module per command; each returns the exit code of a normal end.

mod list;
mod ls;
mod run;
mod serve;
mod show;
mod sim;
mod target;
mod transfer;
mod validate;

use crate::CliError;
use crate::cli::{Cli, Command};

pub async fn dispatch(cli: Cli) -> Result<u8, CliError> {
    match cli.command {
        Command::Run(args) => run::run(args).await,
        Command::Validate(args) => validate::validate(&args),
        Command::Ls(args) => ls::ls(&args),
        Command::List(args) => list::list(&args).await,
        Command::Download(args) => transfer::download(&args).await,
        Command::Upload(args) => transfer::upload(&args).await,
        Command::Show(args) => show::show(&args),
        Command::Sim(args) => sim::sim(&args).await,
        Command::Serve(args) => serve::serve(args).await,
        Command::Openapi => {
            stdoutln!("{}", crate::api::openapi_json());
            Ok(crate::exit::OK)
        }
    }
}

/// Loads and validates a workload, printing its warnings; errors are exit code 2.
pub(crate) fn load(
    path: &std::path::Path,
) -> Result<(keystorm_engine::plan::Plan, String), CliError> {
    let (plan, warnings, text) = keystorm_engine::spec::load_workload(path)
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
    if as_path
        .join(keystorm_engine::results::MANIFEST_FILE)
        .is_file()
    {
        return Ok(as_path);
    }
    keystorm_engine::results::find_run(root, id).map_err(|e| {
        let runs = keystorm_engine::results::list_runs(root).unwrap_or_default();
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
