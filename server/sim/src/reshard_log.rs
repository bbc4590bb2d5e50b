//! What resharding leaves behind: the bounded log of reshards that tests and the admin
//! API read to know where the target resharded, the count of the reshard thread's passes,
//! and RGW's shard limit. The store holds it; the resharding itself (reshard.rs) writes
//! it, so both depend on this and neither on the other for it.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

/// Reshards remembered by the target.
const RESHARD_LOG: usize = 1000;
/// RGW's limit on index shards.
pub(crate) use keystorm_types::rgw_index::MAX_SHARDS;

/// A reshard the target did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReshardRecord {
    pub bucket: String,
    /// Shards before.
    pub from: u32,
    /// Shards after.
    pub to: u32,
    /// Objects moved.
    pub objects: u64,
    pub started: SystemTime,
    pub ended: SystemTime,
    /// Started by the target itself (past the threshold), not by the admin call.
    pub dynamic: bool,
}

/// The target's reshard log (the last 1000) and how many passes the reshard thread
/// made over the buckets.
#[derive(Debug, Default)]
pub struct ReshardLog {
    records: Mutex<VecDeque<ReshardRecord>>,
    checks: AtomicU64,
}

impl ReshardLog {
    pub(crate) fn push(&self, r: ReshardRecord) {
        let mut log = self.records.lock().unwrap_or_else(|p| p.into_inner());
        log.push_back(r);
        if log.len() > RESHARD_LOG {
            log.pop_front();
        }
    }

    pub fn all(&self) -> Vec<ReshardRecord> {
        self.records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    /// Counts one pass of the reshard thread over all buckets.
    pub(crate) fn count_check(&self) {
        self.checks.fetch_add(1, Ordering::AcqRel);
    }

    /// Passes of the reshard thread over all buckets so far.
    pub fn checks(&self) -> u64 {
        self.checks.load(Ordering::Acquire)
    }
}
