//! The live side of a run: every event the engine logs is also broadcast here, so SSE
//! clients get it the moment it happens. Nothing is kept in memory: a client that
//! joins late or falls behind catches up from the run's `events.jsonl`.

use std::sync::Arc;

use keystorm_results::RawEvent;
use keystorm_results::RunEvent;
use tokio::sync::broadcast;

/// One logged event: id in the run's log, SSE event name, JSON data.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveEvent {
    pub id: u64,
    pub name: String,
    pub data: String,
}

impl LiveEvent {
    /// From a run event, as it is logged.
    pub fn from_run_event(id: u64, event: &RunEvent) -> Option<LiveEvent> {
        RawEvent::of(id, event).map(LiveEvent::from)
    }

    pub fn is_final(&self) -> bool {
        self.name == "finished"
    }
}

/// From a line of the run's `events.jsonl`.
impl From<RawEvent> for LiveEvent {
    fn from(raw: RawEvent) -> LiveEvent {
        LiveEvent {
            id: raw.id,
            name: raw.name,
            data: raw.data,
        }
    }
}

/// Capacity of the broadcast ring; a slower client re-reads the log instead.
const CAPACITY: usize = 1024;

#[derive(Clone)]
pub struct Hub {
    tx: broadcast::Sender<Arc<LiveEvent>>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            tx: broadcast::channel(CAPACITY).0,
        }
    }
}

impl Hub {
    pub fn publish(&self, event: LiveEvent) {
        // No subscribers is fine: nobody is watching.
        let _ = self.tx.send(Arc::new(event));
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<LiveEvent>> {
        self.tx.subscribe()
    }
}
