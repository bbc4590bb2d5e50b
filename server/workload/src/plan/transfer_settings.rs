//! How hard a transfer pushes (objects and parts in flight, part size), as
//! `keystorm download`/`upload` flags and a transfer phase's fields set it.

use serde::{Deserialize, Serialize};

use crate::counts;

/// How hard to push, for both directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransferSettings {
    /// Objects (files) moving at once.
    pub in_flight: u32,
    /// Size of a multipart part (up) or of a ranged GET (down).
    pub part_size: u64,
    /// Objects larger than this move in parts.
    pub parts_above: u64,
    /// Parts of one object moving at once.
    pub parts_in_flight: u32,
    /// Skip what is already complete at the other end.
    pub resume: bool,
}

impl Default for TransferSettings {
    fn default() -> Self {
        TransferSettings {
            in_flight: counts::IN_FLIGHT.default,
            part_size: 16 << 20,
            parts_above: 64 << 20,
            parts_in_flight: counts::PARTS_IN_FLIGHT.default,
            resume: true,
        }
    }
}
