//! A listing as asked for (bucket, prefix, mode, listers); how it ended is the
//! results model's [`ListOutcome`].

use keystorm_results::Shard;
pub(crate) use keystorm_results::{ListMode, ListOutcome};

/// One listing to run.
#[derive(Debug, Clone)]
pub struct ListJob {
    pub bucket: String,
    pub prefix: String,
    pub mode: ListMode,
    /// Listers (requests in flight); serial mode uses one.
    pub listers: u32,
    /// Keys per page (`max-keys`).
    pub page_size: u32,
    /// Attempts after a failed page before the listing gives up.
    pub retries: u32,
    /// Group the space report's prefixes by this many characters; `None` = no report.
    pub report_depth: Option<u32>,
    /// The part of the key space this listing walks when the shards of one workload
    /// share it (prefix cells dealt out, other modes split by range); the whole of it by default.
    pub shard: Shard,
}
