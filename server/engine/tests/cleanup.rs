//! Cleanup deletes exactly what the run wrote — in DeleteObjects batches, or one by one
//! on a target without multi-object delete — leaves everything else alone, and says
//! how far it got.

mod common;

use std::sync::{Arc, Mutex};

use keystorm_results::RunStatus;
use keystorm_results::{CleanupEvent, RunEvent};
use keystorm_sim::Op;
use keystorm_workload::observer::Observer;

async fn start(no_multi_delete: bool) -> keystorm_sim::SimHandle {
    start_with(keystorm_sim::SimConfig {
        no_multi_delete,
        ..Default::default()
    })
    .await
}

async fn start_with(config: keystorm_sim::SimConfig) -> keystorm_sim::SimHandle {
    let config = keystorm_sim::SimConfig {
        credentials: Some((
            common::ACCESS_KEY.to_string(),
            common::SECRET_KEY.to_string(),
        )),
        ..config
    };
    keystorm_sim::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("sim starts")
}

/// A target whose deletes (only) get `faults`.
async fn start_failing_deletes(faults: keystorm_sim::FaultConfig) -> keystorm_sim::SimHandle {
    start_with(keystorm_sim::SimConfig {
        faults: keystorm_sim::FaultConfig {
            ops: vec![keystorm_sim::ObjectOp::Delete],
            ..faults
        },
        ..Default::default()
    })
    .await
}

fn fill(buckets: &str, objects: u64, cleanup: &str) -> String {
    format!(
        "buckets:\n  names: [{buckets}]\nkeyspace:\n  seed: 5\n  prefix: c/\nobjects:\n  size: 6B\nbefore:\n  - name: fill\n    op: put\n    concurrency: 16\n    until_objects: {objects}\n{cleanup}"
    )
}

/// The cleanup events and the warnings of a run.
#[derive(Default)]
struct Cleanups(Mutex<(Vec<CleanupEvent>, Vec<String>)>);

impl Observer for Cleanups {
    fn event(&self, _id: u64, event: &RunEvent) {
        let mut seen = self.0.lock().unwrap();
        match event {
            RunEvent::Cleanup(c) => seen.0.push(c.clone()),
            RunEvent::Warning { message } => seen.1.push(message.clone()),
            _ => {}
        }
    }
}

async fn run_warned(text: &str) -> (Vec<CleanupEvent>, Vec<String>) {
    let results = tempfile::tempdir().unwrap();
    let events = Arc::new(Cleanups::default());
    let outcome = common::run_observed(text, results.path(), events.clone()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    events.0.lock().unwrap().clone()
}

async fn run(text: &str) -> Vec<CleanupEvent> {
    let (events, warnings) = run_warned(text).await;
    assert!(warnings.is_empty(), "{warnings:?}");
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cleanup_deletes_the_runs_objects_in_batches_and_nothing_else() {
    let sim = start(false).await;
    let client = common::client(&sim.endpoint()).await;
    // A bucket the run did not create, holding an object it did not write.
    client.create_bucket("kept").await.unwrap();
    client
        .put_object(
            "kept",
            "c/not-ours",
            bytes::Bytes::from_static(b"mine"),
            &[],
        )
        .await
        .unwrap();

    let text = common::workload(
        &sim.endpoint(),
        &fill(
            "kept, made",
            2500,
            "cleanup: { objects: true, buckets: true }\n",
        ),
    );
    let events = run(&text).await;

    assert_eq!(common::list_all(&client, "kept").await, ["c/not-ours"]);
    assert_eq!(
        sim.object_count("made"),
        None,
        "the bucket the run made is gone"
    );
    assert_eq!(sim.requests(Op::DeleteObject), 0, "no single deletes");
    let batches = sim.requests(Op::DeleteObjects);
    // 1250 keys per bucket: one full batch each, and what three workers (one per
    // 1000 objects) hold at the end.
    assert!((4..=8).contains(&batches), "{batches} DeleteObjects");

    let first = events.first().expect("a cleanup event");
    assert_eq!((first.objects, first.deleted, first.done), (2500, 0, false));
    let last = events.last().unwrap();
    assert_eq!(
        (last.objects, last.deleted, last.failed, last.requests),
        (2500, 2500, 0, batches)
    );
    assert!(last.done && !last.single_deletes);
    assert_eq!(last.buckets_deleted, 1);
    assert_eq!(events.iter().filter(|e| e.done).count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_multi_object_delete_cleanup_goes_one_by_one() {
    let sim = start(true).await;
    let text = common::workload(
        &sim.endpoint(),
        &fill("single", 300, "cleanup: { objects: true }\n"),
    );
    let events = run(&text).await;

    assert_eq!(sim.object_count("single"), Some(0), "bucket kept, emptied");
    assert_eq!(
        sim.requests(Op::DeleteObjects),
        1,
        "refused once, then not asked"
    );
    assert_eq!(sim.requests(Op::DeleteObject), 300);
    let last = events.last().expect("a cleanup event");
    assert!(last.done && last.single_deletes);
    assert_eq!(
        (
            last.deleted,
            last.failed,
            last.requests,
            last.buckets_deleted
        ),
        (300, 0, 301, 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_cleanup_nothing_is_deleted() {
    let sim = start(false).await;
    let text = common::workload(&sim.endpoint(), &fill("stays", 200, ""));
    let events = run(&text).await;
    assert_eq!(sim.object_count("stays"), Some(200));
    assert_eq!(
        sim.requests(Op::DeleteObject) + sim.requests(Op::DeleteObjects),
        0
    );
    assert!(events.is_empty(), "no cleanup, no event");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deletes_that_fail_are_counted_said_and_leave_the_objects() {
    // Every delete fails with a 500; writes go through.
    let sim = start_failing_deletes(keystorm_sim::FaultConfig {
        internal_error: 1.0,
        ..Default::default()
    })
    .await;
    let text = common::workload(
        &sim.endpoint(),
        &fill(
            "failing",
            300,
            "cleanup: { objects: true, buckets: true }\n",
        ),
    );
    let (events, warnings) = run_warned(&text).await;

    assert_eq!(sim.object_count("failing"), Some(300), "nothing deleted");
    // One batch, tried three times.
    assert_eq!(sim.requests(Op::DeleteObjects), 3);
    let last = events.last().expect("a cleanup event");
    assert_eq!(
        (
            last.deleted,
            last.failed,
            last.requests,
            last.buckets_deleted
        ),
        (0, 300, 3, 0)
    );
    let [warning] = warnings.as_slice() else {
        panic!("one warning: {warnings:?}")
    };
    assert!(
        warning.starts_with("cleanup: 300 objects could not be deleted (the first: ")
            && warning.contains("500")
            && warning.contains("bucket failing: "),
        "{warning}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workload_s_retries_do_not_multiply_cleanup_s_own() {
    // Every delete fails with a 500; the workload retries each operation twice.
    let sim = start_failing_deletes(keystorm_sim::FaultConfig {
        internal_error: 1.0,
        ..Default::default()
    })
    .await;
    let text = common::workload(
        &sim.endpoint(),
        &format!(
            "  retries: 2\n{}",
            fill("retrying", 300, "cleanup: { objects: true }\n")
        ),
    );
    let (events, _) = run_warned(&text).await;

    // Cleanup's three tries of its one batch, each a single request, each counted.
    let last = events.last().expect("a cleanup event");
    assert_eq!(sim.requests(Op::DeleteObjects), 3);
    assert_eq!((last.requests, last.failed), (3, 300));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_that_fail_alone_are_sent_again() {
    // Three keys in ten fail by themselves in every DeleteObjects answer.
    let sim = start_failing_deletes(keystorm_sim::FaultConfig {
        key_error: 0.3,
        seed: 4,
        ..Default::default()
    })
    .await;
    let text = common::workload(
        &sim.endpoint(),
        &fill("flaky", 600, "cleanup: { objects: true }\n"),
    );
    let (events, warnings) = run_warned(&text).await;

    let last = events.last().expect("a cleanup event");
    let drawn = sim.fault_counts().key_error;
    // One batch, then the keys that failed, twice more.
    assert_eq!(sim.requests(Op::DeleteObjects), 3);
    assert_eq!(last.requests, 3);
    assert_eq!(last.deleted + last.failed, 600);
    assert_eq!(sim.object_count("flaky"), Some(last.failed));
    // Most keys that failed once went on the next try: ~180, ~54, ~16 failures.
    assert!(drawn > 150, "{drawn} key failures drawn");
    assert!(last.failed * 5 < drawn, "{} left of {drawn}", last.failed);
    match warnings.as_slice() {
        [] => assert_eq!(last.failed, 0),
        [w] => assert!(
            w.contains(&format!("{} objects could not be deleted", last.failed))
                && w.contains("InternalError"),
            "{w}"
        ),
        more => panic!("{more:?}"),
    }
}

/// Stops the run, as Ctrl-C does, at the first cleanup event.
struct StopAtCleanup {
    cancel: tokio_util::sync::CancellationToken,
    seen: Cleanups,
}

impl Observer for StopAtCleanup {
    fn event(&self, id: u64, event: &RunEvent) {
        if matches!(event, RunEvent::Cleanup(_)) {
            self.cancel.cancel();
        }
        self.seen.event(id, event);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_during_cleanup_keeps_what_is_left_and_the_buckets() {
    let sim = start(false).await;
    let text = common::workload(
        &sim.endpoint(),
        &fill("kept", 3000, "cleanup: { objects: true, buckets: true }\n"),
    );
    let results = tempfile::tempdir().unwrap();
    let cancel = tokio_util::sync::CancellationToken::new();
    let observer = Arc::new(StopAtCleanup {
        cancel: cancel.clone(),
        seen: Cleanups::default(),
    });
    let outcome = common::run_with(&text, results.path(), observer.clone(), cancel, None).await;
    // The phases had completed; cleanup was cut short.
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let (events, warnings) = observer.seen.0.lock().unwrap().clone();
    let last = events.last().unwrap();
    assert!(last.done);
    assert_eq!((last.deleted, last.buckets_deleted), (0, 0));
    assert_eq!(sim.object_count("kept"), Some(3000));
    assert_eq!(sim.requests(Op::DeleteObjects), 0);
    assert_eq!(sim.requests(Op::DeleteBucket), 0, "no bucket delete tried");
    let [warning] = warnings.as_slice() else {
        panic!("one warning: {warnings:?}")
    };
    assert!(
        warning.starts_with("cleanup: stopped before cleanup ended: 0 of 3000 objects deleted"),
        "{warning}"
    );
}
