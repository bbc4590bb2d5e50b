//! What a transfer shares between directions: queue depth, the partial-file suffix,
//! part ranges. How hard it pushes is the plan's `TransferSettings`.

/// Items waiting in a transfer's queue, per worker.
pub(crate) const QUEUE_PER_WORKER: usize = 8;
/// Suffix of a file being downloaded; renamed to its name once complete.
pub const PARTIAL_SUFFIX: &str = ".keystorm-partial";

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
