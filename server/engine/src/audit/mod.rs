//! Comparing what a bucket lists with what must be in it, exactly, in memory that does
//! not grow with the key count (the core of the listing audit and of `keystorm diff`).
//!
//! Neither side fits in memory at a billion keys, and neither comes sorted: keystorm's
//! keys are computed in index order (random-looking names), and a listing by prefix or
//! adaptively returns its ranges in parallel. So both sides are spilled to disk by a
//! hash of the key into partitions ([`spill`]); a partition is then compared in memory
//! (its expected keys in a map, its listed keys streamed past it), and one that is too
//! large for the budget is split again by another hash first. Memory is the writers'
//! buffers and one partition's map; disk is each side's keys, once per split level.
//! [`audit`] runs one bucket's audit: its listing into the comparer (cut with the
//! listing's checkpoints, so a killed audit resumes), then the keys that must be there.
//! [`diff`] feeds two listings (or key files) into one comparer, one as each side.

mod bucket;
mod compare;
pub mod diff;
mod spill;

pub use bucket::{AuditError, AuditJob, AuditOutcome, BUDGET, Expected, audit};

pub(crate) use compare::{AuditCounts, AuditExample};
pub use compare::{Comparer, Found, FoundKind, ListedCut, Seen, Sides};
