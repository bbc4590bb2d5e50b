//! The flags of `keystorm download` and `keystorm upload`: what moves, how many
//! objects and parts are in flight, and where.

use keystorm_workload::counts;
use std::path::PathBuf;

use super::target_args::TargetArgs;
use super::values::parse_byte_size;

/// How a transfer moves objects.
#[derive(Debug, clap::Args)]
pub struct TransferArgs {
    /// Objects (files) moving at once.
    #[arg(long, default_value_t = counts::IN_FLIGHT.default, value_parser = clap::value_parser!(u32).range(counts::IN_FLIGHT.range()))]
    pub in_flight: u32,

    /// Objects larger than this move in parts: ranged GETs down, multipart up.
    #[arg(long, default_value = "64MiB", value_parser = parse_byte_size)]
    pub parts_above: u64,

    /// Size of a part (at least 5MiB: S3's smallest multipart part).
    #[arg(long, default_value = "16MiB", value_parser = parse_part_size)]
    pub part_size: u64,

    /// Parts of one object moving at once.
    #[arg(long, default_value_t = counts::PARTS_IN_FLIGHT.default, value_parser = clap::value_parser!(u32).range(counts::PARTS_IN_FLIGHT.range()))]
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
    #[arg(long, default_value_t = counts::LISTERS.default, value_parser = clap::value_parser!(u32).range(counts::LISTERS.range()))]
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

fn parse_part_size(s: &str) -> Result<u64, String> {
    match parse_byte_size(s)? {
        n if n < 5 << 20 => Err(format!(
            "{s:?} is below 5MiB, the smallest part S3 accepts (but for the last)"
        )),
        n => Ok(n),
    }
}
