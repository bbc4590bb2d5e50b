//! Requests counted per object key, when asked for: a test can then prove from the
//! target's side how often each key was read (every key exactly twice over two epochs,
//! for instance) rather than trusting the client's own count. Off by default: it holds
//! an entry per key read, which a target of billions of keys must not.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::request::Op;

/// Counts of (operation, bucket, key).
#[derive(Debug, Default)]
pub(crate) struct KeyTally {
    counts: Mutex<HashMap<(Op, String, String), u64>>,
}

impl KeyTally {
    pub fn note(&self, op: Op, bucket: &str, key: &str) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        *counts
            .entry((op, bucket.to_string(), key.to_string()))
            .or_default() += 1;
    }

    /// Every (bucket, key) that received `op`, with how many times.
    pub fn of(&self, op: Op) -> HashMap<(String, String), u64> {
        let counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts
            .iter()
            .filter(|((o, _, _), _)| *o == op)
            .map(|((_, b, k), n)| ((b.clone(), k.clone()), *n))
            .collect()
    }
}
