//! The endpoints a run drives — one, or the gateways of a cluster — and how each
//! request picks one: by worker, in turn, or the least busy, away from an endpoint that
//! is down (`on_endpoint_down: shift`) or not (`count`). Every attempt is reported to
//! its endpoint's [`health`], and the operation tells which endpoint each of its
//! attempts went to, so results break down by endpoint exactly.

mod health;

use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

pub(crate) use health::Change;
use health::Health;

use crate::plan::{GatewaysPlan, OnEndpointDown, Spread};
use keystorm_s3::{S3Client, retry};
use keystorm_types::{ErrorClass, OpError};

/// Changes kept between two looks at most (a flapping endpoint cannot grow memory).
const MAX_CHANGES: usize = 1024;

/// One endpoint: its URL, its client (one attempt per call) and its state.
pub(crate) struct Gateway {
    pub url: String,
    client: S3Client,
    in_flight: AtomicU32,
    health: Health,
}

pub(crate) struct Gateways {
    gates: Box<[Gateway]>,
    plan: GatewaysPlan,
    /// Where this shard's workers start: its index mod the endpoints.
    offset: usize,
    retries: u32,
    start: Instant,
    changes: Mutex<Vec<Change>>,
}

/// A worker's place in the spread: its number, and its turn for `round_robin`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seat {
    worker: usize,
    turn: usize,
}

impl Seat {
    pub fn new(worker: u32) -> Seat {
        Seat {
            worker: worker as usize,
            turn: 0,
        }
    }

    /// The seat of part `n` of this worker's operation on a big object: the spread
    /// goes on from the worker's turn, so its parts spread like consecutive requests.
    pub fn part(&self, n: u32) -> Seat {
        Seat {
            worker: self.worker,
            turn: self.turn.wrapping_add(n as usize),
        }
    }
}

/// Where one attempt goes: the endpoint, and whether it is the probe of a down one.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Choice {
    endpoint: usize,
    probe: bool,
}

/// The failed attempts of an operation that were tried again: each one's class and the
/// endpoint it went to.
pub(crate) type Retried = Vec<(ErrorClass, usize)>;

impl Gateways {
    /// The endpoints `urls` with their clients (`clients[i]` reaches `urls[i]`, each
    /// making one attempt per call), for shard `shard_index`; operations are tried
    /// `1 + retries` times at most.
    pub fn new(
        endpoints: Vec<(String, S3Client)>,
        plan: GatewaysPlan,
        shard_index: u32,
        retries: u32,
    ) -> Gateways {
        let k = endpoints.len().max(1);
        Gateways {
            gates: endpoints
                .into_iter()
                .map(|(url, client)| Gateway {
                    url,
                    client: client.without_retries(),
                    in_flight: AtomicU32::new(0),
                    health: Health::default(),
                })
                .collect(),
            plan,
            offset: shard_index as usize % k,
            retries,
            start: Instant::now(),
            changes: Mutex::new(Vec::new()),
        }
    }

    pub fn urls(&self) -> Vec<String> {
        self.gates.iter().map(|g| g.url.clone()).collect()
    }

    /// Whether results break down by endpoint (more than one).
    pub fn several(&self) -> bool {
        self.gates.len() > 1
    }

    /// The state changes since the last call, oldest first.
    pub fn take_changes(&self) -> Vec<Change> {
        std::mem::take(&mut *self.changes.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Runs one operation: each attempt goes where the spread sends it, is reported to
    /// that endpoint's health, and a failed one is tried again (as `target.retries`
    /// allows) and noted in `retried` with its endpoint. Returns the last attempt's
    /// result and its endpoint.
    pub async fn run<'a, T, F, Fut>(
        &'a self,
        seat: &mut Seat,
        retried: &mut Retried,
        mut attempt: F,
    ) -> (Result<T, OpError>, usize)
    where
        F: FnMut(&'a S3Client) -> Fut,
        Fut: Future<Output = Result<T, OpError>>,
    {
        let mut left = self.retries;
        loop {
            let choice = self.choose(seat);
            let gate = &self.gates[choice.endpoint];
            let counted = self.plan.spread == Spread::LeastOutstanding;
            if counted {
                gate.in_flight.fetch_add(1, Ordering::Relaxed);
            }
            let sent = Instant::now();
            let r = attempt(&gate.client).await;
            if counted {
                gate.in_flight.fetch_sub(1, Ordering::Relaxed);
            }
            self.report(choice, sent, r.as_ref().err());
            match r {
                Err(e) if left > 0 && retry::retriable(e.class) => {
                    retried.push((e.class, choice.endpoint));
                    left -= 1;
                }
                r => return (r, choice.endpoint),
            }
        }
    }

    fn now_ms(&self) -> (Instant, u64) {
        let now = Instant::now();
        let ms = now.saturating_duration_since(self.start).as_millis() as u64;
        (now, ms)
    }

    fn report(&self, choice: Choice, sent: Instant, error: Option<&OpError>) {
        let health = &self.gates[choice.endpoint].health;
        let failure = error.map(|e| (e.class, e.message.as_str()));
        // The common case (an answer from an endpoint that is up) touches nothing shared.
        if failure.is_none_or(|(c, _)| !health::is_loss(c)) && !choice.probe && !health.is_down() {
            health.answered();
            return;
        }
        let sent_ms = sent.saturating_duration_since(self.start).as_millis() as u64;
        if let Some(change) = health.report(
            choice.endpoint,
            failure,
            (choice.probe, sent_ms),
            self.now_ms(),
            &self.plan,
        ) {
            let mut changes = self.changes.lock().unwrap_or_else(|p| p.into_inner());
            if changes.len() < MAX_CHANGES {
                changes.push(change);
            }
        }
    }

    fn choose(&self, seat: &mut Seat) -> Choice {
        let k = self.gates.len();
        if k == 1 {
            return Choice {
                endpoint: 0,
                probe: false,
            };
        }
        let turn = seat.turn;
        let first = match self.plan.spread {
            Spread::PerWorker => (self.offset + seat.worker) % k,
            Spread::RoundRobin => {
                seat.turn = seat.turn.wrapping_add(1);
                (self.offset + seat.worker + turn) % k
            }
            Spread::LeastOutstanding => {
                seat.turn = seat.turn.wrapping_add(1);
                self.least_busy((self.offset + seat.worker + turn) % k)
            }
        };
        let go = |endpoint| Choice {
            endpoint,
            probe: false,
        };
        if self.plan.on_down == OnEndpointDown::Count || !self.gates[first].health.is_down() {
            return go(first);
        }
        if self.gates[first].health.claim_probe(self.now_ms().1) {
            return Choice {
                endpoint: first,
                probe: true,
            };
        }
        // Shifted: spread over the endpoints that are up, each worker keeping to one
        // (`per_worker`) or taking them in turn.
        let up = self.gates.iter().filter(|g| !g.health.is_down()).count();
        if up == 0 {
            return go(first);
        }
        let nth = match self.plan.spread {
            Spread::PerWorker => seat.worker / k,
            _ => seat.worker + turn,
        } % up;
        let mut ups = (0..k).filter(|&i| !self.gates[i].health.is_down());
        go(ups.nth(nth).unwrap_or(first))
    }

    /// The endpoint with the fewest requests in flight (down ones aside when they
    /// shift), looking from `from` so that ties spread.
    fn least_busy(&self, from: usize) -> usize {
        let k = self.gates.len();
        let skip_down = self.plan.on_down == OnEndpointDown::Shift;
        let mut best = from;
        let mut best_load = u32::MAX;
        for j in 0..k {
            let i = (from + j) % k;
            let g = &self.gates[i];
            if skip_down && g.health.is_down() {
                continue;
            }
            let load = g.in_flight.load(Ordering::Relaxed);
            if load < best_load {
                best = i;
                best_load = load;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use keystorm_s3::{ClientConfig, TlsConfig};
    use keystorm_types::ErrorClass;
    use keystorm_types::{ClientKind, Credentials};

    /// Three endpoints no request is sent to (choosing never connects).
    async fn three(spread: Spread, on_down: OnEndpointDown, shard: u32) -> Gateways {
        let mut endpoints = Vec::new();
        for port in [1, 2, 3] {
            let config = ClientConfig {
                kind: ClientKind::Fast,
                endpoint: format!("http://127.0.0.1:{port}"),
                region: "us-east-1".into(),
                path_style: true,
                credentials: Credentials {
                    access_key_id: "k".into(),
                    secret_access_key: "s".into(),
                    session_token: None,
                },
                tls: TlsConfig::default(),
                timeout: Some(Duration::from_secs(1)),
                retries: 0,
                pool_size: 1,
                checksums: false,
                payload_signing: false,
            };
            let client = S3Client::connect(&config).await.unwrap();
            endpoints.push((config.endpoint, client));
        }
        let plan = GatewaysPlan {
            spread,
            on_down,
            down_after: 1,
            probe: Duration::from_secs(60),
            ..GatewaysPlan::default()
        };
        Gateways::new(endpoints, plan, shard, 0)
    }

    fn picks(g: &Gateways, worker: u32, n: usize) -> Vec<usize> {
        let mut seat = Seat::new(worker);
        (0..n).map(|_| g.choose(&mut seat).endpoint).collect()
    }

    fn lose(g: &Gateways, endpoint: usize) {
        let refused = OpError::new(ErrorClass::Connection, "connection refused");
        let choice = Choice {
            endpoint,
            probe: false,
        };
        g.report(choice, Instant::now(), Some(&refused));
    }

    #[tokio::test]
    async fn shard_i_starts_at_endpoint_i_mod_k_and_workers_follow_on() {
        let g = three(Spread::PerWorker, OnEndpointDown::Shift, 4).await;
        // Shard 4 of any count starts at 4 mod 3 = 1; each worker keeps to its endpoint.
        assert_eq!(picks(&g, 0, 3), [1, 1, 1]);
        assert_eq!(picks(&g, 1, 3), [2, 2, 2]);
        assert_eq!(picks(&g, 2, 3), [0, 0, 0]);
        let g = three(Spread::RoundRobin, OnEndpointDown::Shift, 0).await;
        assert_eq!(picks(&g, 0, 4), [0, 1, 2, 0]);
        assert_eq!(picks(&g, 2, 4), [2, 0, 1, 2]);
    }

    #[tokio::test]
    async fn a_down_endpoints_workers_shift_to_the_others_unless_failures_are_counted() {
        let g = three(Spread::PerWorker, OnEndpointDown::Shift, 0).await;
        lose(&g, 1);
        assert_eq!(g.take_changes().len(), 1);
        // Worker 1 (endpoint 1's) and worker 4 (also endpoint 1's) go to the two others.
        assert_eq!(picks(&g, 1, 2), [0, 0]);
        assert_eq!(picks(&g, 4, 2), [2, 2]);
        assert_eq!(picks(&g, 0, 1), [0]);
        let g = three(Spread::PerWorker, OnEndpointDown::Count, 0).await;
        lose(&g, 1);
        assert_eq!(picks(&g, 1, 2), [1, 1], "counted, not shifted");
    }
}
