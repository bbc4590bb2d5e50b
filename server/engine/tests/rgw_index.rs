//! Bucket-index awareness against the embedded target's imitation of RGW: buckets
//! created pre-sharded report their shard count, a dynamic reshard is recorded as an
//! event with the write stall next to it (where the target itself says it resharded),
//! and injected faults are counted by class exactly as the target injected them.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use keystorm_results::RunEvent;
use keystorm_results::{
    BucketIndex, INTERVALS_FILE, IntervalRecord, ReshardEvent, RunStatus, StallEvent,
};
use keystorm_workload::observer::Observer;

/// Keeps every event of a run (test-sized runs only).
#[derive(Default)]
struct Events(Mutex<Vec<(u64, RunEvent)>>);

impl Observer for Events {
    fn event(&self, id: u64, event: &RunEvent) {
        self.0.lock().unwrap().push((id, event.clone()));
    }
}

impl Events {
    fn reshards(&self) -> Vec<(u64, ReshardEvent)> {
        let events = self.0.lock().unwrap();
        events
            .iter()
            .filter_map(|(id, e)| match e {
                RunEvent::Reshard(r) => Some((*id, r.clone())),
                _ => None,
            })
            .collect()
    }

    fn stalls(&self) -> Vec<(u64, StallEvent)> {
        let events = self.0.lock().unwrap();
        events
            .iter()
            .filter_map(|(id, e)| match e {
                RunEvent::Stall(s) => Some((*id, s.clone())),
                _ => None,
            })
            .collect()
    }

    fn polling(&self) -> Option<(u64, u64)> {
        let events = self.0.lock().unwrap();
        events.iter().find_map(|(_, e)| match e {
            RunEvent::IndexPolling(p) => Some((p.polls, p.failures)),
            _ => None,
        })
    }
}

async fn run_observed(
    text: &str,
    results: &std::path::Path,
) -> (Arc<Events>, keystorm_engine::executor::RunOutcome) {
    let events = Arc::new(Events::default());
    let outcome = common::run_observed(text, results, events.clone()).await;
    (events, outcome)
}

fn intervals(dir: &std::path::Path) -> Vec<IntervalRecord> {
    std::fs::read_to_string(dir.join(INTERVALS_FILE))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_presharded_bucket_reports_its_shard_count_in_phases_and_intervals() {
    let results = tempfile::tempdir().unwrap();
    let text = "name: pre\ntarget:\n  endpoint: embedded\n  embedded: { storage: size-only }\nbuckets:\n  names: [pre-sharded]\n  index: { shards: 37 }\nobjects: { size: 10B }\nbefore:\n  - { name: fill, op: put, concurrency: 4, until_objects: 500 }\n";
    let (events, outcome) = run_observed(text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let row = &outcome.summary.rows[0];
    assert_eq!(
        row.index_at_start,
        vec![BucketIndex {
            bucket: "pre-sharded".into(),
            shards: 37,
            objects: 0,
            resharding: false
        }]
    );
    assert_eq!(row.index_at_end[0].shards, 37);
    assert_eq!(row.index_at_end[0].objects, 500, "the target's own count");
    for r in intervals(&outcome.dir) {
        assert_eq!(r.index.len(), 1, "every interval carries the index");
        assert_eq!(r.index[0].shards, 37);
    }
    assert!(
        events.reshards().is_empty(),
        "a pre-sharded bucket below its threshold does not reshard"
    );
    let (polls, failures) = events.polling().expect("polling cost reported");
    assert!(
        polls >= 2,
        "polled at least at the phase's start and end, got {polls}"
    );
    assert_eq!(failures, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bucket_index_the_target_cannot_preshard_is_a_clear_error() {
    let sim = common::start_sim().await;
    let results = tempfile::tempdir().unwrap();
    // A real endpoint without admin access, and radosgw-admin named as a program that
    // does not exist: there is no way to pre-shard.
    let text = common::workload(
        &sim.endpoint(),
        "  rgw: { radosgw_admin: keystorm-no-such-radosgw-admin }\nbuckets:\n  names: [nope]\n  index: { shards: 7 }\nbefore:\n  - { name: fill, op: put, operations: 10 }\n",
    );
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Failed);
    let error = outcome.error.unwrap();
    assert!(
        error.contains("cannot be applied to this target")
            && error.contains("keystorm-no-such-radosgw-admin"),
        "{error}"
    );
}

/// The target of the stall and fault tests: a `keystorm sim`-like target of the test's
/// own, so what it did can be compared with what keystorm recorded.
async fn start_target(config: keystorm_sim::SimConfig) -> keystorm_sim::SimHandle {
    keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        keystorm_sim::SimConfig {
            credentials: Some((common::ACCESS_KEY.into(), common::SECRET_KEY.into())),
            ..config
        },
    )
    .await
    .expect("target starts")
}

const ADMIN: &str = "  rgw:\n    poll: 300ms\n    admin:\n      credentials: { access_key: test-access, secret_key: test-secret }\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dynamic_reshard_is_recorded_with_the_stall_where_the_target_resharded() {
    let sim = start_target(keystorm_sim::SimConfig {
        storage: keystorm_sim::Storage::SizeOnly,
        index: keystorm_sim::IndexConfig {
            dynamic: true,
            max_objs_per_shard: 100,
            check_interval: Duration::from_millis(100),
            reshard_time_per_object: Duration::from_micros(200),
            retry_step: Duration::from_secs(2),
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let results = tempfile::tempdir().unwrap();
    // 200 PUT/s: 11 shards × 100 objects are crossed after about 5.5 s, when the phase's
    // median is known; the reshard to 23 shards blocks writes for up to 2 s.
    let text = common::workload(
        &sim.endpoint(),
        &format!(
            "{ADMIN}buckets:\n  names: [dyn]\n  index: dynamic\nobjects: {{ size: 10B }}\nbefore:\n  - {{ name: fill, op: put, concurrency: 16, rate: 200, duration: 9s }}\n"
        ),
    );
    let (events, outcome) = run_observed(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);

    let target_reshards = sim.reshards();
    assert_eq!(target_reshards.len(), 1, "{target_reshards:?}");
    assert_eq!((target_reshards[0].from, target_reshards[0].to), (11, 23));

    let reshards = events.reshards();
    assert_eq!(reshards.len(), 1, "{reshards:?}");
    let (reshard_id, reshard) = &reshards[0];
    assert_eq!(reshard.bucket, "dyn");
    assert_eq!((reshard.from_shards, reshard.to_shards), (11, 23));

    let stalls = events.stalls();
    assert_eq!(
        stalls.len(),
        1,
        "one stall for the one reshard: {stalls:#?}"
    );
    let linked: Vec<_> = stalls
        .iter()
        .filter(|(id, s)| s.reshard == Some(*reshard_id) || reshard.stalls.contains(id))
        .collect();
    assert!(
        !linked.is_empty(),
        "a stall is linked to the reshard: {stalls:?} {reshard:?}"
    );
    for (_, s) in &linked {
        assert!(s.throughput || s.latency);
        // The writes it held are counted, the longest wait a retry step (2 s) or so.
        assert!(
            s.held_writes > 0 && s.held_writes <= s.finished_writes,
            "{s:?}"
        );
        assert!(
            (1_500_000..=5_000_000).contains(&s.longest_write_us),
            "{s:?}"
        );
        // Where the target resharded (its window, seen by polls 300 ms apart) and the
        // stall (blocked writes, released within one 2 s retry step) overlap.
        assert!(
            s.start_t_s <= reshard.end_t_s + 2.5 && s.end_t_s >= reshard.start_t_s - 1.0,
            "stall {s:?} is not where the reshard was {reshard:?}"
        );
    }
    // The interval records follow the shard count: 11, then 23.
    let shards: Vec<u32> = intervals(&outcome.dir)
        .iter()
        .filter_map(|r| r.index.first().map(|b| b.shards))
        .collect();
    assert_eq!(shards.first(), Some(&11));
    assert_eq!(shards.last(), Some(&23));
    assert!(shards.windows(2).all(|w| w[0] <= w[1]));
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reshard_first_seen_by_a_phase_closing_poll_is_placed_in_that_phase() {
    let sim = start_target(keystorm_sim::SimConfig {
        storage: keystorm_sim::Storage::SizeOnly,
        index: keystorm_sim::IndexConfig {
            dynamic: true,
            max_objs_per_shard: 10,
            check_interval: Duration::from_millis(20),
            reshard_time_per_object: Duration::from_micros(10),
            retry_step: Duration::from_millis(50),
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let results = tempfile::tempdir().unwrap();
    // Polled once an hour: the only polls that can see the reshards are the ones that
    // close each phase.
    let text = common::workload(
        &sim.endpoint(),
        &format!(
            "{}buckets:\n  names: [late]\n  index: dynamic\nobjects: {{ size: 10B }}\nbefore:\n  - {{ name: fill, op: put, concurrency: 4, until_objects: 400 }}\nrounds:\n  count: 1\n  phases:\n    - {{ name: read, op: get, concurrency: 4, operations: 400 }}\n",
            ADMIN.replace("300ms", "1h")
        ),
    );
    let (events, outcome) = run_observed(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert!(!sim.reshards().is_empty(), "the target resharded");
    let reshards = events.reshards();
    assert!(!reshards.is_empty(), "the closing polls saw a reshard");
    for (_, r) in &reshards {
        let end = r
            .end
            .as_ref()
            .unwrap_or_else(|| panic!("no phase for {r:?}"));
        assert!(["fill", "read"].contains(&end.phase.name.as_str()), "{r:?}");
    }
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn injected_faults_are_counted_by_class_exactly_and_the_run_finishes() {
    let sim = start_target(keystorm_sim::SimConfig {
        faults: keystorm_sim::FaultConfig {
            slow_down: 0.05,
            internal_error: 0.03,
            reset: 0.02,
            stall: 0.02,
            stall_time: Duration::from_millis(1500),
            seed: 11,
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let results = tempfile::tempdir().unwrap();
    let text = common::workload(
        &sim.endpoint(),
        "  timeout: 500ms\n  retries: 0\nbuckets:\n  names: [faulty]\nobjects: { size: 100B }\nbefore:\n  - { name: fill, op: put, concurrency: 8, operations: 800 }\nrounds:\n  count: 2\n  phases:\n    - { name: read, op: get, concurrency: 8, operations: 400 }\n    - { name: head, op: head, concurrency: 8, operations: 400 }\n",
    );
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let injected = sim.fault_counts();
    assert!(
        injected.slow_down > 0
            && injected.internal_error > 0
            && injected.reset > 0
            && injected.stall > 0,
        "every kind was injected: {injected:?}"
    );
    let mut counted = std::collections::BTreeMap::<String, u64>::new();
    for t in &outcome.summary.totals {
        for (class, n) in &t.stats.error_classes {
            *counted.entry(class.clone()).or_default() += n;
        }
    }
    let get = |k: &str| counted.get(k).copied().unwrap_or(0);
    assert_eq!(get("slowdown"), injected.slow_down, "{counted:?}");
    assert_eq!(get("http_500"), injected.internal_error, "{counted:?}");
    assert_eq!(get("connection"), injected.reset, "{counted:?}");
    assert_eq!(get("timeout"), injected.stall, "{counted:?}");
    sim.shutdown().await;
}
