//! Where a reading phase's keys came from when keystorm did not write them: a bucket
//! listed at the phase's start into a key file, or a key file made earlier. Written by
//! the engine as a `keys` event before the phase reads, read back by the API, the CLI
//! and the UI, which say which bucket and file a run read and how many keys.

use serde::{Deserialize, Serialize};

use crate::PhaseRef;

/// How the key file of a phase came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum KeySourceKind {
    /// The bucket was listed at the phase's start (`keys: {from: listing}`).
    Listing,
    /// A key file made earlier (`keys: {file: PATH}`).
    File,
}

/// The keys a phase reads: which bucket, which key file, how many.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KeysEvent {
    pub phase: PhaseRef,
    pub source: KeySourceKind,
    pub bucket: String,
    /// The prefix listed (listings only; `None`: the whole bucket).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// The key file: its name in the run folder for a listing, the workload's path for
    /// a file made earlier.
    pub file: String,
    /// Keys in the key file.
    pub keys: u64,
    /// Keys this run reads: all of them, or its shard's part (`--shard`, agents).
    pub part_keys: u64,
    /// Bytes of the objects listed (listings only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_bytes: Option<u64>,
    /// Seconds the listing took (listings only; 0 when a resumed run found its key file
    /// complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_seconds: Option<f64>,
    /// With `epochs: N`: every key is read exactly N times, each epoch in its own order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epochs: Option<u32>,
}
