//! keystorm's command line: `run`, `validate`, `ls`, `show`, `list`, `sim`, `serve`,
//! `agent` and the rest, each command's flags in [`cli`] and its action in `commands`.
//! The programs it starts live in crates of their own: the HTTP API and controller in
//! `keystorm-server`, the agent in `keystorm-agent`.
//!
//! `main` stays thin: [`main_with_args`] parses and runs a command line. Tests that
//! need no process of their own call [`run_captured`], which runs one in-process and
//! hands back its exit code and what it printed. Errors surface as one clear line on
//! stderr and an exit code: 0 success, 1 a run that failed or was aborted, 2 bad input
//! (workload, arguments), 130 interrupted.

#[macro_use]
extern crate keystorm_console;

pub mod cli;
mod commands;
mod endpoint_table;
mod error;

use std::ffi::OsString;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use keystorm_console::{exit, output};

pub use cli::Cli;
pub use error::CliError;

/// Parses `args` and runs the command on a fresh tokio runtime.
pub fn main_with_args<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match parse(args) {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout and usage errors to stderr.
            let _ = e.print();
            return ExitCode::from(clap_exit_code(&e));
        }
    };
    init_logging(cli.verbose);
    keep_environment_keys_secret();
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
    ExitCode::from(report(result))
}

/// What a command run in-process ended with.
#[derive(Debug)]
pub struct Finished {
    /// The exit code the process would have had.
    pub code: u8,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Finished {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Runs a command line in this process, as `main` would, on a runtime of its own, and
/// returns its exit code and what it printed instead of printing it. `args` starts with
/// the program name, like `std::env::args()`.
pub fn run_captured<I, T>(args: I) -> Finished
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_captured_words(args.into_iter().map(Into::into).collect())
}

fn run_captured_words(words: Vec<OsString>) -> Finished {
    let cli = match parse(words) {
        Ok(cli) => cli,
        Err(e) => {
            let text = e.render().to_string().into_bytes();
            let (stdout, stderr) = if e.use_stderr() {
                (Vec::new(), text)
            } else {
                (text, Vec::new())
            };
            return Finished {
                code: clap_exit_code(&e),
                stdout,
                stderr,
            };
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            return Finished {
                code: exit::FAILED,
                stdout: Vec::new(),
                stderr: format!("error: cannot start the async runtime: {e}\n").into_bytes(),
            };
        }
    };
    let captured = Arc::new(output::Captured::default());
    let command = Box::pin(run_cli(cli));
    let code = runtime.block_on(output::capture(Arc::clone(&captured), async {
        report(command.await)
    }));
    let (stdout, stderr) = captured.take();
    Finished {
        code,
        stdout,
        stderr,
    }
}

/// Runs a parsed command; returns the exit code for a normal end.
pub async fn run_cli(cli: Cli) -> Result<u8, CliError> {
    for warning in &cli.renamed {
        stderrln!("warning: {warning}");
    }
    commands::dispatch(cli).await
}

/// The command line parsed, remembering its words (a run records them).
fn parse<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let words: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let (current, renamed) = cli::renamed_flags(words.clone());
    let mut cli = Cli::try_parse_from(&current)?;
    cli.renamed = renamed;
    cli.command_line = words
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    Ok(cli)
}

/// Help and version end with 0; a usage error with 2.
fn clap_exit_code(e: &clap::Error) -> u8 {
    if e.use_stderr() {
        exit::BAD_INPUT
    } else {
        exit::OK
    }
}

/// The exit code of a command's result, its error printed as one line on stderr.
fn report(result: Result<u8, CliError>) -> u8 {
    match result {
        Ok(code) => code,
        Err(e) => {
            stderrln!("error: {}", e.message);
            e.code
        }
    }
}

/// The AWS keys in the process's environment (what a run signs with when its workload
/// names no others) are secrets for the whole life of the process: nothing it prints,
/// logs, stores or answers shows them, whether a run uses them or not.
fn keep_environment_keys_secret() {
    let keys = [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
    ]
    .into_iter()
    .filter_map(|name| std::env::var(name).ok());
    keystorm_results::secrets::register(keystorm_results::secrets::Redactor::new(keys))
        .for_the_process();
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
        .with_writer(|| output::LogWriter)
        .with_target(false)
        .try_init();
}
