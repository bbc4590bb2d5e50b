//! `op: audit` against a real target on loopback that really loses and doubles listing
//! entries around its reshards: the audit counts exactly the entries the target lost
//! (missing) and the keys it listed twice (doubled), in both storage modes, and nothing
//! else; keys written by another hand are extra, a key overwritten with another size is
//! a size mismatch, and a key deleted behind keystorm's back is missing. The run's
//! integrity report reads the same counts back from its folder.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use keystorm_results::{
    AuditEvent, AuditFinding, RunEvent, RunStatus, read_integrity, whole_phase_rows,
};
use keystorm_s3::ListRequest;
use keystorm_sim::{FaultConfig, IndexConfig, SimConfig, SimHandle, Storage};

const KEYS: u64 = 4000;

async fn start(storage: Storage, faults: FaultConfig) -> SimHandle {
    let config = SimConfig {
        storage,
        credentials: Some((
            common::ACCESS_KEY.to_string(),
            common::SECRET_KEY.to_string(),
        )),
        index: IndexConfig {
            dynamic: true,
            // 11 shards of 40 to start: the fill crosses four reshards.
            max_objs_per_shard: 40,
            check_interval: Duration::from_millis(10),
            reshard_time_per_object: Duration::from_micros(1),
            retry_step: Duration::from_millis(1),
            ..Default::default()
        },
        faults,
        ..Default::default()
    };
    keystorm_sim::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("sim starts")
}

/// The audit events of a run.
#[derive(Default)]
struct Audits(Mutex<Vec<AuditEvent>>);

impl keystorm_workload::observer::Observer for Audits {
    fn event(&self, _id: u64, event: &RunEvent) {
        if let RunEvent::Audit(a) = event {
            self.0.lock().unwrap().push(a.clone());
        }
    }
}

/// A workload of objects of `size` whose first `existing` keys an earlier run wrote.
fn workload(endpoint: &str, size: &str, existing: u64, phases: &str) -> String {
    common::workload(
        endpoint,
        &format!(
            "buckets: {{ names: [aud], create: true }}\n\
             keyspace: {{ seed: 3, prefix: a/, existing: {existing} }}\n\
             objects: {{ size: {size}, content: zero }}\n{phases}"
        ),
    )
}

fn fill(keys: u64) -> String {
    format!("before:\n  - {{ name: fill, op: put, concurrency: 16, until_objects: {keys} }}\n")
}

/// An audit (small pages: many page boundaries for the target to list a key twice
/// across).
fn audit(mode: &str) -> String {
    format!(
        "before:\n  - {{ name: check, op: audit, mode: {mode}, page_size: 50, concurrency: 4 }}\n"
    )
}

/// Runs `text` to its end; its audit events, after checking that the run's integrity
/// report read back from its folder holds the same.
async fn run(text: &str) -> Vec<AuditEvent> {
    let results = tempfile::tempdir().unwrap();
    let audits = Arc::new(Audits::default());
    let outcome = common::run_observed(text, results.path(), audits.clone()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let found = audits.0.lock().unwrap().clone();
    let rows = whole_phase_rows(&outcome.dir, &outcome.summary.rows);
    let report = read_integrity(&outcome.dir, &rows);
    assert_eq!(report.audits, found);
    // Nothing of the comparison is left in the run's folder.
    let left: Vec<_> = std::fs::read_dir(&outcome.dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("audit-") || n.starts_with("listing-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    found
}

/// Waits until the target's reshard thread has looked at the bucket twice since now
/// with nothing left to do: no reshard will lose an entry during the audit.
async fn settled(sim: &SimHandle) {
    let checks = sim.reshard_checks();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let idle = sim.bucket_index("aud").is_some_and(|i| !i.resharding);
        if sim.reshard_checks() >= checks + 2 && idle {
            return;
        }
        assert!(Instant::now() < deadline, "the target never settled");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn lost_and_doubled(storage: Storage, mode: &str) {
    let sim = start(
        storage,
        FaultConfig {
            lose_on_reshard: 0.01,
            list_twice: 0.1,
            seed: 17,
            ..Default::default()
        },
    )
    .await;
    assert!(
        run(&workload(&sim.endpoint(), "100B", 0, &fill(KEYS)))
            .await
            .is_empty()
    );
    settled(&sim).await;
    let before = sim.fault_counts();
    assert!(sim.reshards().len() >= 3, "{:?}", sim.reshards());
    assert!(before.lost_on_reshard > 0, "{before:?}");
    assert_eq!(before.listed_twice, 0, "nothing was listed yet");

    let audits = run(&workload(&sim.endpoint(), "100B", KEYS, &audit(mode))).await;
    let after = sim.fault_counts();
    assert_eq!(
        after.lost_on_reshard, before.lost_on_reshard,
        "no loss mid-audit"
    );
    assert!(after.listed_twice > 0, "{after:?}");
    assert_eq!(audits.len(), 1, "{audits:?}");
    let c = audits[0].counts;
    assert_eq!(c.expected, KEYS);
    assert_eq!(c.missing, after.lost_on_reshard, "{c:?}");
    assert_eq!(c.doubled, after.listed_twice, "{c:?}");
    assert_eq!((c.extra, c.size_mismatch), (0, 0), "{c:?}");
    assert_eq!(c.listed, KEYS - c.missing + c.doubled);
    let examples = |f: AuditFinding| audits[0].examples.iter().filter(|e| e.finding == f).count();
    assert_eq!(examples(AuditFinding::Missing) as u64, c.missing.min(25));
    assert_eq!(examples(AuditFinding::Doubled) as u64, c.doubled.min(25));
    assert!(audits[0].examples.iter().all(|e| e.key.starts_with("a/")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_counts_exactly_what_reshards_lost_and_pages_doubled_in_memory() {
    lost_and_doubled(Storage::Memory, "prefix").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_counts_exactly_what_reshards_lost_and_pages_doubled_size_only() {
    lost_and_doubled(Storage::SizeOnly, "adaptive").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strangers_resized_and_deleted_keys_are_extra_size_mismatched_and_missing() {
    let sim = start(Storage::SizeOnly, FaultConfig::default()).await;
    run(&workload(&sim.endpoint(), "100B", 0, &fill(500))).await;
    let client = common::client(&sim.endpoint()).await;
    let page = client
        .list_objects_v2(
            "aud",
            &ListRequest {
                max_keys: Some(10),
                ..ListRequest::default()
            },
        )
        .await
        .unwrap();
    let keys: Vec<String> = page.entries.into_iter().map(|e| e.key).collect();
    // Three keys gone, two rewritten with 7 bytes, four new ones in the prefix.
    for key in &keys[..3] {
        client.delete_object("aud", key).await.unwrap();
    }
    common::put_sized(&sim, "aud", keys[3..5].iter().map(|k| (k.clone(), 7)));
    let strangers: Vec<String> = (0..4).map(|n| format!("a/stranger-{n}")).collect();
    common::put_sized(&sim, "aud", strangers.iter().map(|k| (k.clone(), 1)));

    let audits = run(&workload(&sim.endpoint(), "100B", 500, &audit("serial"))).await;
    let a = &audits[0];
    assert_eq!(a.counts.expected, 500);
    assert_eq!(a.counts.listed, 501);
    assert_eq!(
        (
            a.counts.missing,
            a.counts.doubled,
            a.counts.extra,
            a.counts.size_mismatch
        ),
        (3, 0, 4, 2),
        "{a:?}"
    );
    let named = |f: AuditFinding| -> Vec<String> {
        let mut k: Vec<String> = a
            .examples
            .iter()
            .filter(|e| e.finding == f)
            .map(|e| e.key.clone())
            .collect();
        k.sort();
        k
    };
    assert_eq!(named(AuditFinding::Missing), keys[..3].to_vec());
    assert_eq!(named(AuditFinding::SizeMismatch), keys[3..5].to_vec());
    assert_eq!(named(AuditFinding::Extra), strangers);
    let resized = a
        .examples
        .iter()
        .find(|e| e.finding == AuditFinding::SizeMismatch)
        .unwrap();
    assert_eq!(resized.detail, "listed 7 bytes, written 100");
}
