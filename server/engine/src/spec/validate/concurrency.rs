//! The two counts of things a phase keeps going at once, each checked here and nowhere
//! else, with one limit per name. `concurrency` is what the phase itself runs in
//! parallel, whatever its kind: workers of an ops phase or a mix, listers of a complete
//! listing, HEAD workers of a metadata scan, objects moving at once in a download or
//! upload. `list_concurrency` is the listers feeding a scan's or a download's workers.
//! (`part_concurrency`, parts of one object, belongs to the transfer settings.)

use super::values::{R, in_range};
use crate::spec::raw::RawPhase;

const DEFAULT_CONCURRENCY: u32 = 16;
const MAX_CONCURRENCY: i64 = 100_000;
const DEFAULT_LISTERS: u32 = 4;
const MAX_LISTERS: i64 = 4096;

/// The phase's `concurrency`, for every kind of phase.
pub(super) fn concurrency(p: &RawPhase) -> R<u32> {
    match &p.concurrency {
        Some(c) => Ok(in_range(c, "concurrency", 1, MAX_CONCURRENCY)? as u32),
        None => Ok(DEFAULT_CONCURRENCY),
    }
}

/// The phase's `list_concurrency`: listers of a scan or a download.
pub(super) fn listers(p: &RawPhase) -> R<u32> {
    match &p.list_concurrency {
        Some(n) => Ok(in_range(n, "list_concurrency", 1, MAX_LISTERS)? as u32),
        None => Ok(DEFAULT_LISTERS),
    }
}
