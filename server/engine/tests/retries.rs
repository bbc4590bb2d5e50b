//! Retries counted exactly, with either client: against a target injecting all four
//! fault kinds, keystorm's attempts of each operation (successes + failed operations +
//! retries) are the requests the target received of it, its failed attempts by class
//! are the faults the target injected into that operation, every phase issued exactly
//! its operations, and intervals, rows and totals add up to the same counts.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use keystorm_results::metrics::OpSummary;
use keystorm_results::{INTERVALS_FILE, IntervalRecord, RunStatus, Summary};
use keystorm_sim::{FaultCounts, ObjectOp, Op};
use keystorm_types::OpKind;

/// The target's request and fault groups of a keystorm operation.
fn target_op(op: OpKind) -> (Op, ObjectOp) {
    match op {
        OpKind::Put => (Op::PutObject, ObjectOp::Put),
        OpKind::Get => (Op::GetObject, ObjectOp::Get),
        OpKind::Head => (Op::HeadObject, ObjectOp::Head),
        OpKind::List => (Op::ListObjectsV2, ObjectOp::List),
        OpKind::Delete => (Op::DeleteObject, ObjectOp::Delete),
    }
}

/// keystorm's class label of each injected fault kind (with a `timeout` shorter than
/// the stall, and long enough that no request the target answers at once times out on
/// a loaded machine: only the stalls do).
fn as_classes(f: FaultCounts) -> BTreeMap<String, u64> {
    [
        ("slowdown", f.slow_down),
        ("http_500", f.internal_error),
        ("connection", f.reset),
        ("timeout", f.stall),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .map(|(c, n)| (c.to_string(), n))
    .collect()
}

fn add_classes(into: &mut BTreeMap<String, u64>, from: &BTreeMap<String, u64>) {
    for (c, n) in from {
        *into.entry(c.clone()).or_default() += n;
    }
}

/// The counters that must add up, per operation.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    ops: u64,
    errors: u64,
    retries: u64,
    error_classes: BTreeMap<String, u64>,
    attempt_error_classes: BTreeMap<String, u64>,
}

impl Counts {
    fn add(&mut self, s: &OpSummary) {
        self.ops += s.ops;
        self.errors += s.errors;
        self.retries += s.retries;
        add_classes(&mut self.error_classes, &s.error_classes);
        add_classes(&mut self.attempt_error_classes, &s.attempt_error_classes);
    }

    fn attempts(&self) -> u64 {
        self.ops + self.errors + self.retries
    }
}

fn intervals(dir: &std::path::Path) -> Vec<IntervalRecord> {
    std::fs::read_to_string(dir.join(INTERVALS_FILE))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Checks keystorm's accounting of a run against what `sim` received and injected.
/// Returns the counts per operation.
fn check_against_target(
    sim: &keystorm_sim::SimHandle,
    summary: &Summary,
    dir: &std::path::Path,
) -> BTreeMap<OpKind, Counts> {
    let mut by_op: BTreeMap<OpKind, Counts> = BTreeMap::new();
    for row in &summary.rows {
        let s = &row.stats;
        let failed_attempts: u64 = s.attempt_error_classes.values().sum();
        assert_eq!(
            failed_attempts,
            s.errors + s.retries,
            "every retry follows one failed attempt: {row:?}"
        );
        for (class, n) in &s.error_classes {
            assert!(
                s.attempt_error_classes.get(class) >= Some(n),
                "a failed operation's last attempt is a failed attempt: {row:?}"
            );
        }
        by_op.entry(row.op).or_default().add(s);
    }
    // Totals are the rows added up; intervals too (no warm-up here).
    for t in &summary.totals {
        let mut total = Counts::default();
        total.add(&t.stats);
        assert_eq!(total, by_op[&t.op], "totals of {}", t.op);
    }
    let mut from_intervals: BTreeMap<OpKind, Counts> = BTreeMap::new();
    for r in intervals(dir) {
        for (op, s) in &r.ops {
            from_intervals.entry(*op).or_default().add(s);
        }
    }
    assert_eq!(from_intervals, by_op, "intervals add up to the rows");
    for op in OpKind::ALL {
        let (requests, faults) = target_op(op);
        let counted = by_op.get(&op);
        assert_eq!(
            counted.map_or(0, Counts::attempts),
            sim.requests(requests),
            "{op}: attempts = requests the target received ({counted:?})"
        );
        assert_eq!(
            counted
                .map(|c| c.attempt_error_classes.clone())
                .unwrap_or_default(),
            as_classes(sim.fault_counts_of(faults)),
            "{op}: failed attempts by class = faults injected"
        );
    }
    by_op
}

async fn start_target(seed: u64) -> keystorm_sim::SimHandle {
    keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        keystorm_sim::SimConfig {
            credentials: Some((common::ACCESS_KEY.into(), common::SECRET_KEY.into())),
            storage: keystorm_sim::Storage::SizeOnly,
            faults: keystorm_sim::FaultConfig {
                slow_down: 0.05,
                internal_error: 0.04,
                reset: 0.03,
                stall: 0.02,
                stall_time: Duration::from_secs(4),
                seed,
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .await
    .expect("target starts")
}

/// A fill to 300 objects, then a round of reads and a mix of everything, with up to
/// two retries per operation.
async fn counted_run(client: &str, seed: u64) {
    let sim = start_target(seed).await;
    let results = tempfile::tempdir().unwrap();
    let text = common::workload(
        &sim.endpoint(),
        &format!(
            "  client: {client}\n  timeout: 2s\n  retries: 2\nbuckets:\n  names: [retried]\nobjects: {{ size: 100B }}\nbefore:\n  - {{ name: fill, op: put, concurrency: 8, until_objects: 300 }}\nrounds:\n  count: 1\n  phases:\n    - {{ name: read, op: get, concurrency: 8, operations: 300 }}\n    - {{ name: head, op: head, concurrency: 8, operations: 300 }}\n    - {{ name: mix, mix: {{ get: 30, head: 30, put: 20, list: 10, delete: 10 }}, concurrency: 8, operations: 400, page_size: 10 }}\n"
        ),
    );
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let summary = &outcome.summary;
    let by_op = check_against_target(&sim, summary, &outcome.dir);

    // Every phase issued exactly its operations; a fill succeeds exactly N times.
    let issued = |phase: &str| -> (u64, u64) {
        summary
            .rows
            .iter()
            .filter(|r| r.phase == phase)
            .fold((0, 0), |(ok, failed), r| {
                (ok + r.stats.ops, failed + r.stats.errors)
            })
    };
    assert_eq!(issued("fill").0, 300, "the fill put 300 objects");
    for (phase, n) in [("read", 300), ("head", 300), ("mix", 400)] {
        let (ok, failed) = issued(phase);
        assert_eq!(ok + failed, n, "{phase}: successes + failed operations");
    }

    // Every fault kind was injected, retries happened, and with three attempts per
    // operation nearly every operation succeeded in the end.
    let injected = sim.fault_counts();
    assert!(
        injected.slow_down > 0
            && injected.internal_error > 0
            && injected.reset > 0
            && injected.stall > 0,
        "{injected:?}"
    );
    let retries: u64 = by_op.values().map(|c| c.retries).sum();
    let errors: u64 = by_op.values().map(|c| c.errors).sum();
    assert!(retries > 50, "{by_op:?}");
    assert!(errors < retries / 5, "{by_op:?}");
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fast_client_counts_every_attempt_and_operation_exactly_under_retries() {
    counted_run("fast", 21).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_client_counts_every_attempt_and_operation_exactly_under_retries() {
    counted_run("sdk", 22).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_retries_every_failed_attempt_is_a_failed_operation() {
    let sim = start_target(23).await;
    let results = tempfile::tempdir().unwrap();
    let text = common::workload(
        &sim.endpoint(),
        "  timeout: 2s\n  retries: 0\nbuckets:\n  names: [once]\nobjects: { size: 100B }\nbefore:\n  - { name: fill, op: put, concurrency: 8, operations: 300 }\nrounds:\n  count: 1\n  phases:\n    - { name: read, op: get, concurrency: 8, operations: 300 }\n",
    );
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let by_op = check_against_target(&sim, &outcome.summary, &outcome.dir);
    for (op, c) in &by_op {
        assert_eq!(c.retries, 0, "{op}");
        assert_eq!(c.error_classes, c.attempt_error_classes, "{op}");
        assert!(c.errors > 0, "{op}: {c:?}");
    }
    sim.shutdown().await;
}
