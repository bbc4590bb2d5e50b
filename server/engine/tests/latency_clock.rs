//! A latency ends when the response reached the client's socket, not when the client
//! got round to looking: the `fast` client reads the kernel's receive stamps, so a
//! busy or sleeping client does not add its own delay to the store's latency. A run
//! records which clock its latencies end on.

mod common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use keystorm_results::{ClockSource, ResultStore, RunStatus};
use keystorm_s3::arrival;

/// How long the client's thread is kept from looking at a response it has.
const BUSY: Duration = Duration::from_millis(20);

#[tokio::test]
async fn a_response_is_timed_when_it_reached_the_socket_not_when_its_task_looked() {
    let sim = common::start_sim().await;
    let fast = common::client_of(&sim.endpoint(), 2).await;
    fast.create_bucket("stamps").await.unwrap();
    fast.put_object("stamps", "k", Bytes::from_static(b"body"), &[])
        .await
        .unwrap();
    assert!(fast.times_arrival());
    let started = Instant::now();
    let (body, arrival) = arrival::timed(async {
        let body = fast.get_object_bytes("stamps", "k").await;
        // The response is in; the thread is busy elsewhere before anyone looks.
        std::thread::sleep(BUSY);
        body
    })
    .await;
    assert_eq!(body.unwrap(), Bytes::from_static(b"body"));
    let arrival = arrival.expect("the fast client knows when the response arrived");
    assert!(started <= arrival.first && arrival.first <= arrival.last);
    assert!(
        arrival.last + BUSY <= Instant::now(),
        "arrived {:?} ago, the thread was busy {BUSY:?} after it",
        arrival.last.elapsed()
    );

    // The SDK client cannot tell: its caller keeps its own clock.
    let sdk = common::client(&sim.endpoint()).await;
    assert!(!sdk.times_arrival());
    let (body, arrival) = arrival::timed(sdk.get_object_bytes("stamps", "k")).await;
    assert!(body.is_ok() && arrival.is_none());
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_records_the_clock_its_latencies_end_on() {
    let sim = common::start_sim().await;
    for (client, source) in [("fast", ClockSource::Socket), ("sdk", ClockSource::User)] {
        let results = tempfile::tempdir().unwrap();
        let body = format!(
            "  client: {client}\nbuckets:\n  names: [clock-{client}]\nobjects:\n  size: 1KiB\nbefore:\n  - {{ name: fill, op: put, workers: 8, until_objects: 300 }}\n  - {{ name: read, op: get, workers: 8, operations: 600 }}\n  - {{ name: paced, op: get, workers: 4, rate: 2000, operations: 300 }}\n"
        );
        let text = common::workload(&sim.endpoint(), &body);
        let outcome = common::run(&text, results.path()).await;
        assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
        let manifest = ResultStore::read_manifest(&outcome.dir).unwrap();
        let clock = manifest.latency_clock.expect("the run records its clock");
        assert_eq!(clock.source, source, "{client}");
        match source {
            // Every response on loopback is stamped: at most a stray one (a connection
            // that carried several more requests before its reader looked) is not.
            ClockSource::Socket => assert!(clock.user_timed <= 12, "{clock:?}"),
            ClockSource::User => assert_eq!(clock.user_timed, 0, "{clock:?}"),
        }
    }
    sim.shutdown().await;
}
