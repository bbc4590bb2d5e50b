//! The flags of `keystorm serve`: where the API listens, who may call it, and the
//! controller's caps on what agents send.

use std::path::PathBuf;

use super::results_args::ResultsArgs;
use super::tls_args::ServeTlsArgs;
use super::values::parse_byte_size;

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
    /// Give it in KEYSTORM_TOKEN or --token-file: on the command line every user of the
    /// host can read it.
    #[arg(long, env = "KEYSTORM_TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// A file whose first line is the token (in place of --token / KEYSTORM_TOKEN).
    #[arg(
        long,
        value_name = "FILE",
        env = "KEYSTORM_TOKEN_FILE",
        hide_env_values = true
    )]
    pub token_file: Option<PathBuf>,

    /// A second, read-only token (with a token): it opens the reads, the live event
    /// stream and /metrics, but cannot start, stop, edit or delete anything.
    #[arg(long, env = "KEYSTORM_READ_TOKEN", hide_env_values = true)]
    pub read_token: Option<String>,

    /// A file whose first line is the read-only token (in place of --read-token /
    /// KEYSTORM_READ_TOKEN).
    #[arg(
        long,
        value_name = "FILE",
        env = "KEYSTORM_READ_TOKEN_FILE",
        hide_env_values = true
    )]
    pub read_token_file: Option<PathBuf>,

    /// A host name clients reach this server by, besides loopback names and (bound
    /// beyond loopback) its addresses: requests naming any other `Host` are refused,
    /// so a web page cannot reach the server under a name of its own (DNS rebinding).
    /// Repeatable, or separated by commas; `.example.com` takes every name under it.
    #[arg(
        long,
        value_name = "NAME",
        env = "KEYSTORM_ALLOWED_HOSTS",
        hide_env_values = true,
        value_delimiter = ','
    )]
    pub allowed_host: Vec<String>,

    /// The URL browsers reach this server by (a proxy in front of it, a DNS name):
    /// its host is answered to, and its origin accepted for calls that change state.
    #[arg(
        long,
        value_name = "URL",
        env = "KEYSTORM_PUBLIC_URL",
        hide_env_values = true
    )]
    pub public_url: Option<String>,

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

fn parse_cap(s: &str) -> Result<u64, String> {
    match parse_byte_size(s)? {
        0 => Err(format!("{s:?}: a cap of nothing would refuse every file")),
        n => Ok(n),
    }
}
