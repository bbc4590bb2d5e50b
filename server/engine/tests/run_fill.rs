//! A fill leaves exactly the objects its keyspace names — counted by listing the
//! target — and a fill interrupted mid-way resumes with nothing skipped. A phase that
//! ends a little after a whole second tells its last sliver folded into the second before.

mod common;

use std::collections::HashSet;
use std::sync::Arc;

use keystorm_engine::keyspace::Keyspace;
use keystorm_results::RunEvent;
use keystorm_results::RunStatus;
use keystorm_types::OpKind;
use keystorm_workload::observer::Observer;
use tokio_util::sync::CancellationToken;

const FILL: &str = "buckets:\n  names: [fill-a, fill-b]\nkeyspace:\n  seed: 9\n  prefix: f/\nobjects:\n  size: 6B\n  metadata:\n    team: \"team-{i%8}\"\nbefore:\n  - name: fill\n    op: put\n    concurrency: 24\n    until_objects: 3000\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fill_to_n_leaves_exactly_n_objects() {
    let sim = common::start_sim().await;
    let results = tempfile::tempdir().unwrap();
    let text = common::workload(&sim.endpoint(), FILL);
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert_eq!(outcome.window.len(), 3000);

    let client = common::client(&sim.endpoint()).await;
    let a = common::list_all(&client, "fill-a").await;
    let b = common::list_all(&client, "fill-b").await;
    assert_eq!(
        a.len() + b.len(),
        3000,
        "exactly N objects across both buckets"
    );
    assert_eq!(a.len(), 1500, "keys alternate between the buckets");

    let plan = common::plan(&text);
    let ks = Keyspace::new(&plan.keyspace, &plan.objects, 2);
    let listed: HashSet<String> = a.into_iter().chain(b).collect();
    for i in 0..3000 {
        assert!(listed.contains(&ks.key(i)), "key {i} missing");
    }
    let head = client.head_object("fill-b", &ks.key(7)).await.unwrap();
    assert_eq!(head.size, 6);
    assert_eq!(
        head.metadata,
        vec![("team".to_string(), "team-7".to_string())]
    );

    let fill_row = &outcome.summary.rows[0];
    assert_eq!(fill_row.phase, "fill");
    assert_eq!(fill_row.stats.ops, 3000);
    assert_eq!(fill_row.stats.errors, 0);
    assert_eq!(fill_row.stats.bytes, 3000 * 6);
}

/// Cancels the run once the window holds at least `at` objects (an event, not a timer).
struct CancelAt {
    at: u64,
    cancel: CancellationToken,
}

impl Observer for CancelAt {
    fn event(&self, _id: u64, event: &RunEvent) {
        if let RunEvent::Interval { progress, .. } = event
            && progress.objects >= self.at
        {
            self.cancel.cancel();
        }
    }
}

/// What an observer saw first of a run: the id it was named by, whether the run's
/// folder existed then, and the run's `started` event.
struct NamedFirst {
    root: std::path::PathBuf,
    seen: std::sync::Mutex<Vec<String>>,
}

impl NamedFirst {
    fn new(root: &std::path::Path) -> Arc<NamedFirst> {
        Arc::new(NamedFirst {
            root: root.to_path_buf(),
            seen: Default::default(),
        })
    }

    fn first_two(&self) -> Vec<String> {
        self.seen.lock().unwrap().iter().take(2).cloned().collect()
    }
}

impl Observer for NamedFirst {
    fn named(&self, run_id: &str) {
        let on_disk = self.root.join(run_id).exists();
        self.seen
            .lock()
            .unwrap()
            .push(format!("named {run_id} on disk {on_disk}"));
    }

    fn event(&self, _id: u64, event: &RunEvent) {
        let said = match event {
            RunEvent::Started { run_id, .. } => format!("started {run_id}"),
            _ => "other".to_string(),
        };
        self.seen.lock().unwrap().push(said);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_fill_resumes_with_nothing_skipped() {
    let sim = common::start_sim().await;
    let results = tempfile::tempdir().unwrap();
    let body = "buckets:\n  names: [resume]\nkeyspace:\n  seed: 3\nobjects:\n  size: 6B\nbefore:\n  - name: fill\n    op: put\n    concurrency: 8\n    rate: 4000\n    until_objects: 12000\n";
    let text = common::workload(&sim.endpoint(), body);
    let cancel = CancellationToken::new();
    let observer = Arc::new(CancelAt {
        at: 1,
        cancel: cancel.clone(),
    });
    let first = common::run_with(&text, results.path(), observer, cancel, None).await;
    assert_eq!(first.status, RunStatus::Interrupted);
    let stopped_at = first.window.len();
    assert!(
        stopped_at > 0 && stopped_at < 12000,
        "stopped mid-fill at {stopped_at}"
    );
    let checkpoint = keystorm_results::ResultStore::read_checkpoint(&first.dir).unwrap();
    assert_eq!(checkpoint.completed, 0, "the fill did not finish");
    assert_eq!(checkpoint.window, first.window);
    let position = checkpoint.position.expect("the stopped phase's position");
    assert!(
        position.open_part.is_none(),
        "a clean stop wrote its part's rows"
    );
    // What the stopped part measured is kept, marked as such, in the outcome and on disk.
    let stopped_rows = &first.summary.rows;
    assert_eq!(stopped_rows.len(), 1, "{stopped_rows:?}");
    assert!(stopped_rows[0].interrupted && !stopped_rows[0].resumed);
    assert_eq!(stopped_rows[0].stats.ops, stopped_at, "every finished put");
    let on_disk = keystorm_results::ResultStore::read_summary(&first.dir).unwrap();
    assert_eq!(&on_disk.rows, stopped_rows);
    assert_eq!(on_disk.totals[0].stats.ops, stopped_at);

    let resumed = NamedFirst::new(results.path());
    let second = common::run_with(
        &text,
        results.path(),
        resumed.clone(),
        CancellationToken::new(),
        Some(first.dir.clone()),
    )
    .await;
    assert_eq!(second.status, RunStatus::Completed, "{:?}", second.error);
    assert_eq!(second.run_id, first.run_id, "resume continues the same run");
    // Named again by its id before anything of the resumed part happened.
    let id = &first.run_id;
    assert_eq!(
        resumed.first_two(),
        [format!("named {id} on disk true"), format!("started {id}")]
    );
    let client = common::client(&sim.endpoint()).await;
    let keys = common::list_all(&client, "resume").await;
    assert_eq!(keys.len(), 12000);
    // The resumed part wrote only what was left, and says it is a resumed part.
    let rows = &second.summary.rows;
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(rows[1].resumed && !rows[1].interrupted);
    assert_eq!(rows[1].objects_at_start, stopped_at);
    assert_eq!(
        rows[1].stats.ops,
        12000 - stopped_at,
        "nothing written twice"
    );
    assert_eq!(second.summary.totals[0].stats.ops, 12000);
    let manifest = keystorm_results::ResultStore::read_manifest(&first.dir).unwrap();
    assert_eq!(manifest.status, RunStatus::Completed);
    assert_eq!(manifest.resumed_at.len(), 1);

    // The event log spans both attempts with contiguous ids: a viewer replaying it
    // sees the interruption and the resume.
    let events = std::fs::read_to_string(first.dir.join("events.jsonl")).unwrap();
    let events: Vec<serde_json::Value> = events
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<u64> = events.iter().map(|e| e["id"].as_u64().unwrap()).collect();
    assert_eq!(ids, (0..events.len() as u64).collect::<Vec<_>>());
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(names.iter().filter(|n| **n == "started").count(), 2);
    assert_eq!(names.iter().filter(|n| **n == "finished").count(), 2);
    assert_eq!(names.last(), Some(&"finished"));
    assert_eq!(events.last().unwrap()["data"]["status"], "completed");
}

/// Counts what `interval_recorded` hands over: intervals, and requests in their
/// histograms.
#[derive(Default)]
struct Recorded {
    intervals: std::sync::atomic::AtomicU64,
    in_histograms: std::sync::atomic::AtomicU64,
    ops: std::sync::atomic::AtomicU64,
}

impl Observer for Recorded {
    fn event(&self, _id: u64, _event: &RunEvent) {}

    fn interval_recorded(
        &self,
        record: &keystorm_results::IntervalRecord,
        stats: &keystorm_results::metrics::IntervalStats,
    ) {
        use std::sync::atomic::Ordering::Relaxed;
        self.intervals.fetch_add(1, Relaxed);
        let ops: u64 = record.ops.values().map(|s| s.ops).sum();
        self.ops.fetch_add(ops, Relaxed);
        let counted: u64 = stats.active().map(|(_, s)| s.latency.len()).sum();
        self.in_histograms.fetch_add(counted, Relaxed);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_interval_is_handed_to_the_observer_with_its_histograms() {
    use std::sync::atomic::Ordering::Relaxed;
    let sim = common::start_sim().await;
    let results = tempfile::tempdir().unwrap();
    let text = common::workload(&sim.endpoint(), FILL);
    let recorded = Arc::new(Recorded::default());
    let outcome = common::run_observed(&text, results.path(), recorded.clone()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let lines = std::fs::read_to_string(outcome.dir.join("intervals.jsonl"))
        .unwrap()
        .lines()
        .count() as u64;
    assert_eq!(recorded.intervals.load(Relaxed), lines);
    assert_eq!(recorded.ops.load(Relaxed), 3000);
    assert_eq!(recorded.in_histograms.load(Relaxed), 3000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_run_is_named_to_its_observer_before_its_folder_exists() {
    let sim = common::start_sim().await;
    let results = tempfile::tempdir().unwrap();
    let text = common::workload(&sim.endpoint(), FILL);
    let observer = NamedFirst::new(results.path());
    let outcome = common::run_observed(&text, results.path(), observer.clone()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let id = &outcome.run_id;
    assert_eq!(
        observer.first_two(),
        [format!("named {id} on disk false"), format!("started {id}")]
    );
}

/// Keeps the interval events of phase `read`.
#[derive(Default)]
struct Intervals(std::sync::Mutex<Vec<RunEvent>>);

impl Observer for Intervals {
    fn event(&self, _id: u64, event: &RunEvent) {
        if let RunEvent::Interval { record, .. } = event
            && record.phase == "read"
        {
            self.0.lock().unwrap().push(event.clone());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sliver_of_a_last_interval_comes_folded_into_the_interval_before() {
    let sim = common::start_sim().await;
    let results = tempfile::tempdir().unwrap();
    // 250 GETs at 200/s: one full second, then a last quarter of a second. (A rate
    // an unoptimised client keeps on a machine whose cores are taken by others too:
    // at 1,000/s one fell 0.2 s behind, and its last interval was no sliver.)
    let text = common::workload(
        &sim.endpoint(),
        "buckets: { names: [sliver], create: true }\nobjects: { size: 1KiB }\n\
         before:\n  - { name: fill, op: put, concurrency: 8, until_objects: 100 }\n  \
         - { name: read, op: get, concurrency: 8, rate: 200, operations: 250 }\n",
    );
    let seen = Arc::new(Intervals::default());
    let outcome = common::run_observed(&text, results.path(), seen.clone()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let events = seen.0.lock().unwrap().clone();
    let records: Vec<_> = events
        .iter()
        .map(|e| match e {
            RunEvent::Interval { record, folded, .. } => (record.clone(), folded.clone()),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(records.len(), 2, "{records:#?}");
    let (first, none) = &records[0];
    assert!(none.is_none());
    let (sliver, folded) = &records[1];
    assert!(sliver.duration_s < 0.5, "{sliver:?}");
    let folded = folded.as_ref().expect("the sliver comes folded");
    // The interval before with the sliver in it: its number and start, both durations,
    // all the operations, latency from the merged histograms.
    assert_eq!((folded.interval, folded.t_s), (first.interval, first.t_s));
    assert!((folded.duration_s - first.duration_s - sliver.duration_s).abs() < 1e-3);
    let ops = |r: &keystorm_results::IntervalRecord| r.ops[&OpKind::Get].ops;
    assert_eq!(ops(folded), 250);
    assert_eq!(ops(first) + ops(sliver), 250);
    let get = &folded.ops[&OpKind::Get];
    assert!((get.ops_per_sec - 250.0 / folded.duration_s).abs() < 1e-6);
    let max = first.ops[&OpKind::Get]
        .latency_us
        .max
        .max(sliver.ops[&OpKind::Get].latency_us.max);
    assert_eq!(get.latency_us.max, max);
}
