//! Values several commands' flags share: how a bucket is listed, and durations.

use clap::ValueEnum;

/// How a bucket is listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListModeArg {
    Serial,
    Prefix,
    Adaptive,
}

pub(super) fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    humantime::parse_duration(s.trim())
        .map_err(|e| format!("{s:?} is not a duration like 5s or 250ms ({e})"))
}

pub(super) fn parse_positive_duration(s: &str) -> Result<std::time::Duration, String> {
    match parse_duration(s)? {
        d if d.is_zero() => Err(format!("{s:?}: must be longer than zero")),
        d => Ok(d),
    }
}
