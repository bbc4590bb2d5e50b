//! An open loop sends on time. Its latency counts from each request's scheduled send
//! time, so a request that leaves late is charged its lateness as the store's latency;
//! sent from tokio's millisecond timer wheel, every request left up to a tick late and
//! a store answering in 100 µs measured a millisecond. Measured here against the same
//! target's closed loop, and against what a sleep on tokio's wheel gives on this
//! machine at the same moment, so a loaded machine moves both sides alike.

mod common;

use std::time::Duration;

use keystorm_results::{RunStatus, Section};
use keystorm_timer::wheel_reference::WheelReference;
use keystorm_types::OpKind;

/// Held for a whole test: each measures whether a client keeps its schedule, so two
/// at once on a small machine would starve each other's clients (a stall at a
/// phase's end leaves slots unsent).
async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static SCHEDULE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    SCHEDULE.lock().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_loop_latency_is_the_closed_loop_latency_not_the_timer_tick() {
    let _one = one_at_a_time().await;
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

/// Keeps the run's warnings.
#[derive(Default)]
struct Warnings(std::sync::Mutex<Vec<String>>);

impl keystorm_workload::observer::Observer for Warnings {
    fn event(&self, _id: u64, event: &keystorm_results::RunEvent) {
        if let keystorm_results::RunEvent::Warning { message } = event {
            self.0.lock().unwrap().push(message.clone());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phase_the_target_cannot_keep_up_with_says_what_it_sent_and_what_it_never_did() {
    let _one = one_at_a_time().await;
    // 2 requests in flight of 5 ms each: at most 400 GETs a second, for 2,000 asked.
    let config = keystorm_sim::SimConfig {
        credentials: Some((common::ACCESS_KEY.into(), common::SECRET_KEY.into())),
        latency: keystorm_sim::LatencyConfig {
            get: Some(keystorm_types::Delay::Fixed(Duration::from_millis(5))),
            ..Default::default()
        },
        ..Default::default()
    };
    let sim = keystorm_sim::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("sim starts");
    let results = tempfile::tempdir().unwrap();
    let body = "buckets:\n  names: [behind]\nobjects:\n  size: 1KiB\nbefore:\n  - { name: fill, op: put, concurrency: 8, until_objects: 100 }\n  - { name: flood, op: get, concurrency: 2, rate: 2000, duration: 2s }\n";
    let text = common::workload(&sim.endpoint(), body);
    let warnings = std::sync::Arc::new(Warnings::default());
    let outcome = common::run_observed(&text, results.path(), warnings.clone()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let row = outcome
        .summary
        .rows
        .iter()
        .find(|r| r.phase == "flood")
        .unwrap();
    let open = row
        .open_loop
        .expect("an open-loop phase says how it kept its schedule");
    assert_eq!(open.asked_per_sec, 2000.0);
    // Every slot due before the deadline was either sent or is in the backlog: 4,000.
    assert_eq!(
        row.stats.ops + row.stats.errors + open.backlog,
        4000,
        "{open:?}"
    );
    assert!(open.backlog > 2000, "{open:?}");
    assert!(open.sent_per_sec < 1000.0 && open.behind(), "{open:?}");
    let said = warnings.0.lock().unwrap().clone();
    // One sentence for the phase, with units, saying whose side the delay was on: the
    // requests waited for one of the 2 in flight, so they left late.
    let about: Vec<&String> = said.iter().filter(|w| w.contains("flood")).collect();
    assert_eq!(about.len(), 1, "{said:#?}");
    assert!(
        about[0].starts_with("before flood: asked 2,000/s, sent ")
            && about[0].contains(" late at p50 (")
            && about[0].contains("the client could not keep up")
            && !about[0].contains("target took less"),
        "{said:#?}"
    );
    // Requests left ever later; latency counts from the schedule, so each request's
    // latency is at least its lag, and so is every percentile.
    let lag = row.stats.schedule_lag_us.expect("lag of an open loop");
    let latency = row.stats.latency_us;
    assert!(lag.p50 > 100_000, "{lag:?}");
    for (lag, latency) in [
        (lag.min, latency.min),
        (lag.p50, latency.p50),
        (lag.p99, latency.p99),
        (lag.max, latency.max),
    ] {
        assert!(lag <= latency, "lag {lag} µs over latency {latency} µs");
    }
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phase_that_keeps_its_schedule_has_no_backlog_and_a_lag_under_the_timer_tick() {
    let _one = one_at_a_time().await;
    let sim = common::start_sim().await;
    let results = tempfile::tempdir().unwrap();
    let body = "buckets:\n  names: [kept]\nobjects:\n  size: 1KiB\nbefore:\n  - { name: fill, op: put, concurrency: 8, until_objects: 100 }\n  - { name: paced, op: get, concurrency: 8, rate: 500, duration: 2s }\n";
    let text = common::workload(&sim.endpoint(), body);
    let reference = WheelReference::start(Duration::from_millis(2));
    let outcome = common::run(&text, results.path()).await;
    let reference = reference.stop();
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let row = outcome
        .summary
        .rows
        .iter()
        .find(|r| r.phase == "paced")
        .unwrap();
    let open = row.open_loop.unwrap();
    assert_eq!((open.backlog, row.stats.ops), (0, 1000), "{open:?}");
    assert!(!open.behind(), "{open:?}");
    // Sent on time: the median request left well within what a tokio sleep is late by.
    let lag = Duration::from_micros(row.stats.schedule_lag_us.unwrap().p50);
    assert!(
        lag < reference / 2,
        "lag p50 {lag:?}; a tokio sleep is {reference:?} late"
    );
    sim.shutdown().await;
}
