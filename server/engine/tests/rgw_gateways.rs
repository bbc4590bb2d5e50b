//! Two RGW gateways of one real Ceph cluster (`scripts/ceph-up.sh` starts both) driven
//! by one run: every endpoint's share adds up to the rows exactly, and when one radosgw
//! is killed in the middle of a fill its load shifts to the other, its failed attempts
//! are counted (connection failures, at it), the run completes, and the bucket index
//! tracking goes on through the other gateway without a failed poll.
//!
//! Compiled with the `rgw-tests` feature (`scripts/test.sh` brings the cluster up and
//! turns it on); it fails, rather than skips, when the cluster is not configured.

#![cfg(feature = "rgw-tests")]

mod common;

use std::sync::{Arc, Mutex};

use keystorm_results::RunEvent;
use keystorm_results::metrics::OpSummary;
use keystorm_results::{EndpointState, IndexPollingEvent, RunStatus};
use keystorm_workload::observer::Observer;
use tokio_util::sync::CancellationToken;

use common::rgw_env;

/// Runs one of the command lines `rgw.env` gives for the second gateway (stop, start).
fn gateway2(which: &str) {
    let line = rgw_env(which);
    let status = std::process::Command::new("sh")
        .args(["-c", &line])
        .status()
        .expect("sh runs");
    assert!(status.success(), "{which} ({line}) failed: {status}");
}

/// Starts the second gateway again however the test ends.
struct Restart;

impl Drop for Restart {
    fn drop(&mut self) {
        gateway2("KEYSTORM_RGW2_START");
    }
}

/// Kills the second gateway when the fill's interval `kill_at` is told and starts it
/// again at `start_at`; keeps the events.
struct Chaos {
    kill_at: u64,
    start_at: u64,
    events: Mutex<Vec<RunEvent>>,
}

impl Observer for Chaos {
    fn event(&self, _id: u64, e: &RunEvent) {
        if let RunEvent::Interval { phase, record, .. } = e
            && phase.name == "fill"
        {
            if record.interval == self.kill_at {
                tokio::task::spawn_blocking(|| gateway2("KEYSTORM_RGW2_STOP"));
            } else if record.interval == self.start_at {
                tokio::task::spawn_blocking(|| gateway2("KEYSTORM_RGW2_START"));
            }
        }
        self.events.lock().unwrap().push(e.clone());
    }
}

fn attempts(s: &OpSummary) -> u64 {
    s.ops + s.errors + s.retries
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_radosgw_shifts_its_load_and_tracking_goes_on_through_the_other() {
    let _restart = Restart;
    let (first, second) = (
        rgw_env("KEYSTORM_RGW_ENDPOINT2"),
        rgw_env("KEYSTORM_RGW_ENDPOINT"),
    );
    let bucket = format!("ks-gw-{}", fastrand::u32(..));
    // The second gateway is listed first, so the admin API (tracking) is reached there
    // first: when it is killed, tracking must go on through the other.
    let text = format!(
        "name: rgw-gateways\ntarget:\n  endpoints: [{first}, {second}]\n  spread: round_robin\n  timeout: 30s\n  endpoint_health: {{ down_after: 2, probe: 300ms, probe_max: 1s }}\n  credentials: {{ access_key: {}, secret_key: {} }}\n  rgw:\n    poll: 500ms\n    admin:\n      credentials: {{ access_key: {}, secret_key: {} }}\nbuckets:\n  names: [{bucket}]\nobjects: {{ size: 1KiB }}\nbefore:\n  - {{ name: warm, op: put, concurrency: 8, operations: 400 }}\n  - {{ name: fill, op: put, concurrency: 8, duration: 8s }}\n  - {{ name: read, op: get, concurrency: 8, operations: 800 }}\ncleanup: {{ objects: true, buckets: true }}\n",
        rgw_env("KEYSTORM_RGW_ACCESS_KEY"),
        rgw_env("KEYSTORM_RGW_SECRET_KEY"),
        rgw_env("KEYSTORM_RGW_ADMIN_ACCESS_KEY"),
        rgw_env("KEYSTORM_RGW_ADMIN_SECRET_KEY"),
    );
    let chaos = Arc::new(Chaos {
        kill_at: 1,
        start_at: 4,
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

    // Every row breaks down into the two gateways, exactly.
    for row in &outcome.summary.rows {
        let sum = |f: fn(&OpSummary) -> u64| row.endpoints.iter().map(|e| f(&e.stats)).sum::<u64>();
        assert_eq!(sum(|s| s.ops), row.stats.ops, "{row:?}");
        assert_eq!(sum(|s| s.errors), row.stats.errors, "{row:?}");
        assert_eq!(sum(|s| s.bytes), row.stats.bytes, "{row:?}");
        assert_eq!(sum(attempts), attempts(&row.stats), "{row:?}");
    }
    let warm = outcome
        .summary
        .rows
        .iter()
        .find(|r| r.phase == "warm")
        .unwrap();
    assert_eq!(warm.stats.ops, 400);
    assert_eq!(
        warm.endpoints.len(),
        2,
        "round robin reached both: {warm:?}"
    );
    // Each worker takes the gateways in turn: about half each (a worker's odd last
    // PUT tips it by one).
    for e in &warm.endpoints {
        assert!(
            (190..=210).contains(&e.stats.ops),
            "{}: about half of the PUTs: {}",
            e.endpoint,
            e.stats.ops
        );
    }

    // The fill lost the first-listed gateway for three seconds: its failures are
    // connection failures there, and the other gateway took the load.
    let fill = outcome
        .summary
        .rows
        .iter()
        .find(|r| r.phase == "fill")
        .unwrap();
    let at = |url: &str| fill.endpoints.iter().find(|e| e.endpoint == url).unwrap();
    let lost = at(&first);
    assert!(lost.stats.errors >= 2, "{:?}", lost.stats);
    assert!(
        lost.stats
            .error_classes
            .keys()
            .all(|c| c == "connection" || c == "timeout"),
        "{:?}",
        lost.stats.error_classes
    );
    assert_eq!(at(&second).stats.errors, 0, "{:?}", at(&second).stats);
    assert!(at(&second).stats.ops > lost.stats.ops, "{fill:?}");
    let events = chaos.events.lock().unwrap().clone();
    let changes: Vec<(String, EndpointState)> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::Endpoint(e) => Some((e.endpoint.clone(), e.state)),
            _ => None,
        })
        .collect();
    assert_eq!(
        changes,
        [
            (first.clone(), EndpointState::Down),
            (first.clone(), EndpointState::Up)
        ],
        "{changes:?}"
    );

    // The reads after found every object through either gateway.
    let read = outcome
        .summary
        .rows
        .iter()
        .find(|r| r.phase == "read")
        .unwrap();
    assert_eq!(read.stats.errors, 0, "{read:?}");
    assert_eq!(read.endpoints.len(), 2);

    // Tracking polled on through the other gateway: no poll failed.
    let polling: Vec<&IndexPollingEvent> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::IndexPolling(p) => Some(p),
            _ => None,
        })
        .collect();
    assert_eq!(polling.len(), 1, "{polling:?}");
    assert!(polling[0].polls >= 10, "{:?}", polling[0]);
    assert_eq!(polling[0].failures, 0, "{:?}", polling[0]);
}
