//! The bucket-index facts recorded with intervals, phases and reshard events: shard
//! count, object count and whether a reshard is under way, per bucket, as the target's
//! admin API reported them.

use serde::{Deserialize, Serialize};

use super::PhaseRef;

/// One bucket's index as last polled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BucketIndex {
    pub bucket: String,
    pub shards: u32,
    /// Objects in the bucket (the target's count, not the keyspace window).
    pub objects: u64,
    /// A reshard of this bucket is in progress.
    pub resharding: bool,
}

/// Shard counts for a CSV cell: `11`, or `11;101` with several buckets.
pub fn shards_cell(index: &[BucketIndex]) -> String {
    index
        .iter()
        .map(|b| b.shards.to_string())
        .collect::<Vec<_>>()
        .join(";")
}

/// Where in the run something happened: a phase and its interval number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventPosition {
    pub phase: PhaseRef,
    pub interval: u64,
}

/// A bucket's index shard count changed (seen by polling the admin API).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReshardEvent {
    pub bucket: String,
    pub from_shards: u32,
    pub to_shards: u32,
    /// Objects in the bucket when the new layout was seen.
    pub objects: u64,
    /// Seconds from the run's start: the poll before the reshard (or the one that first
    /// saw it in progress) and the poll that saw the new shard count.
    pub start_t_s: f64,
    pub end_t_s: f64,
    /// The phase and interval at those polls (none between phases).
    pub start: Option<EventPosition>,
    pub end: Option<EventPosition>,
    /// Ids of the stall events next to it (seen before it).
    pub stalls: Vec<u64>,
}

/// Consecutive intervals of a phase whose writes stalled. Stalls of the same writes
/// waiting (a later stall whose slow writes were already in flight during an earlier
/// one, as a reshard's blocked PUTs make when they finish) are told as one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StallEvent {
    pub phase: PhaseRef,
    pub first_interval: u64,
    pub last_interval: u64,
    pub start_t_s: f64,
    pub end_t_s: f64,
    /// Lowest write (PUT + DELETE) ops/s in the stall, and the phase's median before it.
    pub min_write_ops_per_sec: f64,
    pub median_write_ops_per_sec: f64,
    /// Highest write p99 in the stall, and the phase's median p99 before it. 0 when no
    /// write finished in the stall (`finished_writes`).
    pub max_write_p99_us: u64,
    pub median_write_p99_us: u64,
    /// Writes that finished in the stall, and of them those that took longer than the
    /// latency threshold (`p99_above` times the median p99: the requests the stall
    /// held), with the longest wait of all (µs). Absent (0) from stalls recorded before
    /// they were counted.
    #[serde(default)]
    pub finished_writes: u64,
    #[serde(default)]
    pub held_writes: u64,
    #[serde(default)]
    pub longest_write_us: u64,
    /// Throughput fell below the threshold / p99 rose above it.
    pub throughput: bool,
    pub latency: bool,
    /// Id of the nearest reshard event seen before the stall ended, if close enough.
    pub reshard: Option<u64>,
}

/// What polling the bucket index cost over a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IndexPollingEvent {
    pub polls: u64,
    pub failures: u64,
    pub buckets: usize,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}
