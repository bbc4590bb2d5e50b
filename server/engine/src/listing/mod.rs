//! Listing whole buckets fast: the same key space walked by one paginator (`serial`,
//! the baseline every S3 CLI uses), by one paginator per key prefix (`prefix`, for keys
//! whose leading characters are uniform, like keystorm's), or by listers that cut
//! ranges as they find out where the keys are (`adaptive`, for buckets nobody knows:
//! folders, skew, odd characters).
//!
//! Every mode lists each key exactly once (see [`range`]); counts, bytes, the space
//! report and the optional key file are added up page by page, so memory does not grow
//! with the bucket, and a listing can save its progress and resume (see
//! [`checkpoint`]).

pub mod checkpoint;
mod density;
mod error;
mod job;
mod lister;
mod outputs;
mod prefix_cells;
mod queue;
mod queue_start;
pub mod quiesce;
mod range;
mod shard_ranges;
mod split;
mod totals;

pub use checkpoint::{CheckpointError, Checkpointing, ListCheckpoint};
pub use error::ListError;
pub use job::ListJob;
pub(crate) use job::{ListMode, ListOutcome};
pub use lister::list;
pub use outputs::{KeySink, ListOutputs, PageEvent, PageObserver};
pub use quiesce::{ConsumerCut, Quiesce};
