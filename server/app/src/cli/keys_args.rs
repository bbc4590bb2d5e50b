//! The flags of `keystorm keys`: what is done with a saved key file.

use std::path::PathBuf;

use super::values::InventoryFormatArg;

/// Work with key files (`keystorm list --keys FILE.keys`).
#[derive(Debug, clap::Args)]
pub struct KeysArgs {
    #[command(subcommand)]
    pub command: KeysCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum KeysCommand {
    /// Convert a key file into an inventory (Parquet, CSV or JSON lines), by OUT's
    /// extension or --format.
    Convert(ConvertArgs),
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "The inventory holds a row per key, in key order: key, size, etag \
(without quotes), last_modified, storage_class (empty: a key file does not keep it); \
see docs/inventory.md. OUT appears once complete (OUT.partial while written). Exit \
codes: 0 converted, 2 bad input (a missing or damaged key file, an unknown format, an \
unwritable OUT)."
)]
pub struct ConvertArgs {
    /// The key file to read.
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// The inventory to write: .parquet, .csv or .jsonl.
    #[arg(value_name = "OUT")]
    pub output: PathBuf,

    /// What OUT is written as, whatever its extension.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<InventoryFormatArg>,

    /// Print what was written as JSON.
    #[arg(long)]
    pub json: bool,
}
