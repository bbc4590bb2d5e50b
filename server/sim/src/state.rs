//! What every request handler shares: the store, the credentials it checks, the fault
//! injector, the request counters and the list of ports; what the requests arriving on
//! one port share beyond that (the port's number, added latency, faults and request
//! counters); and the error that drops a connection. The accept loop (server.rs), the
//! ports (ports.rs) and the handlers (handlers.rs, admin.rs) all use it, and it uses
//! none of them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::LatencyConfig;
use crate::request::Op;
use crate::store::Store;

pub(crate) struct State {
    pub store: Arc<Store>,
    pub credentials: Option<(String, String)>,
    /// Shared with the reshard thread, which draws the index entries it loses.
    pub injector: Arc<crate::inject::Injector>,
    pub no_multi_delete: bool,
    /// Requests received, by operation (admin calls not counted).
    pub requests: [std::sync::atomic::AtomicU64; crate::request::Op::COUNT],
    /// GETs and HEADs per key, when the configuration asks for them.
    pub key_tally: Option<crate::tally::KeyTally>,
    /// Every port the target listens on, for the admin API.
    pub ports: crate::port_list::PortList,
    /// The places of `SimConfig::max_inflight` (fair: waiters are served in order).
    pub inflight: Option<tokio::sync::Semaphore>,
}

/// What the requests arriving on one port share beyond the target's state.
pub(crate) struct Port {
    pub state: Arc<State>,
    /// The port number it listens on.
    pub number: u16,
    /// The port's own faults, drawn after the target's.
    pub faults: crate::port_faults::PortFaults,
    /// Whether `extra` adds anything: requests on a port without extra latency read
    /// this flag only.
    any_extra: AtomicBool,
    /// The port's added latency; `None` adds nothing.
    extra: Mutex<Option<Extra>>,
    /// Requests received on this port, by operation (admin calls not counted, as in
    /// `State::requests`).
    requests: [AtomicU64; Op::COUNT],
}

struct Extra {
    latency: LatencyConfig,
    /// The port's own generator: its draws never shift the target's (a fault seed gives
    /// the same faults to the same sequence of requests, however many ports there are).
    rng: fastrand::Rng,
}

impl Port {
    pub fn new(state: Arc<State>, number: u16, extra: LatencyConfig) -> Port {
        let port = Port {
            state,
            number,
            faults: Default::default(),
            any_extra: AtomicBool::new(false),
            extra: Mutex::new(None),
            requests: Default::default(),
        };
        port.set_extra(extra);
        port
    }

    /// Replaces the latency the port adds.
    pub fn set_extra(&self, latency: LatencyConfig) {
        let any = [
            latency.put,
            latency.get,
            latency.head,
            latency.list,
            latency.delete,
        ]
        .iter()
        .any(Option::is_some);
        let mut extra = self.extra.lock().unwrap_or_else(|p| p.into_inner());
        *extra = any.then(|| Extra {
            latency,
            rng: fastrand::Rng::new(),
        });
        self.any_extra.store(any, Ordering::Relaxed);
    }

    /// Requests of `op` received on this port so far.
    pub fn requests(&self, op: Op) -> u64 {
        self.requests[op as usize].load(Ordering::Relaxed)
    }

    /// Counts a request of `op` received on this port.
    pub fn count(&self, op: Op) {
        self.requests[op as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// The latency this port adds to one request of `op`, if any.
    pub fn delay(&self, op: Op) -> Option<Duration> {
        if !self.any_extra.load(Ordering::Relaxed) {
            return None;
        }
        let mut extra = self.extra.lock().unwrap_or_else(|p| p.into_inner());
        let extra = extra.as_mut()?;
        let (_, delay) = crate::inject::latency_of(&extra.latency, op)?;
        Some(delay.sample(&mut extra.rng))
    }
}

/// An injected reset: the service fails, so hyper drops the connection unanswered.
#[derive(Debug)]
pub(crate) struct Reset;

impl std::fmt::Display for Reset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection reset by fault injection")
    }
}

impl std::error::Error for Reset {}
