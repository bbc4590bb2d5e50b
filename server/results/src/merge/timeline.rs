//! What happened to each shard in the middle of its run, on the merged run's record:
//! its pauses (stopped and resumed, paused while the controller was gone, waiting to be
//! taken over) and its endpoints lost and back, each moved onto the merged run's clock
//! and named by shard; and what the controller saw happen to the hosts (agents lost and
//! back, takeovers, its own restart). Bounded like a run's own endpoint events.

use super::parts::Part;
use crate::events::{EventReader, Logged, RunEvent};
use crate::store::ResultStore;

/// Writes the shards' pauses and endpoint changes to the merged run's events; a part's
/// takeover pause says what `takeovers` (per part) knows of it.
pub(super) fn merge(
    parts: &[Part],
    takeovers: &[Option<String>],
    start_epoch_ms: u64,
    store: &mut ResultStore,
) {
    let mut endpoint_events = 0;
    for (i, part) in parts.iter().enumerate() {
        let takeover = takeovers.get(i).and_then(Option::as_ref);
        let Some(mut log) = EventReader::open(&part.dir) else {
            continue;
        };
        // The part's seconds count from its own start; the merged run's from the first.
        let offset_s = part.start_epoch_ms.saturating_sub(start_epoch_ms) as f64 / 1000.0;
        let shard = part.shard.to_string();
        while let Some(Logged { event, .. }) = log.next_of(&["pause", "endpoint"]) {
            match event {
                RunEvent::Pause(mut p) => {
                    p.from_t_s += offset_s;
                    p.to_t_s += offset_s;
                    p.shard = Some(shard.clone());
                    if let (crate::PauseReason::TakenOver, Some(known)) = (p.reason, takeover) {
                        p.detail = format!("{known}; {}", p.detail);
                    }
                    store.write_event(&RunEvent::Pause(p));
                }
                RunEvent::Endpoint(mut e) if endpoint_events < crate::MAX_ENDPOINT_EVENTS => {
                    endpoint_events += 1;
                    e.t_s += offset_s;
                    e.detail = format!("shard {shard}: {}", e.detail);
                    store.write_event(&RunEvent::Endpoint(e));
                }
                _ => {}
            }
        }
    }
}

/// Writes what the controller saw happen to the run's hosts, moved onto the merged
/// run's clock; bounded like the controller's own record of them.
pub(super) fn merge_fleet(fleet: crate::FleetLog, start_epoch_ms: u64, store: &mut ResultStore) {
    let offset_s = (fleet.start_epoch_ms as f64 - start_epoch_ms as f64) / 1000.0;
    for event in fleet.events.iter().take(crate::MAX_FLEET_EVENTS) {
        let mut event = event.clone();
        event.t_s = (event.t_s + offset_s).max(0.0);
        store.write_event(&RunEvent::Fleet(event));
    }
}
