//! Several endpoints per run, against one embedded target serving several ports (a
//! cluster's gateways in front of one store): requests spread as the workload says,
//! every endpoint's share adds up to the rows exactly and matches what that port
//! received, a slow gateway shows as slow, and a gateway lost mid-phase is marked down,
//! its load shifted (or its failures counted), probed, and found back.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use keystorm_engine::executor::RunOutcome;
use keystorm_results::RunEvent;
use keystorm_results::metrics::OpSummary;
use keystorm_results::{EndpointEvent, EndpointState, RunStatus, SummaryRow};
use keystorm_sim::{LatencyConfig, Op, PortHandle, SimHandle};
use keystorm_types::Delay;
use keystorm_types::OpKind;
use keystorm_workload::observer::Observer;
use tokio_util::sync::CancellationToken;

fn target_op(op: OpKind) -> Op {
    match op {
        OpKind::Put => Op::PutObject,
        OpKind::Get => Op::GetObject,
        OpKind::Head => Op::HeadObject,
        OpKind::List => Op::ListObjectsV2,
        OpKind::Delete => Op::DeleteObject,
    }
}

/// The target with `extra.len()` more ports, each with its added latency.
async fn gateways(extra: Vec<LatencyConfig>) -> (SimHandle, Vec<PortHandle>) {
    let sim = common::start_sim().await;
    for latency in extra {
        sim.listen_also("127.0.0.1:0".parse().unwrap(), latency)
            .await
            .expect("another port");
    }
    let ports = sim.ports();
    (sim, ports)
}

fn endpoints_workload(ports: &[PortHandle], target: &str, body: &str) -> String {
    let urls: Vec<String> = ports.iter().map(PortHandle::endpoint).collect();
    format!(
        "name: gateways\ntarget:\n  endpoints: [{}]\n  credentials:\n    access_key: {}\n    secret_key: {}\n{target}{body}",
        urls.join(", "),
        common::ACCESS_KEY,
        common::SECRET_KEY
    )
}

/// Attempts (successes, failed operations, retries) of a summary.
fn attempts(s: &OpSummary) -> u64 {
    s.ops + s.errors + s.retries
}

/// The summary row of `phase` (of its one operation).
fn phase_row<'a>(outcome: &'a RunOutcome, phase: &str) -> &'a SummaryRow {
    outcome
        .summary
        .rows
        .iter()
        .find(|r| r.phase == phase)
        .unwrap_or_else(|| panic!("no row of {phase}"))
}

/// Checks that the row's endpoints add up to it exactly.
fn adds_up(row: &SummaryRow) {
    let sum = |f: fn(&OpSummary) -> u64| row.endpoints.iter().map(|e| f(&e.stats)).sum::<u64>();
    assert_eq!(sum(|s| s.ops), row.stats.ops, "{row:?}");
    assert_eq!(sum(|s| s.errors), row.stats.errors, "{row:?}");
    assert_eq!(sum(|s| s.retries), row.stats.retries, "{row:?}");
    assert_eq!(sum(|s| s.bytes), row.stats.bytes, "{row:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_is_measured_apart_and_adds_up_to_what_its_port_received() {
    let slow = LatencyConfig {
        get: Some(Delay::Fixed(Duration::from_millis(15))),
        ..LatencyConfig::default()
    };
    let (sim, ports) = gateways(vec![LatencyConfig::default(), slow]).await;
    let text = endpoints_workload(
        &ports,
        "  spread: round_robin\n  retries: 1\n",
        "buckets:\n  names: [spread]\nobjects: { size: 1KiB }\nbefore:\n  - { name: fill, op: put, concurrency: 6, until_objects: 600 }\nrounds:\n  count: 1\n  phases:\n    - { name: read, op: get, concurrency: 6, operations: 600 }\n    - { name: mix, mix: { get: 50, head: 20, put: 20, list: 5, delete: 5 }, concurrency: 6, operations: 600, page_size: 10 }\n",
    );
    let results = tempfile::tempdir().unwrap();
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let rows = &outcome.summary.rows;
    for row in rows {
        assert_eq!(row.endpoints.len(), 3, "{row:?}");
        adds_up(row);
    }
    // Every attempt an endpoint counted is a request its port received, operation by
    // operation (bucket set-up uses other calls).
    for op in OpKind::ALL {
        for (i, port) in ports.iter().enumerate() {
            let counted: u64 = rows
                .iter()
                .filter(|r| r.op == op)
                .flat_map(|r| r.endpoints.iter().filter(|e| e.endpoint == port.endpoint()))
                .map(|e| attempts(&e.stats))
                .sum();
            assert_eq!(
                counted,
                port.requests(target_op(op)),
                "{op} at endpoint {i}"
            );
        }
    }
    // Round robin: every endpoint took a third of the reads, give or take a worker's turn.
    let read = phase_row(&outcome, "read");
    for e in &read.endpoints {
        assert!(
            (190..=210).contains(&attempts(&e.stats)),
            "{}: {:?}",
            e.endpoint,
            e.stats
        );
    }
    // The slow gateway is the slow one.
    let p50 = |url: String| {
        read.endpoints
            .iter()
            .find(|e| e.endpoint == url)
            .unwrap()
            .stats
            .latency_us
            .p50
    };
    assert!(p50(ports[2].endpoint()) >= 15_000);
    assert!(p50(ports[0].endpoint()) < 15_000 && p50(ports[1].endpoint()) < 15_000);
    // Intervals break down too, and the manifest lists the endpoints in their order.
    let manifest = keystorm_results::ResultStore::read_manifest(&outcome.dir).unwrap();
    let urls: Vec<String> = ports.iter().map(PortHandle::endpoint).collect();
    assert_eq!(manifest.endpoints, urls);
    let intervals = std::fs::read_to_string(outcome.dir.join("intervals.jsonl")).unwrap();
    let mut from_intervals = 0;
    for line in intervals.lines() {
        let r: keystorm_results::IntervalRecord = serde_json::from_str(line).unwrap();
        if r.phase == "read" {
            from_intervals += r
                .endpoints
                .iter()
                .map(|e| e.ops.get(&OpKind::Get).map_or(0, |s| s.ops))
                .sum::<u64>();
        }
    }
    assert_eq!(from_intervals, read.stats.ops);
    sim.shutdown().await;
}

/// Closes a port when the phase `phase`'s interval `close_at` is told, and reopens it at
/// `reopen_at`; keeps the endpoint events.
struct Chaos {
    port: PortHandle,
    phase: &'static str,
    close_at: u64,
    reopen_at: u64,
    events: Mutex<Vec<EndpointEvent>>,
}

impl Observer for Chaos {
    fn event(&self, _id: u64, e: &RunEvent) {
        match e {
            RunEvent::Interval { phase, record, .. } if phase.name == self.phase => {
                let port = self.port.clone();
                if record.interval == self.close_at {
                    tokio::spawn(async move { port.close().await });
                } else if record.interval == self.reopen_at {
                    tokio::spawn(async move { port.reopen().await.expect("reopens") });
                }
            }
            RunEvent::Endpoint(e) => self.events.lock().unwrap().push(e.clone()),
            _ => {}
        }
    }
}

/// A 6 s read phase over two gateways, the second lost from its second 1 to its
/// second 3; returns the read row, the endpoint events and the lost port.
async fn lose_a_gateway(on_down: &str) -> (SummaryRow, Vec<EndpointEvent>, PortHandle) {
    let (sim, ports) = gateways(vec![LatencyConfig::default()]).await;
    let text = endpoints_workload(
        &ports,
        &format!(
            "  on_endpoint_down: {on_down}\n  timeout: 2s\n  endpoint_health: {{ down_after: 2, probe: 200ms, probe_max: 400ms }}\n"
        ),
        "buckets:\n  names: [lost]\nobjects: { size: 100B }\nbefore:\n  - { name: fill, op: put, concurrency: 4, until_objects: 200 }\nrounds:\n  count: 1\n  phases:\n    - { name: read, op: get, concurrency: 4, duration: 6s }\n",
    );
    let chaos = Arc::new(Chaos {
        port: ports[1].clone(),
        phase: "read",
        close_at: 0,
        reopen_at: 2,
        events: Mutex::new(Vec::new()),
    });
    let results = tempfile::tempdir().unwrap();
    let outcome = common::run_with(
        &text,
        results.path(),
        chaos.clone(),
        CancellationToken::new(),
        None,
    )
    .await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let read = phase_row(&outcome, "read").clone();
    adds_up(&read);
    // Every attempt at the lost gateway while it was up reached it; those after were
    // refused and counted as connection failures, nothing else.
    let lost = read
        .endpoints
        .iter()
        .find(|e| e.endpoint == ports[1].endpoint())
        .unwrap();
    assert_eq!(lost.stats.ops, ports[1].requests(Op::GetObject));
    assert!(
        lost.stats.error_classes.keys().all(|c| c == "connection"),
        "{:?}",
        lost.stats.error_classes
    );
    let events = chaos.events.lock().unwrap().clone();
    sim.shutdown().await;
    (read, events, ports[1].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_gateway_is_marked_down_its_load_shifts_and_it_is_found_back() {
    let (read, events, lost) = lose_a_gateway("shift").await;
    let states: Vec<EndpointState> = events.iter().map(|e| e.state).collect();
    assert_eq!(
        states,
        [EndpointState::Down, EndpointState::Up],
        "{events:?}"
    );
    assert!(events.iter().all(|e| e.endpoint == lost.endpoint()));
    assert_eq!(events[0].failures, 2, "down after two failures in a row");
    assert!(events[1].t_s > events[0].t_s);
    assert!(events[0].phase.as_ref().is_some_and(|p| p.name == "read"));
    // Shifted: once down, its requests went to the other gateway; the failures are the
    // ones that marked it, those in flight then, and the probes.
    let failed = read
        .endpoints
        .iter()
        .find(|e| e.endpoint == lost.endpoint())
        .unwrap()
        .stats
        .errors;
    assert!(
        (2..=30).contains(&failed),
        "{failed} failures at the lost gateway"
    );
    assert_eq!(read.stats.errors, failed, "no failure elsewhere");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_count_the_lost_gateways_failures_are_counted_not_shifted() {
    let (read, events, lost) = lose_a_gateway("count").await;
    let states: Vec<EndpointState> = events.iter().map(|e| e.state).collect();
    assert_eq!(
        states,
        [EndpointState::Down, EndpointState::Up],
        "{events:?}"
    );
    // Its workers kept sending to it for two seconds: far more failures than a shift.
    let failed = read
        .endpoints
        .iter()
        .find(|e| e.endpoint == lost.endpoint())
        .unwrap()
        .stats
        .errors;
    assert!(failed > 100, "{failed} failures at the lost gateway");
}

/// The share of a 3 s open-loop read at 200 GETs/s that went to the gateway 100 ms
/// slower than the other, spread as `spread` says.
async fn slow_share(spread: &str) -> f64 {
    let slow = LatencyConfig {
        get: Some(Delay::Fixed(Duration::from_millis(100))),
        ..LatencyConfig::default()
    };
    let (sim, ports) = gateways(vec![slow]).await;
    let text = endpoints_workload(
        &ports,
        &format!("  spread: {spread}\n"),
        "buckets:\n  names: [busy]\nobjects: { size: 100B }\nbefore:\n  - { name: fill, op: put, concurrency: 4, until_objects: 100 }\nrounds:\n  count: 1\n  phases:\n    - { name: read, op: get, concurrency: 32, rate: 200, duration: 3s }\n",
    );
    let results = tempfile::tempdir().unwrap();
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let read = phase_row(&outcome, "read");
    adds_up(read);
    let at_slow = read
        .endpoints
        .iter()
        .find(|e| e.endpoint == ports[1].endpoint())
        .map_or(0, |e| attempts(&e.stats));
    sim.shutdown().await;
    at_slow as f64 / attempts(&read.stats) as f64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn least_outstanding_sends_less_to_the_gateway_that_keeps_requests_longer() {
    // In turn, the slow gateway takes half; by requests in flight, the fast one (whose
    // requests are back before the next is due) takes nearly all.
    let round_robin = slow_share("round_robin").await;
    let least = slow_share("least_outstanding").await;
    assert!(
        (0.4..=0.6).contains(&round_robin),
        "round robin: {round_robin}"
    );
    assert!(
        least < 0.2,
        "least outstanding: {least} (round robin {round_robin})"
    );
}
