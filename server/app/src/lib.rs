//! keystorm's command line: `run`, `validate`, `ls`, `show`, `sim` and `serve` (the
//! HTTP API and web UI in [`api`]).
//!
//! `main` stays thin; [`run_cli`] is what tests call. Errors surface as one clear
//! line on stderr and an exit code: 0 success, 1 a run that failed or was aborted,
//! 2 bad input (workload, arguments), 130 interrupted.

#[macro_use]
mod output;
pub mod api;
pub mod cli;
mod commands;
mod progress;
mod table;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

pub use cli::Cli;

/// Exit codes.
pub mod exit {
    pub const OK: u8 = 0;
    pub const FAILED: u8 = 1;
    pub const BAD_INPUT: u8 = 2;
    pub const INTERRUPTED: u8 = 130;
}

/// An error with the exit code it deserves.
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    pub fn bad_input(message: impl Into<String>) -> CliError {
        CliError {
            code: exit::BAD_INPUT,
            message: message.into(),
        }
    }

    pub fn failed(message: impl Into<String>) -> CliError {
        CliError {
            code: exit::FAILED,
            message: message.into(),
        }
    }
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        CliError::failed(format!("{e:#}"))
    }
}

/// Parses `args` and runs the command on a fresh tokio runtime.
pub fn main_with_args<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout and usage errors to stderr.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit::BAD_INPUT
            } else {
                exit::OK
            });
        }
    };
    init_logging(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            stderrln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(exit::FAILED);
        }
    };
    let result = runtime.block_on(run_cli(cli));
    output::flush();
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            stderrln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

/// Runs a parsed command; returns the exit code for a normal end.
pub async fn run_cli(cli: Cli) -> Result<u8, CliError> {
    commands::dispatch(cli).await
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("KEYSTORM_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}
