//! RGW's bucket index as keystorm knows it: the most shards an index may have, and the
//! defaults (RGW's own: `rgw_override_bucket_index_max_shards` 11,
//! `rgw_max_objs_per_shard` 100000) with which the simulator's imitation starts.
//! Defined once, for the workload's `target.embedded.index`, the `--index` and `keystorm
//! sim` flags, and the simulator itself.

use std::time::Duration;

/// Most index shards RGW accepts (a prime).
pub const MAX_SHARDS: u32 = 65521;

/// Shards a bucket's index starts with.
pub const DEFAULT_SHARDS: u32 = 11;
/// Objects per shard past which dynamic resharding reshards.
pub const DEFAULT_MAX_OBJS_PER_SHARD: u64 = 100_000;
/// How often the reshard thread looks at the buckets.
pub const DEFAULT_CHECK_INTERVAL: Duration = Duration::from_secs(1);
/// The shortest look interval accepted: shorter would spin.
pub const MIN_CHECK_INTERVAL: Duration = Duration::from_millis(10);
/// Time a reshard takes per object it moves.
pub const DEFAULT_RESHARD_TIME_PER_OBJECT: Duration = Duration::from_micros(10);
/// How long a write blocked by a reshard waits before it tries again.
pub const DEFAULT_RETRY_STEP: Duration = Duration::from_secs(5);
/// Time a LIST spends per index shard it reads.
pub const DEFAULT_LIST_TIME_PER_SHARD: Duration = Duration::ZERO;
