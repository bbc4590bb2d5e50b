//! The plan's Ceph RGW parts: bucket index layout, admin API access for shard tracking,
//! how to pre-shard, what counts as a stall, and the embedded target's imitation of
//! RGW (index, latency and fault injection). Kept apart from the core plan because
//! none of it matters to a plain S3 benchmark.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use super::{CredentialSource, humantime_serde_dur};
use crate::ops::OpKind;

/// How a bucket's index is laid out when keystorm creates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
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

impl super::Plan {
    /// Overrides the buckets' index layout (`keystorm run --index`). On the embedded
    /// target this turns the RGW imitation on, with dynamic resharding unless the
    /// workload configured the imitation itself.
    pub fn set_index(&mut self, layout: IndexLayout) {
        if !self.target.embedded.rgw_like {
            self.target.embedded.index.dynamic = true;
        }
        self.target.embedded.rgw_like = true;
        self.buckets.index = Some(layout);
    }
}

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
}

impl EmbeddedPlan {
    /// The target's configuration (storage and credentials are set by the caller).
    pub fn sim_config(&self) -> keystorm_sim::SimConfig {
        let i = &self.index;
        let delay = |op| self.latency.get(&op).map(|d: &DelayPlan| d.delay);
        keystorm_sim::SimConfig {
            index: keystorm_sim::IndexConfig {
                default_shards: i.shards,
                dynamic: i.dynamic,
                max_objs_per_shard: i.max_objs_per_shard,
                check_interval: i.check_interval,
                reshard_time_per_object: i.reshard_time_per_object,
                retry_step: i.retry_step,
                list_time_per_shard: i.list_time_per_shard,
            },
            latency: keystorm_sim::LatencyConfig {
                put: delay(OpKind::Put),
                get: delay(OpKind::Get),
                head: delay(OpKind::Head),
                list: delay(OpKind::List),
                delete: delay(OpKind::Delete),
            },
            faults: keystorm_sim::FaultConfig {
                slow_down: self.faults.slow_down,
                internal_error: self.faults.internal_error,
                reset: self.faults.reset,
                stall: self.faults.stall,
                key_error: self.faults.key_error,
                stall_time: self.faults.stall_time,
                seed: self.faults.seed,
                ops: self.faults.ops.iter().map(|&op| object_op(op)).collect(),
            },
            max_memory: self.max_memory,
            ..Default::default()
        }
    }
}

/// The injection group of a phase operation.
fn object_op(op: OpKind) -> keystorm_sim::ObjectOp {
    match op {
        OpKind::Put => keystorm_sim::ObjectOp::Put,
        OpKind::Get => keystorm_sim::ObjectOp::Get,
        OpKind::Head => keystorm_sim::ObjectOp::Head,
        OpKind::List => keystorm_sim::ObjectOp::List,
        OpKind::Delete => keystorm_sim::ObjectOp::Delete,
    }
}

/// The embedded target's bucket index (see `keystorm_sim::IndexConfig`).
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
        let d = keystorm_sim::IndexConfig::default();
        EmbeddedIndexPlan {
            shards: d.default_shards,
            dynamic: d.dynamic,
            max_objs_per_shard: d.max_objs_per_shard,
            check_interval: d.check_interval,
            reshard_time_per_object: d.reshard_time_per_object,
            retry_step: d.retry_step,
            list_time_per_shard: d.list_time_per_shard,
        }
    }
}

/// A latency distribution as written, and parsed.
#[derive(Debug, Clone, Serialize)]
pub struct DelayPlan {
    pub text: String,
    #[serde(skip)]
    pub delay: keystorm_sim::Delay,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct FaultsPlan {
    pub slow_down: f64,
    pub internal_error: f64,
    pub reset: f64,
    pub stall: f64,
    /// Keys of a multi-object delete that fail alone (drawn per key).
    pub key_error: f64,
    #[serde(with = "humantime_serde_dur")]
    pub stall_time: Duration,
    pub seed: u64,
    /// Only these operations get faults (all when empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ops: Vec<OpKind>,
}
