//! When a run's endpoints were lost and came back, read from its event log for the API
//! and the report: bounded, so an endpoint that flaps for days does not grow the answer.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::endpoints::EndpointEvent;
use crate::{EventReader, Logged, RunEvent};

/// At most this many endpoint events are listed by [`read_endpoint_events`]: an endpoint
/// that flaps for days does not make the report grow without end.
pub const MAX_ENDPOINT_EVENTS: usize = 1_000;

/// When a run's endpoints were lost and came back, in the order it happened.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EndpointsReport {
    /// The down and up events, the first 1,000 of them.
    pub events: Vec<EndpointEvent>,
    /// Events past those, counted but not listed.
    pub omitted: u64,
}

/// The endpoint events of the run in `dir` (none before it logged any).
pub fn read_endpoint_events(dir: &Path) -> EndpointsReport {
    let mut report = EndpointsReport::default();
    let Some(mut log) = EventReader::open(dir) else {
        return report;
    };
    while let Some(Logged { event, .. }) = log.next_of(&["endpoint"]) {
        if let RunEvent::Endpoint(e) = event {
            if report.events.len() < MAX_ENDPOINT_EVENTS {
                report.events.push(e);
            } else {
                report.omitted += 1;
            }
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoints::EndpointState;

    #[test]
    fn the_endpoint_events_of_a_run_are_read_back_in_order_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_endpoint_events(dir.path()), EndpointsReport::default());
        let mut log = crate::EventWriter::open(dir.path()).unwrap();
        let event = |n: usize| EndpointEvent {
            endpoint: "http://gw1".to_string(),
            state: if n.is_multiple_of(2) {
                EndpointState::Down
            } else {
                EndpointState::Up
            },
            t_s: n as f64,
            phase: None,
            failures: 3,
            detail: format!("change {n}"),
        };
        log.append(&RunEvent::Warning {
            message: "not an endpoint's".to_string(),
        });
        for n in 0..MAX_ENDPOINT_EVENTS + 5 {
            log.append(&RunEvent::Endpoint(event(n)));
        }
        drop(log);
        let report = read_endpoint_events(dir.path());
        assert_eq!(report.events.len(), MAX_ENDPOINT_EVENTS);
        assert_eq!(report.omitted, 5);
        assert_eq!(report.events[0], event(0));
        assert_eq!(report.events[1].state, EndpointState::Up);
        assert_eq!(
            report.events[MAX_ENDPOINT_EVENTS - 1].detail,
            format!("change {}", MAX_ENDPOINT_EVENTS - 1)
        );
    }
}
