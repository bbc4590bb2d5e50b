//! The live side of a run: every event the engine logs is also broadcast here, so SSE
//! clients get it the moment it happens. Nothing is kept in memory: a client that
//! joins late or falls behind catches up from the run's `events.jsonl`.

use std::sync::Arc;

use keystorm_engine::executor::RunEvent;
use tokio::sync::broadcast;

/// One logged event: id in the run's log, SSE event name, JSON data.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveEvent {
    pub id: u64,
    pub name: String,
    pub data: String,
}

impl LiveEvent {
    /// From a run event as the engine serializes it (`{"event", "data"}`).
    pub fn from_run_event(id: u64, event: &RunEvent) -> Option<LiveEvent> {
        let value = serde_json::to_value(event).ok()?;
        Some(LiveEvent {
            id,
            name: value.get("event")?.as_str()?.to_string(),
            data: value.get("data").map(|d| d.to_string()).unwrap_or_default(),
        })
    }

    /// From one line of `events.jsonl`; `None` for a torn or foreign line.
    pub fn from_log_line(line: &str) -> Option<LiveEvent> {
        let value: serde_json::Value = serde_json::from_str(line).ok()?;
        Some(LiveEvent {
            id: value.get("id")?.as_u64()?,
            name: value.get("event")?.as_str()?.to_string(),
            data: value.get("data").map(|d| d.to_string()).unwrap_or_default(),
        })
    }

    pub fn is_final(&self) -> bool {
        self.name == "finished"
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
