//! A bucket index layout (dynamic resharding or a fixed shard count), as a run's
//! overrides and its results label it.

use serde::{Deserialize, Serialize};

/// How a bucket's index is laid out when keystorm creates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexLayout {
    /// The target's default shard count; RGW reshards it as it grows.
    Dynamic,
    /// Created with this many index shards.
    Shards(u32),
}

impl IndexLayout {
    /// `dynamic` or `shards-N`, for run labels.
    pub fn label(self) -> String {
        match self {
            IndexLayout::Dynamic => "dynamic".to_string(),
            IndexLayout::Shards(n) => format!("shards-{n}"),
        }
    }
}
