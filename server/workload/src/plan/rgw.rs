//! The plan's Ceph RGW parts: bucket index layout, admin API access for shard tracking,
//! how to pre-shard, what counts as a stall, and the embedded target's imitation of
//! RGW (index, latency and fault injection). Kept apart from the core plan because
//! none of it matters to a plain S3 benchmark.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use keystorm_results::humantime_serde_dur;
use keystorm_types::OpKind;
use keystorm_types::{CredentialSource, rgw_index};

pub(crate) use keystorm_results::IndexLayout;

/// RGW features of a target.
#[derive(Debug, Clone, Serialize)]
pub struct RgwPlan {
    /// Admin ops API access; `None` = no shard tracking.
    pub admin: Option<RgwAdminPlan>,
    /// How often the bucket index is polled.
    #[serde(with = "humantime_serde_dur")]
    pub poll: Duration,
    pub preshard: PreshardMethod,
    /// The radosgw-admin command and its leading arguments.
    pub radosgw_admin: Vec<String>,
}

impl Default for RgwPlan {
    fn default() -> Self {
        RgwPlan {
            admin: None,
            poll: Duration::from_secs(2),
            preshard: PreshardMethod::Auto,
            radosgw_admin: vec!["radosgw-admin".to_string()],
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct RgwAdminPlan {
    /// `None` = the target's endpoint.
    pub endpoint: Option<String>,
    pub credentials: CredentialSource,
}

/// How a bucket is created pre-sharded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PreshardMethod {
    /// The embedded target's admin call; otherwise radosgw-admin if it is installed.
    Auto,
    /// `radosgw-admin bucket reshard` (keystorm runs beside the cluster).
    RadosgwAdmin,
    /// `POST /admin/bucket?reshard` (the embedded target, `keystorm sim`).
    AdminApi,
}

/// When an interval counts as a write stall.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StallPlan {
    /// Write ops/s below this fraction of the phase's median so far.
    pub throughput_below: f64,
    /// Write p99 above this multiple of the phase's median p99 so far.
    pub p99_above: f64,
    /// Measured intervals of a phase before stalls are judged.
    pub min_intervals: u32,
}

impl Default for StallPlan {
    fn default() -> Self {
        StallPlan {
            throughput_below: 0.25,
            p99_above: 5.0,
            min_intervals: 5,
        }
    }
}

/// The embedded target's behaviour beyond plain S3.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EmbeddedPlan {
    /// Imitate RGW's bucket index and track it (buckets or the target ask for it).
    pub rgw_like: bool,
    pub index: EmbeddedIndexPlan,
    /// Added latency per operation, as written (`2ms`, `1ms..3ms`, `exp:1ms`).
    pub latency: BTreeMap<OpKind, DelayPlan>,
    pub faults: FaultsPlan,
    /// Memory budget in bytes (`None`: the target's default, half the machine's).
    pub max_memory: Option<u64>,
    /// Requests served at once, the rest queued (`None`: no limit); at most
    /// [`MAX_INFLIGHT`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_inflight: Option<u32>,
}

/// The most `max_inflight` may be, in a workload and on `keystorm sim`.
pub const MAX_INFLIGHT: u32 = 1_000_000;

/// The embedded target's imitation of an RGW bucket index.
#[derive(Debug, Clone, Serialize)]
pub struct EmbeddedIndexPlan {
    pub shards: u32,
    pub dynamic: bool,
    pub max_objs_per_shard: u64,
    #[serde(with = "humantime_serde_dur")]
    pub check_interval: Duration,
    #[serde(with = "humantime_serde_dur")]
    pub reshard_time_per_object: Duration,
    #[serde(with = "humantime_serde_dur")]
    pub retry_step: Duration,
    #[serde(with = "humantime_serde_dur")]
    pub list_time_per_shard: Duration,
}

impl Default for EmbeddedIndexPlan {
    fn default() -> Self {
        // RGW's own defaults (`rgw_override_bucket_index_max_shards` 11,
        // `rgw_max_objs_per_shard` 100000); the embedded target starts with the same.
        EmbeddedIndexPlan {
            shards: rgw_index::DEFAULT_SHARDS,
            dynamic: false,
            max_objs_per_shard: rgw_index::DEFAULT_MAX_OBJS_PER_SHARD,
            check_interval: rgw_index::DEFAULT_CHECK_INTERVAL,
            reshard_time_per_object: rgw_index::DEFAULT_RESHARD_TIME_PER_OBJECT,
            retry_step: rgw_index::DEFAULT_RETRY_STEP,
            list_time_per_shard: rgw_index::DEFAULT_LIST_TIME_PER_SHARD,
        }
    }
}

/// A latency distribution as written, and parsed.
#[derive(Debug, Clone, Serialize)]
pub struct DelayPlan {
    pub text: String,
    #[serde(skip)]
    pub delay: keystorm_types::Delay,
}

#[derive(Debug, Clone, Serialize)]
pub struct FaultsPlan {
    pub slow_down: f64,
    pub internal_error: f64,
    pub reset: f64,
    pub stall: f64,
    /// Keys of a multi-object delete that fail alone (drawn per key).
    pub key_error: f64,
    /// GET bodies served with one bit flipped (drawn per GET).
    pub corrupt: f64,
    /// Index entries a reshard drops: the objects stay readable but are never listed
    /// (drawn per entry a reshard moves; not a request's fault).
    pub lose_on_reshard: f64,
    /// Continued listing pages that begin with the key the page before ended on
    /// (drawn per such page; not a request's alternative).
    pub list_twice: f64,
    #[serde(with = "humantime_serde_dur")]
    pub stall_time: Duration,
    pub seed: u64,
    /// Only these operations get faults (all when empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ops: Vec<OpKind>,
}

impl Default for FaultsPlan {
    /// No faults; a stall, once asked for, holds its answer 5 s.
    fn default() -> Self {
        FaultsPlan {
            slow_down: 0.0,
            internal_error: 0.0,
            reset: 0.0,
            stall: 0.0,
            key_error: 0.0,
            corrupt: 0.0,
            lose_on_reshard: 0.0,
            list_twice: 0.0,
            stall_time: Duration::from_secs(5),
            seed: 0,
            ops: Vec::new(),
        }
    }
}

impl FaultsPlan {
    /// The rates that are alternatives for one request, added up: at most 1 (a
    /// corrupted body is a GET's). Keys fail apart, and the index's faults (lost
    /// entries, repeated keys) are none of a request's.
    pub fn request_rates(&self) -> f64 {
        self.slow_down + self.internal_error + self.reset + self.stall + self.corrupt
    }
}
