//! One of the runs a merged run was made of, as its manifest lists them.

use serde::{Deserialize, Serialize};

use crate::run_status::RunStatus;
use crate::shard::Shard;
use crate::summary::TotalRow;

/// One run a merged run was made of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MergedPart {
    pub run_id: String,
    /// The part of the workload it ran (`0/1` for a run of the whole workload).
    pub shard: Shard,
    pub host: String,
    pub status: RunStatus,
    pub started_at: String,
    /// When it was resumed after an interruption (a pause, a crash, a takeover).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed_at: Vec<String>,
    /// Its own whole-run numbers per operation (throughput, latency percentiles), to
    /// spot a client slower than the others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub totals: Vec<TotalRow>,
}
