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
mod lister;
mod prefix_cells;
mod queue;
pub mod quiesce;
mod range;
pub mod report;
mod split;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use checkpoint::{CheckpointError, Checkpointing, ListCheckpoint};
pub use lister::list;
pub use prefix_cells::BASE62_ALPHABET;
pub use quiesce::{ConsumerCut, Quiesce};
pub use report::{ReportBuilder, SpaceReport, Tally};

use crate::ops::ErrorClass;
use crate::s3::ListEntry;

/// How a listing splits the key space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case", tag = "mode")]
pub enum ListMode {
    /// One paginator.
    Serial,
    /// One paginator per `depth` leading characters of `alphabet` (plus the gaps
    /// between them), `concurrency` at a time.
    Prefix { depth: u32, alphabet: String },
    /// Ranges cut while listing, so every lister stays busy; seeded from one delimiter
    /// page when the keys look like folders.
    Adaptive { delimiter: Option<String> },
}

impl ListMode {
    /// Prefix mode over keystorm's base-62 alphabet.
    pub fn base62_prefix(depth: u32) -> ListMode {
        ListMode::Prefix {
            depth,
            alphabet: BASE62_ALPHABET.to_string(),
        }
    }

    /// Adaptive mode seeded from `/` folders.
    pub fn adaptive_from_folders() -> ListMode {
        ListMode::Adaptive {
            delimiter: Some("/".to_string()),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            ListMode::Serial => "serial",
            ListMode::Prefix { .. } => "prefix",
            ListMode::Adaptive { .. } => "adaptive",
        }
    }
}

/// One listing to run.
#[derive(Debug, Clone)]
pub struct ListJob {
    pub bucket: String,
    pub prefix: String,
    pub mode: ListMode,
    /// Listers (requests in flight); serial mode uses one.
    pub concurrency: u32,
    /// Keys per page (`max-keys`).
    pub page_size: u32,
    /// Attempts after a failed page before the listing gives up.
    pub retries: u32,
    /// Group the space report's prefixes by this many characters; `None` = no report.
    pub report_depth: Option<u32>,
}

/// What happened to one ListObjectsV2 request, for latency recording.
#[derive(Debug, Clone, Copy)]
pub struct PageEvent {
    pub lister: usize,
    pub start: Instant,
    pub end: Instant,
    /// Keys this request contributed, or why it failed.
    pub outcome: Result<u64, ErrorClass>,
}

/// Told about every request as it finishes (the run's recorders, a CLI histogram).
pub trait PageObserver: Send + Sync {
    fn page(&self, event: PageEvent);
}

impl PageObserver for () {
    fn page(&self, _: PageEvent) {}
}

/// Where every listed key goes, when asked (a JSON-lines file).
pub type KeySink = Arc<Mutex<dyn std::io::Write + Send>>;

/// Where a listing's keys go besides the counts: a JSON-lines file, and a bounded
/// queue that a consumer (the HEAD scan) drains; listers wait while it is full.
#[derive(Clone, Default)]
pub struct ListOutputs {
    pub keys_file: Option<KeySink>,
    pub entries: Option<tokio::sync::mpsc::Sender<ListEntry>>,
    /// Save progress to a checkpoint file as the listing goes (and resume from one).
    pub checkpoint: Option<Checkpointing>,
}

/// Why a listing did not finish.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error("listing stopped: a page of {range} failed ({attempts} attempt{}): {message}", if *attempts == 1 { "" } else { "s" })]
    Page {
        range: String,
        attempts: u32,
        message: String,
    },
    #[error("cannot write the key file: {0}")]
    KeyFile(std::io::Error),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
}

/// A finished (or stopped) listing.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ListOutcome {
    pub bucket: String,
    pub prefix: String,
    pub mode: ListMode,
    pub concurrency: u32,
    pub keys: u64,
    /// Sum of the listed objects' sizes.
    pub bytes: u64,
    /// ListObjectsV2 requests, failed ones included.
    pub requests: u64,
    pub errors: u64,
    /// Ranges listed (1 for serial), and how many of them were cut from busy ranges.
    pub ranges: u64,
    pub cuts: u64,
    pub seconds: f64,
    /// False when the listing was stopped before the end.
    pub complete: bool,
    pub report: Option<SpaceReport>,
}

impl ListOutcome {
    pub fn keys_per_sec(&self) -> f64 {
        if self.seconds > 0.0 {
            self.keys as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// What was counted: a page's, a lister's or the whole listing's.
#[derive(Default)]
struct Totals {
    keys: u64,
    bytes: u64,
    requests: u64,
    errors: u64,
    report: Option<ReportBuilder>,
}

impl Totals {
    fn merge(&mut self, other: Totals) {
        self.keys += other.keys;
        self.bytes += other.bytes;
        self.requests += other.requests;
        self.errors += other.errors;
        match (&mut self.report, other.report) {
            (Some(mine), Some(theirs)) => mine.merge(&theirs),
            (None, theirs) => self.report = theirs,
            _ => {}
        }
    }

    /// Adds a page's counts and resets them for the next page.
    fn merge_page(&mut self, page: &mut Totals) {
        self.keys += std::mem::take(&mut page.keys);
        self.bytes += std::mem::take(&mut page.bytes);
        self.requests += std::mem::take(&mut page.requests);
        self.errors += std::mem::take(&mut page.errors);
        if let Some(theirs) = &mut page.report {
            match &mut self.report {
                Some(mine) => mine.merge(theirs),
                None => self.report = Some(theirs.clone()),
            }
            theirs.clear();
        }
    }

    fn take(&mut self, e: &ListEntry) {
        self.keys += 1;
        self.bytes += e.size;
        if let Some(r) = &mut self.report {
            r.add(e);
        }
    }
}

/// Pause before retry `n` (1-based) of a failed page.
fn backoff(n: u32) -> Duration {
    Duration::from_millis(100u64 << n.min(6))
}
