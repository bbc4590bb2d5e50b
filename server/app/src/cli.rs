//! Command-line arguments; `--help` on each command documents it. This module holds
//! the command line as a whole (the commands and the flags every one takes); each
//! command's own flags live in a module of their own (`run_args`, `list_args`, …), and
//! the values several share in `values`.

use clap::{Parser, Subcommand};

mod agent_args;
mod compare_args;
mod diff_args;
mod judge_args;
mod keys_args;
mod list_args;
mod merge_args;
mod renamed;
mod report_args;
mod results_args;
mod run_args;
mod serve_args;
mod show_args;
mod sim_args;
mod target_args;
mod tls_args;
mod transfer_args;
mod validate_args;
mod values;

pub use agent_args::AgentArgs;
pub use compare_args::{CompareArgs, FailOn};
pub use diff_args::DiffArgs;
pub use judge_args::JudgeArgs;
pub use keys_args::{ConvertArgs, KeysArgs, KeysCommand};
pub use list_args::ListArgs;
pub use merge_args::MergeArgs;
pub use renamed::renamed_flags;
pub use report_args::{MAX_REPORTED_RUNS, ReportArgs};
pub use results_args::ResultsArgs;
pub use run_args::{ClientArg, RunArgs};
pub use serve_args::ServeArgs;
pub use show_args::{ShowArgs, ShowBy};
pub use sim_args::{SimArgs, SimFault, SimStorage};
pub use target_args::{TargetArgs, endpoints_given};
pub use tls_args::{LinkTlsArgs, ServeTlsArgs};
pub use transfer_args::{DownloadArgs, TransferArgs, UploadArgs};
pub use validate_args::ValidateArgs;
pub use values::{InventoryFormatArg, KeysFormatArg, ListModeArg};

/// keystorm: an S3 load generator and benchmark harness.
///
/// Fill buckets to billions of keys, run rounds of write / read / mixed workloads, and
/// read exact latency percentiles per round. Workloads are YAML files (see
/// docs/workload-format.md); results land in RESULTS/<run-id>/.
#[derive(Debug, Parser)]
#[command(
    name = "keystorm",
    version,
    propagate_version = true,
    after_help = "Exit codes: 0 completed, 1 the run failed or was aborted, 2 bad input (workload or arguments), 130 interrupted (resumable with `keystorm run --resume RUN`)."
)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug); KEYSTORM_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,

    /// The words of the command line, as given (a run records them).
    #[arg(skip)]
    pub command_line: Vec<String>,

    /// Warnings about flags given under their old names (see `cli::renamed`).
    #[arg(skip)]
    pub renamed: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a workload and write its results.
    Run(RunArgs),
    /// Check workload files and summarise each plan, one line per file; exit 2 with
    /// file:line:column if any is wrong.
    Validate(ValidateArgs),
    /// List past runs in the results folder, newest first.
    Ls(ResultsArgs),
    /// Show a past run's summary as a table.
    Show(ShowArgs),
    /// Compare runs with a base: each metric's change with its 95 % interval and a
    /// verdict (improved, regressed, no change, inconclusive); `--fail-on regressed`
    /// exits 1 on a regression.
    Compare(CompareArgs),
    /// Write an offline HTML report (one file, no server needed): of one run, or of
    /// runs compared with the first, verdicts included.
    Report(ReportArgs),
    /// Count (or walk) every key of a bucket: serially, by prefix or adaptively.
    List(ListArgs),
    /// Compare two listings key by key (buckets, prefixes, endpoints or a saved key
    /// file): keys only in one, and keys with another size or ETag; exit 1 if they differ.
    Diff(DiffArgs),
    /// Work with saved key files: convert one into a Parquet, CSV or JSON-lines
    /// inventory.
    Keys(KeysArgs),
    /// Download every object under a prefix into a local folder, many at once.
    Download(DownloadArgs),
    /// Upload a local folder's files, many at once, large ones in parallel parts.
    Upload(UploadArgs),
    /// Merge the runs of a workload's shards (`run --shard I/N`) into one run: exact
    /// percentiles from added histograms, intervals per wall-clock second.
    Merge(MergeArgs),
    /// Run the embedded S3 target on its own.
    Sim(SimArgs),
    /// Serve the web UI and the HTTP API (start runs, watch them live, compare runs);
    /// also the controller that agents dial.
    Serve(ServeArgs),
    /// Run shards for a controller (`keystorm serve`): dial it, register, and run
    /// what it gives, until Ctrl-C.
    Agent(AgentArgs),
    /// Print the HTTP API's OpenAPI document (JSON).
    #[command(hide = true)]
    Openapi,
}
