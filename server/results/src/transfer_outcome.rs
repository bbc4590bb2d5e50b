//! How a download or upload pass ended: objects and bytes moved, skipped and failed,
//! and the rate of single streams, as the event log records it.

use serde::{Deserialize, Serialize};

/// MiB/s of single objects (streams), over the objects of at least 1 MiB.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StreamRates {
    pub streams: u64,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TransferOutcome {
    /// `download` or `upload`.
    pub direction: String,
    /// Objects moved, and their bytes.
    pub objects: u64,
    pub bytes: u64,
    /// Objects already complete at the other end.
    pub skipped: u64,
    pub skipped_bytes: u64,
    pub failed: u64,
    /// Symbolic links an upload did not follow (all of them, or with `follow_symlinks`
    /// those leading back to a folder above them).
    #[serde(default)]
    pub symlinks_skipped: u64,
    pub seconds: f64,
    /// Bytes moved / seconds, in MiB/s.
    pub mib_per_sec: f64,
    /// Per-object rates.
    pub per_stream: StreamRates,
    /// The first failures' messages.
    pub failures: Vec<String>,
    /// False when stopped before the end.
    pub complete: bool,
}
