//! Where a listing's keys and requests go besides its counts: a key file, a queue a
//! consumer drains, a checkpoint, and an observer of every request.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::checkpoint::Checkpointing;
use keystorm_types::ErrorClass;
use keystorm_types::ListEntry;

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
