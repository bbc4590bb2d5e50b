//! A listing as it was asked for (its mode) and as it ended (its outcome): what the
//! event log records of every listing phase, and what the controller of many agents
//! adds up.

use serde::{Deserialize, Serialize};

use crate::space_report::SpaceReport;

/// The characters prefix mode splits on by default: the keyspace's base 62.
pub const BASE62_ALPHABET: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// How a listing splits the key space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case", tag = "mode")]
pub enum ListMode {
    /// One paginator.
    Serial,
    /// One paginator per `depth` leading characters of `alphabet` (plus the gaps
    /// between them), as many at a time as the listing has listers.
    Prefix { depth: u32, alphabet: String },
    /// Ranges cut while listing, so every lister stays busy; seeded from one delimiter
    /// page when the keys look like folders.
    Adaptive { delimiter: Option<String> },
}

impl ListMode {
    /// Prefix mode over keystorm's base-62 alphabet.
    pub fn base62_prefix(depth: u32) -> ListMode {
        ListMode::Prefix {
            depth,
            alphabet: BASE62_ALPHABET.to_string(),
        }
    }

    /// Adaptive mode seeded from `/` folders.
    pub fn adaptive_from_folders() -> ListMode {
        ListMode::Adaptive {
            delimiter: Some("/".to_string()),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            ListMode::Serial => "serial",
            ListMode::Prefix { .. } => "prefix",
            ListMode::Adaptive { .. } => "adaptive",
        }
    }
}

/// A finished (or stopped) listing.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ListOutcome {
    pub bucket: String,
    pub prefix: String,
    pub mode: ListMode,
    /// Listers that listed the bucket at once (1 in serial mode); in a merged run, the
    /// listers of all the shards that listed it, added up. Also written as the
    /// deprecated `concurrency` until the next release, and read from it in runs
    /// recorded before.
    #[serde(flatten, with = "crate::renamed::listers")]
    #[cfg_attr(feature = "openapi", schema(value_type = crate::renamed::ListersCount))]
    pub listers: u32,
    pub keys: u64,
    /// Sum of the listed objects' sizes.
    pub bytes: u64,
    /// ListObjectsV2 requests, failed ones included.
    pub requests: u64,
    pub errors: u64,
    /// Ranges listed (1 for serial), and how many of them were cut from busy ranges.
    pub ranges: u64,
    pub cuts: u64,
    pub seconds: f64,
    /// False when the listing was stopped before the end.
    pub complete: bool,
    pub report: Option<SpaceReport>,
}

impl ListOutcome {
    pub fn keys_per_sec(&self) -> f64 {
        if self.seconds > 0.0 {
            self.keys as f64 / self.seconds
        } else {
            0.0
        }
    }
}
