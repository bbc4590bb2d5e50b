//! What a listing audit (`op: audit`) found in one bucket: exact counts of the keys the
//! listing missed, returned more than once, returned without keystorm having written
//! them, or returned with another size, and the first examples of each. Written by the
//! engine as an `audit` event, read back by the integrity report, the API and the UI.

use serde::{Deserialize, Serialize};

use crate::PhaseRef;

/// Exact counts of a comparison between what must be there and what was listed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditCounts {
    /// Keys that must be there.
    pub expected: u64,
    /// Entries the listing returned.
    pub listed: u64,
    /// Expected keys the listing did not return.
    pub missing: u64,
    /// Expected keys the listing returned more than once.
    pub doubled: u64,
    /// Entries listed that were not expected.
    pub extra: u64,
    /// Expected keys listed with another size.
    pub size_mismatch: u64,
}

impl AuditCounts {
    /// Whether the listing is exactly what was expected.
    pub fn clean(&self) -> bool {
        self.missing == 0 && self.doubled == 0 && self.extra == 0 && self.size_mismatch == 0
    }

    /// Adds another comparison's counts (another bucket, another part).
    pub fn add(&mut self, other: &AuditCounts) {
        self.expected += other.expected;
        self.listed += other.listed;
        self.missing += other.missing;
        self.doubled += other.doubled;
        self.extra += other.extra;
        self.size_mismatch += other.size_mismatch;
    }
}

/// What is wrong with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AuditFinding {
    Missing,
    Doubled,
    Extra,
    SizeMismatch,
}

impl AuditFinding {
    pub fn as_str(self) -> &'static str {
        match self {
            AuditFinding::Missing => "missing",
            AuditFinding::Doubled => "doubled",
            AuditFinding::Extra => "extra",
            AuditFinding::SizeMismatch => "size_mismatch",
        }
    }
}

/// One key found wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditExample {
    pub finding: AuditFinding,
    pub key: String,
    /// `listed 3 times`, `listed 1024 bytes, written 2048`.
    pub detail: String,
}

/// The audit of one bucket by one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditEvent {
    pub phase: PhaseRef,
    pub bucket: String,
    pub counts: AuditCounts,
    /// The first keys of each finding (25 at most of each).
    pub examples: Vec<AuditExample>,
    /// Time spent listing (over every part of a resumed phase).
    pub list_seconds: f64,
    /// Time spent comparing, after the listing.
    pub compare_seconds: f64,
}

impl AuditEvent {
    /// Entries listed per second of listing.
    pub fn listed_per_sec(&self) -> f64 {
        if self.list_seconds > 0.0 {
            self.counts.listed as f64 / self.list_seconds
        } else {
            0.0
        }
    }
}
