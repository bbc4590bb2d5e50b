//! How hard a transfer pushes (objects and parts in flight, part size) and what it
//! shares between directions: queue depth, the partial-file suffix, part ranges.

use serde::{Deserialize, Serialize};

/// Items waiting in a transfer's queue, per worker.
pub(crate) const QUEUE_PER_WORKER: usize = 8;
/// Suffix of a file being downloaded; renamed to its name once complete.
pub const PARTIAL_SUFFIX: &str = ".keystorm-partial";

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
            in_flight: 16,
            part_size: 16 << 20,
            parts_above: 64 << 20,
            parts_in_flight: 4,
            resume: true,
        }
    }
}

/// One request of a transfer, for latency recording.
/// The byte ranges (inclusive) of an object of `size` in parts of `part_size`.
pub(crate) fn ranges(size: u64, part_size: u64) -> impl Iterator<Item = (u64, u64)> {
    let part = part_size.max(1);
    (0..size.div_ceil(part)).map(move |i| (i * part, ((i + 1) * part).min(size) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_the_object_exactly() {
        assert_eq!(ranges(10, 4).collect::<Vec<_>>(), [(0, 3), (4, 7), (8, 9)]);
        assert_eq!(ranges(8, 4).collect::<Vec<_>>(), [(0, 3), (4, 7)]);
        assert_eq!(ranges(0, 4).count(), 0);
    }
}
