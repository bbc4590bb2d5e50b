//! Values several commands' flags share: how a bucket is listed, what a listing is
//! written as, and durations.

use clap::ValueEnum;

/// How a bucket is listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListModeArg {
    Serial,
    Prefix,
    Adaptive,
}

/// What a listing is written as: an inventory (`parquet`, `csv`, `jsonl`) or a key
/// file (`keys`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeysFormatArg {
    Parquet,
    Csv,
    Jsonl,
    Keys,
}

/// What an inventory is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InventoryFormatArg {
    Parquet,
    Csv,
    Jsonl,
}

pub(super) fn parse_positive_duration(s: &str) -> Result<std::time::Duration, String> {
    match humantime::parse_duration(s.trim()) {
        Err(e) => Err(format!("{s:?} is not a duration like 5s or 250ms ({e})")),
        Ok(d) if d.is_zero() => Err(format!("{s:?}: must be longer than zero")),
        Ok(d) => Ok(d),
    }
}

pub(super) fn parse_byte_size(s: &str) -> Result<u64, String> {
    keystorm_workload::size::parse_size(s).map_err(|e| e.to_string())
}
