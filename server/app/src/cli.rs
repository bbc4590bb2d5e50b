//! Command-line arguments; `--help` on each command documents it.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use keystorm_engine::plan::DelayPlan;

mod diff_args;
mod keys_args;
mod renamed;
mod tls_args;
mod values;

pub use diff_args::DiffArgs;
pub use keys_args::{ConvertArgs, KeysArgs, KeysCommand};
pub use renamed::renamed_flags;
pub use tls_args::{LinkTlsArgs, ServeTlsArgs};
pub use values::{InventoryFormatArg, KeysFormatArg, ListModeArg};
use values::{parse_duration, parse_positive_duration};

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

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,

    /// Address to bind. Anything but loopback needs --token (or KEYSTORM_TOKEN), and
    /// --tls-cert with --tls-key (or --insecure-http).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,

    #[command(flatten)]
    pub tls: ServeTlsArgs,

    /// Bearer token required on every API call and /metrics (at least 16 characters).
    #[arg(long, env = "KEYSTORM_TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// A second, read-only token (with --token): it opens the reads, the live event
    /// stream and /metrics, but cannot start, stop, edit or delete anything.
    #[arg(long, env = "KEYSTORM_READ_TOKEN", hide_env_values = true)]
    pub read_token: Option<String>,

    /// Folder of workload YAML files the UI lists and edits.
    #[arg(
        long,
        env = "KEYSTORM_WORKLOADS",
        default_value = "workloads",
        hide_env_values = true
    )]
    pub workloads: PathBuf,

    /// Start this workload (a name in the workloads folder) as soon as the server is up.
    #[arg(long, value_name = "NAME")]
    pub start: Option<String>,

    /// Send runs started without an endpoint here instead of their workload's target.
    #[arg(
        long,
        env = "KEYSTORM_DEFAULT_ENDPOINT",
        value_name = "URL",
        hide_env_values = true
    )]
    pub default_endpoint: Option<String>,

    /// Dev mode: proxy the UI to a Vite dev server (e.g. http://127.0.0.1:5173).
    #[arg(long, value_name = "URL")]
    pub ui_dev_url: Option<String>,

    /// Largest file of a shard's run folder the controller takes from an agent
    /// (docs/many-hosts.md: a day of a fill grows its largest log by about 90 MB).
    #[arg(long, value_name = "SIZE", default_value = "4GiB", value_parser = parse_cap)]
    pub max_shard_file_size: u64,

    /// Most the controller keeps of one run's shard folders, all its agents together.
    #[arg(long, value_name = "SIZE", default_value = "128GiB", value_parser = parse_cap)]
    pub max_run_copy_size: u64,

    #[command(flatten)]
    pub results: ResultsArgs,
}

#[derive(Debug, clap::Args)]
pub struct ResultsArgs {
    /// Folder holding one sub-folder per run.
    #[arg(
        long,
        env = "KEYSTORM_RESULTS",
        default_value = "results",
        hide_env_values = true
    )]
    pub results: PathBuf,
}

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

    /// S3 client instead of the workload's `target.client`: `fast` (hyper + aws-sigv4)
    /// or `sdk` (aws-sdk-s3).
    #[arg(long, value_enum, value_name = "fast|sdk")]
    pub client: Option<ClientArg>,

    /// Check every GET of every phase that GETs keys (as `verify: true` on each): the
    /// body against the bytes keystorm wrote, an MD5 ETag against their MD5. A body not
    /// as written counts as `corrupt`, a 404 for a live key as `missing`.
    #[arg(long)]
    pub verify: bool,

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

    /// Token of the controller (its --token).
    #[arg(
        long,
        env = "KEYSTORM_TOKEN",
        hide_env_values = true,
        requires = "controller"
    )]
    pub token: Option<String>,

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

#[derive(Debug, clap::Args)]
pub struct AgentArgs {
    /// The controller's URL (https://HOST:PORT of `keystorm serve`; http:// on
    /// loopback).
    #[arg(
        long,
        value_name = "URL",
        env = "KEYSTORM_CONTROLLER",
        hide_env_values = true
    )]
    pub controller: String,

    #[command(flatten)]
    pub link: LinkTlsArgs,

    /// The controller's token (its --token).
    #[arg(long, env = "KEYSTORM_TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// This agent's name, unique among the controller's agents; started again under
    /// the same name (and results folder) it resumes the shard it held. Default: the
    /// host name.
    #[arg(long, env = "KEYSTORM_AGENT_NAME", hide_env_values = true)]
    pub name: Option<String>,

    /// Use this endpoint instead of the one the controller gives (this host's way to
    /// the store); several: give it again, or separate them by commas.
    #[arg(long, value_name = "URL")]
    pub endpoint: Vec<String>,

    /// Progress display of the shards it runs.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,

    #[command(flatten)]
    pub results: ResultsArgs,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressMode {
    Auto,
    Bars,
    Plain,
    Quiet,
}

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Workload files (YAML), e.g. `workloads/*.yaml`.
    #[arg(required = true, value_name = "WORKLOAD")]
    pub workloads: Vec<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shards' runs: ids (or unique prefixes) in the results folder, or folders.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,

    /// Results folder to write the merged run to, as a run of its own named after the
    /// workload (default: the results folder the runs are looked up in).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub results: ResultsArgs,
}

/// What `keystorm show --by` breaks rows down by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShowBy {
    Endpoint,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Run id (or a unique prefix of it), or the run's folder.
    pub run: String,

    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    pub json: bool,

    /// Break each row down: `endpoint` shows what each endpoint (gateway) took of it.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub by: Option<ShowBy>,

    /// For runs with complete listings: also say how long a listing of this many keys
    /// would take at the fitted rate, e.g. 67e9.
    #[arg(long, value_name = "KEYS", value_parser = parse_key_count)]
    pub extrapolate: Option<f64>,

    #[command(flatten)]
    pub results: ResultsArgs,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (and \
AWS_SESSION_TOKEN), else the default AWS profile, or --profile. Every mode lists each key \
exactly once. Exit codes: 0 listed completely, 1 the listing failed, 2 bad arguments."
)]
pub struct ListArgs {
    /// Bucket to list.
    pub bucket: String,

    /// Only keys starting with this.
    #[arg(long, default_value = "")]
    pub prefix: String,

    /// `serial` (one paginator), `prefix` (one per leading characters) or `adaptive`
    /// (ranges cut as keys are found: for unknown or skewed key sets).
    #[arg(long, value_enum, default_value_t = ListModeArg::Adaptive)]
    pub mode: ListModeArg,

    /// Listers (requests in flight) for prefix and adaptive modes.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub listers: u32,

    /// Prefix mode: leading characters per prefix (1 = 62 prefixes for base-62 keys).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub depth: u32,

    /// Prefix mode: the characters keys start with.
    #[arg(long, default_value = keystorm_results::BASE62_ALPHABET)]
    pub alphabet: String,

    /// Adaptive mode: seed the ranges from the folders of one listing with this
    /// delimiter; an empty value skips it.
    #[arg(long, default_value = "/")]
    pub delimiter: String,

    /// Keys per page (max-keys).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub page_size: u32,

    /// Attempts after a failed page before the listing gives up.
    #[arg(long, default_value_t = 3)]
    pub retries: u32,

    /// Also report the space used by prefix, age, key suffix and object size.
    #[arg(long)]
    pub report: bool,

    /// Characters after --prefix that group the report's prefixes.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub report_depth: u32,

    /// Write every key (key, size, etag, last_modified; with --head also metadata) to
    /// this file as JSON lines; `-` writes them to standard output and the report to
    /// standard error. A name ending in `.keys` writes a key file instead: sorted,
    /// compressed, a few bytes per key, for workloads and `diff` to read. A name ending
    /// in `.parquet` or `.csv` writes an inventory for DuckDB, pandas or a spreadsheet:
    /// one row per key (key, size, etag, last_modified, storage_class; with --head a
    /// metadata column), in the order listed (not sorted), put in place once the
    /// listing completes (see docs/inventory.md).
    #[arg(long, value_name = "FILE")]
    pub keys: Option<PathBuf>,

    /// What --keys FILE is written as, whatever its extension: `parquet`, `csv`,
    /// `jsonl` (JSON lines) or `keys` (a key file).
    #[arg(long, value_enum, value_name = "FORMAT", requires = "keys")]
    pub format: Option<KeysFormatArg>,

    /// Save the listing's progress to this file every --checkpoint-every seconds and
    /// when stopped or failed; if the file exists, resume from it (the key file is cut
    /// back to what the checkpoint accounts for). Removed once the listing completes.
    #[arg(long, value_name = "FILE", conflicts_with = "head")]
    pub checkpoint: Option<PathBuf>,

    /// Seconds between checkpoints.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..), requires = "checkpoint")]
    pub checkpoint_every: u64,

    /// HEAD every listed object to read its user metadata (x-amz-meta-*), which LIST
    /// does not return; the listers feed a bounded queue of keys to the HEAD workers.
    #[arg(long)]
    pub head: bool,

    /// HEAD workers (requests in flight) with --head.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096), requires = "head")]
    pub head_workers: u32,

    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub target: TargetArgs,
}

/// Where the bucket is and how to sign, for the commands that talk to S3 directly.
#[derive(Debug, clap::Args)]
pub struct TargetArgs {
    /// S3 endpoint (http://host:port or https://host).
    #[arg(
        long,
        value_name = "URL",
        env = "KEYSTORM_ENDPOINT",
        hide_env_values = true
    )]
    pub endpoint: String,

    /// Region to sign for.
    #[arg(long, default_value = "us-east-1")]
    pub region: String,

    /// Virtual-hosted addressing (bucket.host) instead of path style.
    #[arg(long)]
    pub virtual_hosted: bool,

    /// AWS profile to take the keys from.
    #[arg(long)]
    pub profile: Option<String>,

    /// Accept any TLS certificate (test clusters).
    #[arg(long)]
    pub insecure: bool,

    /// Per-request timeout.
    #[arg(long, default_value = "60s", value_parser = parse_positive_duration)]
    pub timeout: std::time::Duration,
}

/// How a transfer moves objects.
#[derive(Debug, clap::Args)]
pub struct TransferArgs {
    /// Objects (files) moving at once.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub in_flight: u32,

    /// Objects larger than this move in parts: ranged GETs down, multipart up.
    #[arg(long, default_value = "64MiB", value_parser = parse_byte_size)]
    pub parts_above: u64,

    /// Size of a part (at least 5MiB: S3's smallest multipart part).
    #[arg(long, default_value = "16MiB", value_parser = parse_part_size)]
    pub part_size: u64,

    /// Parts of one object moving at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub parts_in_flight: u32,

    /// Move everything again, even what is already complete at the other end (same
    /// size and ETag).
    #[arg(long)]
    pub overwrite: bool,

    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Keys become paths under DIR relative to --prefix; a key can never \
reach outside DIR (`..`, `.` and empty parts are written %2E%2E, %2E and %). Files are \
written as NAME.keystorm-partial and renamed when complete, so an interrupted download \
resumes. Exit codes: 0 all moved or already there, 1 some objects failed, 2 bad arguments."
)]
pub struct DownloadArgs {
    /// Bucket to download from.
    pub bucket: String,

    /// Local folder to download into (created if missing).
    pub dir: PathBuf,

    /// Only keys starting with this (stripped from the paths).
    #[arg(long, default_value = "")]
    pub prefix: String,

    /// Listers finding the keys (adaptive listing).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub listers: u32,

    #[command(flatten)]
    pub transfer: TransferArgs,

    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Every regular file under DIR is PUT to PREFIX + its path; symbolic \
links are counted and skipped unless --follow-symlinks is given. Files above \
--parts-above go up as multipart uploads. A file whose object already exists with the \
same size and ETag is skipped. Exit codes: 0 all moved or already there, 1 some files \
failed, 2 bad arguments."
)]
pub struct UploadArgs {
    /// Local folder to upload.
    pub dir: PathBuf,

    /// Bucket to upload into (it must exist).
    pub bucket: String,

    /// Put in front of every key, e.g. `backup/`.
    #[arg(long, default_value = "")]
    pub prefix: String,

    /// Upload what symbolic links point to, under the link's path (a link back to a
    /// folder above it is skipped, so loops end); without it links are skipped.
    #[arg(long)]
    pub follow_symlinks: bool,

    #[command(flatten)]
    pub transfer: TransferArgs,

    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 9000)]
    pub port: u16,

    /// Serve the one target on each of these ports (comma-separated, e.g.
    /// `9000,9001,9002`), like gateways in front of one store; 0 picks a free one.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "PORTS",
        conflicts_with = "port"
    )]
    pub ports: Vec<u16>,

    /// Address to bind; keep the loopback default unless you mean to expose it.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,

    /// Keep object bytes (`memory`) or only sizes and metadata (`size-only`).
    #[arg(long, value_enum, default_value_t = SimStorage::Memory)]
    pub storage: SimStorage,

    /// Answer DeleteObjects (multi-object delete) with 501 NotImplemented, like
    /// stores without it; single DELETEs still work.
    #[arg(long)]
    pub no_multi_delete: bool,

    /// Memory the target may hold (object bytes, keys, metadata and a fixed overhead
    /// per object, by its own count) before writes get 507 InsufficientStorage; reads,
    /// lists and deletes go on, and deletes make room [default: half of the machine's
    /// memory, or of the cgroup's limit].
    #[arg(long, value_name = "SIZE", value_parser = parse_max_memory)]
    pub max_memory: Option<u64>,

    /// Access key to verify request signatures with (with --secret-key).
    #[arg(
        long,
        requires = "secret_key",
        env = "KEYSTORM_SIM_ACCESS_KEY",
        hide_env_values = true
    )]
    pub access_key: Option<String>,

    /// Secret key to verify request signatures with.
    #[arg(
        long,
        requires = "access_key",
        env = "KEYSTORM_SIM_SECRET_KEY",
        hide_env_values = true
    )]
    pub secret_key: Option<String>,

    /// Index shards of a new bucket, like RGW's `rgw_override_bucket_index_max_shards`
    /// [default: 11].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65521), help_heading = "Bucket index (RGW-like)")]
    pub index_shards: Option<u32>,

    /// Reshard buckets that outgrow their shards (`rgw_dynamic_resharding`): past
    /// shards × max-objs-per-shard objects, to the next prime ≥ 2 × objects / max.
    #[arg(long, help_heading = "Bucket index (RGW-like)")]
    pub dynamic_resharding: bool,

    /// Objects per shard before a bucket needs resharding (`rgw_max_objs_per_shard`)
    /// [default: 100000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Bucket index (RGW-like)")]
    pub max_objs_per_shard: Option<u64>,

    /// How often the reshard thread looks at the buckets [default: 1s].
    #[arg(long, value_name = "DUR", value_parser = parse_positive_duration, help_heading = "Bucket index (RGW-like)")]
    pub reshard_check_interval: Option<std::time::Duration>,

    /// Time a reshard takes per object it moves; the bucket's writes block meanwhile
    /// [default: 10us].
    #[arg(long, value_name = "DUR", value_parser = parse_duration, help_heading = "Bucket index (RGW-like)")]
    pub reshard_time_per_object: Option<std::time::Duration>,

    /// Writers blocked by a reshard complete at the first multiple of this after it
    /// ended (RGW backs off in 5 s steps) [default: 5s].
    #[arg(long, value_name = "DUR", value_parser = parse_positive_duration, help_heading = "Bucket index (RGW-like)")]
    pub reshard_retry_step: Option<std::time::Duration>,

    /// Added time per index shard of every ordered listing page (RGW merges all
    /// shards per page) [default: 0s].
    #[arg(long, value_name = "DUR", value_parser = parse_duration, help_heading = "Bucket index (RGW-like)")]
    pub list_time_per_shard: Option<std::time::Duration>,

    /// Added latency of an operation (repeatable). OP: put, get, head, list (per
    /// page) or delete; DIST: `2ms` fixed, `1ms..3ms` uniform, `exp:2ms` exponential
    /// with that mean, `lognormal:2ms,20ms` log-normal with that median and p99.
    #[arg(long = "latency", value_name = "OP=DIST", value_parser = parse_latency, help_heading = "Injection (object operations only)")]
    pub latency: Vec<(SimOp, DelayPlan)>,

    /// Latency added to the object requests arriving on one port, after the target's
    /// own --latency (repeatable), e.g. `9001:get=200ms`. PORT: one of --ports (or
    /// --port); OP and DIST as for --latency.
    #[arg(long = "port-latency", value_name = "PORT:OP=DIST", value_parser = parse_port_latency, help_heading = "Injection (object operations only)")]
    pub port_latency: Vec<(u16, SimOp, DelayPlan)>,

    /// Inject a fault into this fraction of object requests (repeatable), e.g.
    /// `slow-down=0.01` or `reset=0.5%`. KIND: slow-down (503 SlowDown),
    /// internal-error (500), reset (connection closed unanswered), stall (answer held
    /// for --stall-time, then the connection closed), corrupt (a GET's body with one
    /// bit flipped; the stored object unchanged); these add up to at most 1.
    /// key-error: a fraction of the keys of each multi-object delete that fail alone
    /// (InternalError in its answer; the object stays). lose-on-reshard: a fraction of
    /// the index entries each reshard moves that it drops (the object stays readable
    /// but is never listed until written again). list-twice: a fraction of continued
    /// listing pages that begin with the previous page's last key again.
    #[arg(long = "fault", value_name = "KIND=RATE", value_parser = parse_fault, help_heading = "Injection (object operations only)")]
    pub faults: Vec<(SimFault, f64)>,

    /// Only these operations get faults (comma-separated; all when not given), e.g.
    /// `--fault-ops delete` to fail deletes while writes go through.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "OPS",
        help_heading = "Injection (object operations only)"
    )]
    pub fault_ops: Vec<SimOp>,

    /// How long a stalled answer is held before the connection is closed.
    #[arg(long, value_name = "DUR", default_value = "5s", value_parser = parse_positive_duration, help_heading = "Injection (object operations only)")]
    pub stall_time: std::time::Duration,

    /// Seed of the fault draws; 0 seeds from the clock. A fixed seed gives the same
    /// faults to the same sequence of requests.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        help_heading = "Injection (object operations only)"
    )]
    pub fault_seed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimStorage {
    Memory,
    SizeOnly,
}

/// The operations `keystorm sim --latency` and `--fault-ops` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimOp {
    Put,
    Get,
    Head,
    List,
    Delete,
}

impl SimOp {
    /// The operation as workloads and results name it.
    pub fn kind(self) -> keystorm_types::OpKind {
        use keystorm_types::OpKind;
        match self {
            SimOp::Put => OpKind::Put,
            SimOp::Get => OpKind::Get,
            SimOp::Head => OpKind::Head,
            SimOp::List => OpKind::List,
            SimOp::Delete => OpKind::Delete,
        }
    }
}

/// The faults `keystorm sim --fault` injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimFault {
    SlowDown,
    InternalError,
    Reset,
    Stall,
    KeyError,
    Corrupt,
    LoseOnReshard,
    ListTwice,
}

/// Why a flag's value is not `KEY=VALUE` with a known KEY.
#[derive(Debug, thiserror::Error)]
enum KeyedError {
    /// No `=`: the value is not the `what` it should be.
    #[error("{given:?} is not {what}")]
    NotKeyed { given: String, what: &'static str },
    #[error("{key:?} is not one of {}", .known.join(", "))]
    UnknownKey { key: String, known: Vec<String> },
}

/// `KEY=VALUE` with KEY one of `T`'s value names.
fn parse_keyed<T: ValueEnum>(s: &str, what: &'static str) -> Result<(T, String), KeyedError> {
    let (k, v) = s.split_once('=').ok_or_else(|| KeyedError::NotKeyed {
        given: s.to_string(),
        what,
    })?;
    let key = T::from_str(k.trim(), true).map_err(|_| KeyedError::UnknownKey {
        key: k.trim().to_string(),
        known: T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
            .collect(),
    })?;
    Ok((key, v.trim().to_string()))
}

fn parse_latency(s: &str) -> Result<(SimOp, DelayPlan), String> {
    let (op, text) = parse_keyed::<SimOp>(s, "OP=DIST").map_err(|e| e.to_string())?;
    let delay = text.parse::<keystorm_types::Delay>().map_err(|e| {
        format!("{e}; write e.g. `2ms`, `1ms..3ms`, `exp:2ms` or `lognormal:2ms,20ms`")
    })?;
    Ok((op, DelayPlan { text, delay }))
}

fn parse_port_latency(s: &str) -> Result<(u16, SimOp, DelayPlan), String> {
    let (port, latency) = s
        .split_once(':')
        .ok_or_else(|| format!("{s:?} is not PORT:OP=DIST, e.g. `9001:get=200ms`"))?;
    let port = match port.trim().parse::<u16>() {
        Ok(p) if p != 0 => p,
        _ => {
            return Err(format!(
                "{:?} is not a port number between 1 and 65535",
                port.trim()
            ));
        }
    };
    let (op, delay) = parse_latency(latency)?;
    Ok((port, op, delay))
}

fn parse_fault(s: &str) -> Result<(SimFault, f64), String> {
    let (kind, rate) = parse_keyed::<SimFault>(s, "KIND=RATE").map_err(|e| e.to_string())?;
    let value = match rate.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
        None => rate.parse::<f64>(),
    };
    match value {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok((kind, r)),
        _ => Err(format!(
            "{rate:?} is not a fraction between 0 and 1 (or 0% to 100%)"
        )),
    }
}

fn parse_index(s: &str) -> Result<keystorm_results::IndexLayout, String> {
    use keystorm_results::IndexLayout;
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

fn parse_byte_size(s: &str) -> Result<u64, String> {
    keystorm_engine::size::parse_size(s).map_err(|e| e.to_string())
}

fn parse_cap(s: &str) -> Result<u64, String> {
    match parse_byte_size(s)? {
        0 => Err(format!("{s:?}: a cap of nothing would refuse every file")),
        n => Ok(n),
    }
}

fn parse_max_memory(s: &str) -> Result<u64, String> {
    match parse_byte_size(s)? {
        n if n < 64 << 10 => Err(format!("{s:?} is below 64KiB, too little to hold anything")),
        n => Ok(n),
    }
}

fn parse_part_size(s: &str) -> Result<u64, String> {
    match parse_byte_size(s)? {
        n if n < 5 << 20 => Err(format!(
            "{s:?} is below 5MiB, the smallest part S3 accepts (but for the last)"
        )),
        n => Ok(n),
    }
}

fn parse_key_count(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 1.0 => Ok(n),
        _ => Err(format!("{s:?} is not a key count such as 67e9 or 1000000")),
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

/// `--endpoint` given once or more (each perhaps a comma list) as one comma list, or
/// `None` when not given.
pub fn endpoints_given(given: &[String]) -> Option<String> {
    let urls: Vec<&str> = given
        .iter()
        .flat_map(|g| g.split(','))
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .collect();
    (!given.is_empty()).then(|| urls.join(","))
}
