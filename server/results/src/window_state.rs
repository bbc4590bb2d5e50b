//! The persisted part of a keyspace's live window `[tail, head)`: what a checkpoint
//! stores and what the summary reports, so a resumed run (or a controller taking over a
//! shard) knows which keys exist.

use serde::{Deserialize, Serialize};

/// The persisted part of a window: what a checkpoint stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WindowState {
    /// First live index (in a checkpoint: every delete below it finished).
    pub tail: u64,
    /// One past the last index whose put finished (all puts below it finished).
    pub head: u64,
}

impl WindowState {
    pub fn len(&self) -> u64 {
        self.head.saturating_sub(self.tail)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
