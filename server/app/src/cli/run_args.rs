//! The flags of `keystorm run`: the workload, where it goes, how it is shown, and
//! how a run is split into shards, resumed or sent to a controller.

use std::path::PathBuf;

use clap::ValueEnum;
use keystorm_console::progress::ProgressMode;
use keystorm_types::rgw_index::MAX_SHARDS;

use super::results_args::ResultsArgs;
use super::tls_args::LinkTlsArgs;

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Workload file (YAML). Not needed with --resume.
    #[arg(required_unless_present = "resume")]
    pub workload: Option<PathBuf>,

    /// Use this endpoint (http://host:port) instead of the workload's target endpoint;
    /// several (a cluster's gateways): give it again, or separate them by commas.
    #[arg(long, value_name = "URL")]
    pub endpoint: Vec<String>,

    /// Label the run (repeatable), e.g. --label bucket=presharded.
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    pub labels: Vec<(String, String)>,

    /// Continue an interrupted or killed run (its id or folder) where it stopped, with
    /// the endpoint, index layout, client and labels it began with (flags given again
    /// must agree).
    #[arg(long, value_name = "RUN", conflicts_with = "workload")]
    pub resume: Option<String>,

    /// Bucket index layout instead of the workload's `buckets.index`: `dynamic`, or a
    /// shard count to create the buckets pre-sharded. Labels the run `index=...` unless
    /// --label index=... is given.
    #[arg(long, value_name = "dynamic|SHARDS", value_parser = parse_index)]
    pub index: Option<keystorm_results::IndexLayout>,

    /// S3 client instead of the workload's `target.client`: `fast` (hyper and a SigV4
    /// signer of its own) or `sdk` (aws-sdk-s3).
    #[arg(long, value_enum, value_name = "fast|sdk")]
    pub client: Option<ClientArg>,

    /// Check every GET of every phase that GETs keys (as `verify: true` on each): the
    /// body against the bytes keystorm wrote, an MD5 ETag against their MD5. A body not
    /// as written counts as `corrupt`, a 404 for a live key as `missing`.
    #[arg(long)]
    pub verify: bool,

    /// Exit 0 when the run completed but a verification or an audit found the store did
    /// not keep what it was given (corrupt, missing, doubled or extra objects); without
    /// it such a run exits 3. The finding is printed and recorded either way.
    #[arg(long)]
    pub allow_not_as_written: bool,

    /// Run shard I of N of the workload (for example 2/4; I from 0): its part of the keys,
    /// of every count and of every open-loop rate, with the workload's workers, listers and
    /// objects in flight (per process).
    /// Start N shards against one target and together they do what the workload does.
    /// Shard 0 creates the buckets, polls the RGW index and runs serial listings.
    /// Labels the run `shard=I/N`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<keystorm_results::Shard>,

    /// Begin the phases at this time (RFC 3339, e.g. 2026-11-25T17:00:00Z), after
    /// checking the workload, reaching the target and making the buckets ready, so
    /// shards started apart line up.
    #[arg(long, value_name = "TIME", value_parser = parse_start_at)]
    pub start_at: Option<std::time::SystemTime>,

    /// Run the workload on the agents of the controller at URL (`keystorm serve`),
    /// split into --agents shards, each phase started together; the merged run is
    /// written in the controller's results folder.
    #[arg(long, value_name = "URL", requires = "agents",
        conflicts_with_all = ["resume", "shard", "start_at", "index", "client", "verify"])]
    pub controller: Option<String>,

    /// How many of the controller's agents to split the run over.
    #[arg(long, value_name = "N", requires = "controller",
        value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub agents: Option<u32>,

    /// Token of the controller (its --token); give it in KEYSTORM_TOKEN or --token-file
    /// rather than on the command line, where every user of the host can read it.
    #[arg(
        long,
        env = "KEYSTORM_TOKEN",
        hide_env_values = true,
        requires = "controller"
    )]
    pub token: Option<String>,

    /// A file whose first line is the controller's token.
    #[arg(
        long,
        value_name = "FILE",
        env = "KEYSTORM_TOKEN_FILE",
        hide_env_values = true,
        requires = "controller"
    )]
    pub token_file: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub link: LinkTlsArgs,

    /// How long to wait for enough idle agents to connect.
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_wait,
        requires = "controller")]
    pub wait_agents: std::time::Duration,

    /// Progress display: bars on a terminal, one plain line per second otherwise.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,

    #[command(flatten)]
    pub results: ResultsArgs,
}

fn parse_wait(s: &str) -> Result<std::time::Duration, String> {
    humantime::parse_duration(s.trim())
        .map_err(|_| "a duration is written like 30s, 2m or 1h".to_string())
}

fn parse_shard(s: &str) -> Result<keystorm_results::Shard, String> {
    s.parse()
        .map_err(|e: keystorm_results::ShardError| e.to_string())
}

fn parse_start_at(s: &str) -> Result<std::time::SystemTime, String> {
    humantime::parse_rfc3339_weak(s.trim()).map_err(|_| {
        "a start time is written as RFC 3339 in UTC, for example 2026-11-25T17:00:00Z".to_string()
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClientArg {
    Fast,
    Sdk,
}

impl From<ClientArg> for keystorm_types::ClientKind {
    fn from(c: ClientArg) -> Self {
        match c {
            ClientArg::Fast => keystorm_types::ClientKind::Fast,
            ClientArg::Sdk => keystorm_types::ClientKind::Sdk,
        }
    }
}

fn parse_index(s: &str) -> Result<keystorm_results::IndexLayout, String> {
    use keystorm_results::IndexLayout;
    match s.trim() {
        "dynamic" => Ok(IndexLayout::Dynamic),
        n => match n.parse::<u32>() {
            Ok(n) if (1..=MAX_SHARDS).contains(&n) => Ok(IndexLayout::Shards(n)),
            _ => Err(format!(
                "{s:?} is neither `dynamic` nor a shard count between 1 and {MAX_SHARDS}"
            )),
        },
    }
}

fn parse_label(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("label {s:?} is not KEY=VALUE"))?;
    let (k, v) = (k.trim(), v.trim());
    keystorm_types::check_label(k, v).map_err(|e| e.to_string())?;
    Ok((k.to_string(), v.to_string()))
}
