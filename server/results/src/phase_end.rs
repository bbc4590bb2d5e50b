//! When a phase ends (a duration, a count, a window size, one pass), as plan.json and
//! the event log's phase-start records say it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::humantime_serde_dur;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseEnd {
    #[serde(with = "humantime_serde_dur")]
    Duration(Duration),
    /// This many operations (excluding none: warm-up operations count too).
    Operations(u64),
    /// Put until the live window holds this many objects (puts) or drains to it (deletes).
    UntilObjects(u64),
    /// One complete listing of the keyspace prefix (list phases), one HEAD of every
    /// listed key (head phases over `keys: bucket`), or one download or upload pass.
    ListOnce,
    /// Every key of the phase's key file (its shard's part) read exactly this many
    /// times, each epoch in its own shuffled order.
    Epochs(u32),
}
