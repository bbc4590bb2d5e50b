//! The flags of `keystorm diff A B`.

use keystorm_workload::counts;
use std::path::PathBuf;

use super::values::{ListModeArg, parse_positive_duration};

/// Two listings compared key by key.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "A and B are each an S3 location, s3://BUCKET[/PREFIX] (listed; keys \
are compared without the prefix), or a key file written by `keystorm list --keys FILE` \
(keys starting with the other side's prefix are compared without it). Credentials come \
from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, else the default AWS profile, or \
--profile (--profile-b for B). Exit codes: 0 the two are equal, 1 they differ, 2 bad \
input or a listing that failed, 130 interrupted."
)]
pub struct DiffArgs {
    /// The first listing: s3://BUCKET[/PREFIX] or a key file.
    pub a: String,

    /// The second listing: s3://BUCKET[/PREFIX] or a key file.
    pub b: String,

    /// S3 endpoint of A (and of B unless --endpoint-b).
    #[arg(
        long,
        value_name = "URL",
        env = "KEYSTORM_ENDPOINT",
        hide_env_values = true
    )]
    pub endpoint: Option<String>,

    /// S3 endpoint of B, when it is another one.
    #[arg(long, value_name = "URL")]
    pub endpoint_b: Option<String>,

    /// AWS profile to take A's keys from (and B's unless --profile-b).
    #[arg(long)]
    pub profile: Option<String>,

    /// AWS profile to take B's keys from.
    #[arg(long)]
    pub profile_b: Option<String>,

    /// Region to sign for.
    #[arg(long, default_value = "us-east-1")]
    pub region: String,

    /// Virtual-hosted addressing (bucket.host) instead of path style.
    #[arg(long)]
    pub virtual_hosted: bool,

    /// Accept any TLS certificate (test clusters).
    #[arg(long)]
    pub insecure: bool,

    /// Per-request timeout.
    #[arg(long, default_value = "60s", value_parser = parse_positive_duration)]
    pub timeout: std::time::Duration,

    /// How each bucket is listed: `serial`, `prefix` or `adaptive`.
    #[arg(long, value_enum, default_value_t = ListModeArg::Adaptive)]
    pub mode: ListModeArg,

    /// Listers per bucket (requests in flight) for prefix and adaptive modes.
    #[arg(long, default_value_t = counts::LISTERS.default, value_parser = clap::value_parser!(u32).range(counts::LISTERS.range()))]
    pub listers: u32,

    /// Keys per page (max-keys).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub page_size: u32,

    /// Attempts after a failed page before a listing gives up.
    #[arg(long, default_value_t = 3)]
    pub retries: u32,

    /// Compare sizes only, not ETags (objects copied by multipart uploads of another
    /// part size have other ETags).
    #[arg(long)]
    pub no_etag: bool,

    /// Write every key that differs to this file, one JSON line each (key, change, and
    /// what A and B hold); `-` writes them to standard output and the summary to
    /// standard error.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,

    /// Where the comparison spills its keys (a few tens of bytes per key of each side,
    /// removed at the end).
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,
}
