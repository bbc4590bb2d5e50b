//! One of the runs a merged run was made of, as its manifest lists them.

use serde::{Deserialize, Serialize};

use crate::run_status::RunStatus;
use crate::shard::Shard;

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
}
