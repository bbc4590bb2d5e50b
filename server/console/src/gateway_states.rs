//! Which gateways are up while a run drives several endpoints, for the live progress
//! line: learnt from the run's start (its endpoint list) and kept current by the
//! endpoint down/up events, so a lost gateway shows on every line until it is back.

use std::sync::Mutex;

use keystorm_results::{EndpointEvent, EndpointState};

/// The run's endpoints and those marked down now (empty until the run starts).
#[derive(Debug, Default)]
pub struct GatewayStates {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    endpoints: usize,
    /// URLs marked down, in the order they went (at most `endpoints` of them).
    down: Vec<String>,
}

impl GatewayStates {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The run started on `endpoints`, its comma-separated list of URLs.
    pub fn started(&self, endpoints: &str) {
        let mut g = self.lock();
        g.endpoints = endpoints.split(',').filter(|e| !e.is_empty()).count();
        g.down.clear();
    }

    /// An endpoint went down or came back.
    pub fn changed(&self, event: &EndpointEvent) {
        let mut g = self.lock();
        g.down.retain(|e| *e != event.endpoint);
        if event.state == EndpointState::Down {
            g.down.push(event.endpoint.clone());
        }
    }

    /// ` | gw 2/2 up`, or ` | gw 1/2 up (down: http://10.0.0.2:7480)`, when the run
    /// drives several endpoints; nothing for one.
    pub fn line(&self) -> String {
        let g = self.lock();
        if g.endpoints < 2 {
            return String::new();
        }
        let up = g.endpoints.saturating_sub(g.down.len());
        let down = if g.down.is_empty() {
            String::new()
        } else {
            format!(" (down: {})", g.down.join(", "))
        };
        format!(" | gw {up}/{} up{down}", g.endpoints)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(endpoint: &str, state: EndpointState) -> EndpointEvent {
        EndpointEvent {
            endpoint: endpoint.into(),
            state,
            t_s: 1.0,
            phase: None,
            failures: 3,
            detail: String::new(),
        }
    }

    #[test]
    fn a_gateway_lost_shows_until_it_is_back() {
        let g = GatewayStates::default();
        g.started("http://a:1,http://b:2,http://c:3");
        assert_eq!(g.line(), " | gw 3/3 up");
        g.changed(&event("http://b:2", EndpointState::Down));
        assert_eq!(g.line(), " | gw 2/3 up (down: http://b:2)");
        g.changed(&event("http://c:3", EndpointState::Down));
        g.changed(&event("http://c:3", EndpointState::Down));
        assert_eq!(g.line(), " | gw 1/3 up (down: http://b:2, http://c:3)");
        g.changed(&event("http://b:2", EndpointState::Up));
        assert_eq!(g.line(), " | gw 2/3 up (down: http://c:3)");
    }

    #[test]
    fn one_endpoint_says_nothing() {
        let g = GatewayStates::default();
        assert_eq!(g.line(), "");
        g.started("embedded");
        assert_eq!(g.line(), "");
    }
}
