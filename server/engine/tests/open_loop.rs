//! An open loop sends on time. Its latency counts from each request's scheduled send
//! time, so a request that leaves late is charged its lateness as the store's latency;
//! sent from tokio's millisecond timer wheel, every request left up to a tick late and
//! a store answering in 100 µs measured a millisecond. Measured here against the same
//! target's closed loop, and against what a sleep on tokio's wheel gives on this
//! machine at the same moment, so a loaded machine moves both sides alike.

mod common;

use std::time::Duration;

use keystorm_engine::ops::OpKind;
use keystorm_engine::results::{RunStatus, Section};
use keystorm_timer::wheel_reference::WheelReference;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_loop_latency_is_the_closed_loop_latency_not_the_timer_tick() {
    let sim = common::start_sim().await;
    let results = tempfile::tempdir().unwrap();
    // Far below what the target takes: every request can leave at its time.
    let body = "buckets:\n  names: [paced]\nkeyspace:\n  seed: 9\nobjects:\n  size: 1KiB\nbefore:\n  - { name: fill, op: put, concurrency: 8, until_objects: 200 }\nrounds:\n  count: 1\n  phases:\n    - { name: closed, op: get, concurrency: 1, operations: 1500 }\n    - { name: open, op: get, concurrency: 8, rate: 500, operations: 1500 }\n";
    let text = common::workload(&sim.endpoint(), body);
    let reference = WheelReference::start(Duration::from_millis(2));
    let outcome = common::run(&text, results.path()).await;
    let reference = reference.stop();
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let p50 = |phase: &str| {
        let row = outcome
            .summary
            .rows
            .iter()
            .find(|r| r.section == Section::Round && r.phase == phase && r.op == OpKind::Get)
            .unwrap();
        assert_eq!(row.stats.ops, 1500, "{row:?}");
        Duration::from_micros(row.stats.latency_us.p50)
    };
    let (closed, open) = (p50("closed"), p50("open"));
    // What the open loop adds to the closed loop's latency is its lateness in sending:
    // well under what a sleep on the wheel is late by.
    let added = open.saturating_sub(closed);
    assert!(
        added < reference / 2,
        "open loop p50 {open:?}, closed loop {closed:?}: {added:?} added; \
         a tokio sleep is {reference:?} late (p50)"
    );
    sim.shutdown().await;
}
