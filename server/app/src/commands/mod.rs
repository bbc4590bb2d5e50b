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
            println!("{}", crate::api::openapi_json());
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
        eprintln!(
            "warning: {}:{}:{}: {}",
            path.display(),
            w.line,
            w.column,
            w.message
        );
    }
    Ok((plan, text))
}
