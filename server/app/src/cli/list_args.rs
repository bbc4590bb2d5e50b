//! The flags of `keystorm list`: how a bucket is listed, what is written, and the
//! HEADs of a scan.

use keystorm_workload::counts;
use std::path::PathBuf;

use super::target_args::TargetArgs;
use super::values::{KeysFormatArg, ListModeArg};

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
    #[arg(long, default_value_t = counts::LISTERS.default, value_parser = clap::value_parser!(u32).range(counts::LISTERS.range()))]
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
    /// compressed, about 34 bytes a key with MD5 ETags, for workloads and `diff` to
    /// read. A name ending
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
    #[arg(long, default_value_t = counts::HEAD_WORKERS.default, value_parser = clap::value_parser!(u32).range(counts::HEAD_WORKERS.range()), requires = "head")]
    pub head_workers: u32,

    /// Print the outcome as JSON.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub target: TargetArgs,
}
