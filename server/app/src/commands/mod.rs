//! One module per command; each returns the exit code of a normal end.

mod agent;
mod compare;
mod diff;
mod exit_code;
mod inputs;
mod key_output;
mod keys;
mod list;
mod list_report;
mod ls;
mod merge;
mod remote_run;
mod report;
mod run;
mod serve;
mod serve_tls;
mod show;
mod signals;
mod sim;
mod sim_section;
mod target;
mod token_source;
mod transfer;
mod validate;

use crate::CliError;
use crate::cli::{Cli, Command};

pub async fn dispatch(cli: Cli) -> Result<u8, CliError> {
    match cli.command {
        Command::Run(args) => run::run(args, cli.command_line).await,
        Command::Validate(args) => validate::validate(&args),
        Command::Ls(args) => ls::ls(&args),
        Command::List(args) => list::list(&args).await,
        Command::Diff(args) => diff::diff(&args).await,
        Command::Keys(args) => keys::keys(&args).await,
        Command::Download(args) => transfer::download(&args).await,
        Command::Upload(args) => transfer::upload(&args).await,
        Command::Show(args) => show::show(&args),
        Command::Compare(args) => compare::compare(&args),
        Command::Report(args) => report::report(&args),
        Command::Merge(args) => merge::merge(&args, cli.command_line),
        Command::Sim(args) => sim::sim(&args).await,
        Command::Serve(args) => serve::serve(args).await,
        Command::Agent(args) => agent::agent(args).await,
        Command::Openapi => {
            stdoutln!("{}", keystorm_server::api::openapi_json());
            Ok(keystorm_console::exit::OK)
        }
    }
}
