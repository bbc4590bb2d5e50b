//! An audit right after a fill that meets the bucket's dynamic reshard still in
//! progress, against a real target on loopback whose reshard takes seconds: by default
//! the audit waits for the reshard to finish (as the index tracker sees it), says so,
//! and lists only then; with `wait_for_reshard: 0s` it lists at once and warns that its
//! findings may include entries still moving.
//!
//! The fill's last object takes the bucket past its shards' capacity, so the target's
//! reshard thread reshards it after the fill, with nothing writing; the audit's gate
//! opens once the target says the reshard began, so the audit's opening poll meets it
//! (the reshard lasts seconds, the poll follows within milliseconds).

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use keystorm_engine::executor::{self, GateFuture, PhaseGate, RunOptions};
use keystorm_results::{AuditEvent, PhaseRef, RunEvent, RunStatus};
use keystorm_sim::{IndexConfig, SimConfig, SimHandle, Storage, Store};
use keystorm_workload::observer::Observer;
use tokio_util::sync::CancellationToken;

const BUCKET: &str = "moving";
/// 11 shards of 20 objects: the fill's last object is one too many.
const MAX_OBJS_PER_SHARD: u64 = 20;
const KEYS: u64 = 11 * MAX_OBJS_PER_SHARD + 1;
/// 221 objects moved at 15 ms each: the reshard takes about 3.3 s.
const RESHARD_TIME_PER_OBJECT: Duration = Duration::from_millis(15);

async fn start() -> SimHandle {
    let config = SimConfig {
        storage: Storage::SizeOnly,
        credentials: Some((
            common::ACCESS_KEY.to_string(),
            common::SECRET_KEY.to_string(),
        )),
        index: IndexConfig {
            dynamic: true,
            max_objs_per_shard: MAX_OBJS_PER_SHARD,
            check_interval: Duration::from_millis(10),
            reshard_time_per_object: RESHARD_TIME_PER_OBJECT,
            retry_step: Duration::from_millis(10),
            ..Default::default()
        },
        ..Default::default()
    };
    keystorm_sim::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("sim starts")
}

/// A fill to one object past the bucket's capacity (one worker: not one more), then
/// the audit `check` with `audit_fields`, the index tracked through the admin API.
fn workload(endpoint: &str, audit_fields: &str) -> String {
    common::workload(
        endpoint,
        &format!(
            "  rgw:\n    poll: 200ms\n    admin:\n      credentials: {{ access_key: {}, secret_key: {} }}\n\
             buckets: {{ names: [{BUCKET}], create: true }}\n\
             keyspace: {{ seed: 5, prefix: m/ }}\n\
             objects: {{ size: 10B, content: zero }}\n\
             before:\n  \
             - {{ name: fill, op: put, workers: 1, until_objects: {KEYS} }}\n  \
             - {{ name: check, op: audit, page_size: 50{audit_fields} }}\n",
            common::ACCESS_KEY,
            common::SECRET_KEY
        ),
    )
}

/// Opens the audit's gate once the target says the bucket's reshard began.
#[derive(Debug)]
struct OnceResharding(Arc<Store>);

impl PhaseGate for OnceResharding {
    fn before_phase<'a>(&'a self, _index: usize, phase: &'a PhaseRef) -> GateFuture<'a> {
        Box::pin(async move {
            if phase.name != "check" {
                return Ok(());
            }
            let deadline = Instant::now() + Duration::from_secs(60);
            while !self
                .0
                .bucket(BUCKET)
                .is_some_and(|b| b.index.view().resharding)
            {
                assert!(Instant::now() < deadline, "the target never resharded");
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            Ok(())
        })
    }
}

/// Every event of a run, in order (a test-sized run).
#[derive(Default)]
struct Events(Mutex<Vec<RunEvent>>);

impl Observer for Events {
    fn event(&self, _id: u64, event: &RunEvent) {
        self.0.lock().unwrap().push(event.clone());
    }
}

/// What the run told, in order, as the test reads it.
struct Told(Vec<RunEvent>);

impl Told {
    fn position(&self, what: impl Fn(&RunEvent) -> bool) -> Option<usize> {
        self.0.iter().position(what)
    }

    fn warnings(&self, containing: &str) -> Vec<(usize, &str)> {
        self.0
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                RunEvent::Warning { message } if message.contains(containing) => {
                    Some((i, message.as_str()))
                }
                _ => None,
            })
            .collect()
    }

    /// The one warning containing `containing`.
    fn warning(&self, containing: &str) -> (usize, &str) {
        let found = self.warnings(containing);
        assert_eq!(found.len(), 1, "{containing:?} in {:#?}", self.0);
        found[0]
    }

    /// The audit listed before the tracker saw the reshard end, and found the bucket
    /// exactly as written.
    fn assert_listed_during_the_reshard(&self) {
        let (audit_at, audit) = self.audit();
        assert!(
            self.reshard_seen().is_none_or(|r| r > audit_at),
            "{:#?}",
            self.0
        );
        assert_as_written(audit);
    }

    fn audit(&self) -> (usize, &AuditEvent) {
        let audits: Vec<_> = self
            .0
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                RunEvent::Audit(a) => Some((i, a)),
                _ => None,
            })
            .collect();
        assert_eq!(audits.len(), 1, "one audit of one bucket: {audits:?}");
        audits[0]
    }

    /// Where the tracker saw the bucket's reshard end, if it did during the run.
    fn reshard_seen(&self) -> Option<usize> {
        self.position(|e| matches!(e, RunEvent::Reshard(r) if r.bucket == BUCKET))
    }

    /// Where the audit's first interval was told (its listing under way).
    fn audit_listing(&self) -> usize {
        self.position(|e| matches!(e, RunEvent::Interval { phase, .. } if phase.name == "check"))
            .expect("the audit's intervals")
    }
}

/// Runs the fill and the audit against `sim`, the audit's gate opening once the
/// reshard began; what the run told.
async fn run(sim: &SimHandle, audit_fields: &str) -> Told {
    let results = tempfile::tempdir().unwrap();
    let text = workload(&sim.endpoint(), audit_fields);
    let events = Arc::new(Events::default());
    let options = RunOptions {
        results_root: results.path().to_path_buf(),
        gate: Some(Arc::new(OnceResharding(sim.store().clone()))),
        ..RunOptions::default()
    };
    let outcome = executor::run(
        common::plan(&text),
        &text,
        options,
        events.clone(),
        CancellationToken::new(),
    )
    .await
    .expect("run starts");
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert_eq!(
        sim.object_count(BUCKET),
        Some(KEYS),
        "the fill wrote no more"
    );
    let told = std::mem::take(&mut *events.0.lock().unwrap());
    Told(told)
}

/// The audit found the bucket exactly as written.
fn assert_as_written(audit: &AuditEvent) {
    let c = audit.counts;
    assert_eq!((c.expected, c.listed), (KEYS, KEYS), "{c:?}");
    assert_eq!(
        (c.missing, c.doubled, c.extra, c.size_mismatch),
        (0, 0, 0, 0),
        "{c:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_meeting_a_reshard_waits_for_it_says_so_and_lists_after_it() {
    let sim = start().await;
    let told = run(&sim, ", wait_for_reshard: 1m").await;

    let waiting = told.warning("waiting up to 1m for the reshard to finish before listing");
    assert!(
        waiting.1.contains(&format!("bucket {BUCKET}")),
        "{waiting:?}"
    );
    let waited = told.warning("for its index reshard to finish (23 shards); listing now");
    // Told in order: the wait, the reshard seen ending, the end of the wait, and only
    // then the audit's listing and its findings.
    let reshard = told
        .reshard_seen()
        .expect("the tracker saw the reshard end");
    let (audit_at, audit) = told.audit();
    assert!(waiting.0 < reshard, "{:#?}", told.0);
    assert!(reshard < waited.0, "{:#?}", told.0);
    assert!(waited.0 < told.audit_listing(), "{:#?}", told.0);
    assert!(told.audit_listing() < audit_at);
    assert_as_written(audit);
    assert!(
        told.warnings("findings may include").is_empty(),
        "the reshard was over before the audit listed"
    );
    let target = sim.reshards();
    assert_eq!(target.len(), 1, "{target:?}");
    assert_eq!((target[0].from, target[0].to), (11, 23));
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_told_not_to_wait_lists_during_the_reshard_and_warns_of_entries_moving() {
    let sim = start().await;
    let told = run(&sim, ", wait_for_reshard: 0s").await;

    let warned = told.warning("findings may include them");
    let expected = format!("audit of bucket {BUCKET}: its index is being resharded (11 shards");
    assert!(warned.1.starts_with(&expected), "{warned:?}");
    assert!(warned.0 < told.audit_listing(), "told before it lists");
    assert!(told.warnings("waiting up to").is_empty(), "{:#?}", told.0);
    // It did not wait: its findings came while the reshard was still going.
    told.assert_listed_during_the_reshard();
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_whose_wait_runs_out_lists_anyway_and_warns_of_entries_moving() {
    let sim = start().await;
    // A second of the reshard's 3.3 s.
    let told = run(&sim, ", wait_for_reshard: 1s").await;

    let waiting = told.warning("waiting up to 1s for the reshard to finish before listing");
    let warned = told.warning("still being resharded after a wait of 1s (`wait_for_reshard`");
    assert!(warned.1.contains("findings may include them"), "{warned:?}");
    assert!(waiting.0 < warned.0 && warned.0 < told.audit_listing());
    assert!(told.warnings("listing now").is_empty(), "{:#?}", told.0);
    told.assert_listed_during_the_reshard();
    sim.shutdown().await;
}
