//! Command-line arguments; `--help` on each command documents it.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

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
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a workload and write its results.
    Run(RunArgs),
    /// Check a workload file and summarise its plan; exit 2 with file:line:column on error.
    Validate(ValidateArgs),
    /// List past runs in the results folder.
    Ls(ResultsArgs),
    /// Show a past run's summary as a table.
    Show(ShowArgs),
    /// Run the embedded S3 target on its own.
    Sim(SimArgs),
    /// Serve the web UI and the HTTP API (start runs, watch them live, compare runs).
    Serve(ServeArgs),
    /// Print the HTTP API's OpenAPI document (JSON).
    #[command(hide = true)]
    Openapi,
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,

    /// Address to bind. Anything but loopback needs --token (or KEYSTORM_TOKEN).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,

    /// Bearer token required on every call that changes state or starts load.
    #[arg(long, env = "KEYSTORM_TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// Folder of workload YAML files the UI lists and edits.
    #[arg(long, env = "KEYSTORM_WORKLOADS", default_value = "workloads")]
    pub workloads: PathBuf,

    /// Start this workload (a name in the workloads folder) as soon as the server is up.
    #[arg(long, value_name = "NAME")]
    pub start: Option<String>,

    /// Send runs started without an endpoint here instead of their workload's target.
    #[arg(long, env = "KEYSTORM_DEFAULT_ENDPOINT", value_name = "URL")]
    pub default_endpoint: Option<String>,

    /// Dev mode: proxy the UI to a Vite dev server (e.g. http://127.0.0.1:5173).
    #[arg(long, value_name = "URL")]
    pub ui_dev_url: Option<String>,

    #[command(flatten)]
    pub results: ResultsArgs,
}

#[derive(Debug, clap::Args)]
pub struct ResultsArgs {
    /// Folder holding one sub-folder per run.
    #[arg(long, env = "KEYSTORM_RESULTS", default_value = "results")]
    pub results: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Workload file (YAML). Not needed with --resume.
    #[arg(required_unless_present = "resume")]
    pub workload: Option<PathBuf>,

    /// Use this endpoint (http://host:port) instead of the workload's target endpoint.
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,

    /// Label the run (repeatable), e.g. --label bucket=presharded.
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    pub labels: Vec<(String, String)>,

    /// Continue an interrupted run (its id or folder) where it stopped.
    #[arg(long, value_name = "RUN", conflicts_with = "workload")]
    pub resume: Option<String>,

    /// Bucket index layout instead of the workload's `buckets.index`: `dynamic`, or a
    /// shard count to create the buckets pre-sharded. Labels the run `index=...` unless
    /// --label index=... is given.
    #[arg(long, value_name = "dynamic|SHARDS", value_parser = parse_index, conflicts_with = "resume")]
    pub index: Option<keystorm_engine::plan::IndexLayout>,

    /// Progress display: bars on a terminal, one plain line per second otherwise.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,

    #[command(flatten)]
    pub results: ResultsArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressMode {
    Auto,
    Bars,
    Plain,
    Quiet,
}

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Workload file (YAML).
    pub workload: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Run id (or a unique prefix of it), or the run's folder.
    pub run: String,

    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub results: ResultsArgs,
}

#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 9000)]
    pub port: u16,

    /// Address to bind; keep the loopback default unless you mean to expose it.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,

    /// Keep object bytes (`memory`) or only sizes and metadata (`size-only`).
    #[arg(long, value_enum, default_value_t = SimStorage::Memory)]
    pub storage: SimStorage,

    /// Access key to verify request signatures with (with --secret-key).
    #[arg(long, requires = "secret_key", env = "KEYSTORM_SIM_ACCESS_KEY")]
    pub access_key: Option<String>,

    /// Secret key to verify request signatures with.
    #[arg(
        long,
        requires = "access_key",
        env = "KEYSTORM_SIM_SECRET_KEY",
        hide_env_values = true
    )]
    pub secret_key: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimStorage {
    Memory,
    SizeOnly,
}

fn parse_index(s: &str) -> Result<keystorm_engine::plan::IndexLayout, String> {
    use keystorm_engine::plan::IndexLayout;
    match s.trim() {
        "dynamic" => Ok(IndexLayout::Dynamic),
        n => match n.parse::<u32>() {
            Ok(n) if (1..=65521).contains(&n) => Ok(IndexLayout::Shards(n)),
            _ => Err(format!(
                "{s:?} is neither `dynamic` nor a shard count between 1 and 65521"
            )),
        },
    }
}

fn parse_label(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("label {s:?} is not KEY=VALUE"))?;
    let k = k.trim();
    if k.is_empty() {
        return Err(format!("label {s:?} has an empty key"));
    }
    Ok((k.to_string(), v.trim().to_string()))
}
