//! A 70/20/5/5 mix lands on its weights and never reads or deletes a key that is gone;
//! one workload and seed issue the same operations on the same keys run after run.

mod common;

use keystorm_results::{RunStatus, Section};
use keystorm_types::OpKind;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_70_20_5_5_mix_hits_its_weights_with_zero_404s() {
    let sim = common::start_sim().await;
    let results = tempfile::tempdir().unwrap();
    let body = "buckets:\n  names: [mix]\nkeyspace:\n  seed: 5\nobjects:\n  size: 100B-2KiB\nbefore:\n  - { name: fill, op: put, concurrency: 16, until_objects: 2000 }\nrounds:\n  count: 1\n  phases:\n    - name: mixed\n      mix: { get: 70, put: 20, list: 5, delete: 5 }\n      concurrency: 32\n      operations: 20000\n      page_size: 100\n";
    let text = common::workload(&sim.endpoint(), body);
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);

    let rows: Vec<_> = outcome
        .summary
        .rows
        .iter()
        .filter(|r| r.section == Section::Round)
        .collect();
    let count = |op: OpKind| {
        rows.iter()
            .filter(|r| r.op == op)
            .map(|r| r.stats.ops + r.stats.errors)
            .sum::<u64>()
    };
    let total: u64 = [OpKind::Get, OpKind::Put, OpKind::List, OpKind::Delete]
        .into_iter()
        .map(count)
        .sum();
    assert_eq!(total, 20000, "exactly the requested operations");
    for (op, weight) in [
        (OpKind::Get, 0.70),
        (OpKind::Put, 0.20),
        (OpKind::List, 0.05),
        (OpKind::Delete, 0.05),
    ] {
        let share = count(op) as f64 / total as f64;
        assert!(
            (share - weight).abs() <= 0.03,
            "{op}: share {share:.3} vs weight {weight}"
        );
    }
    for r in &rows {
        assert_eq!(
            r.stats.errors, 0,
            "{} had errors: {:?}",
            r.op, r.stats.error_classes
        );
    }
    // The window moved as the mix said: puts appended, deletes consumed the tail.
    let puts = count(OpKind::Put);
    let deletes = count(OpKind::Delete);
    assert_eq!(outcome.window.head, 2000 + puts);
    assert_eq!(outcome.window.tail, deletes);
    let client = common::client(&sim.endpoint()).await;
    let keys = common::list_all(&client, "mix").await;
    assert_eq!(keys.len() as u64, outcome.window.len());
}

/// What a run did, per phase and op: counts, bytes and keys (the bytes of gets and the
/// keys of lists depend on which keys were picked), and the window it left.
type Trace = (
    Vec<(Section, Option<u32>, String, OpKind, u64, u64, u64, u64)>,
    u64,
    u64,
);

async fn mixed_run(seed: u64) -> Trace {
    let sim = common::start_sim().await;
    let results = tempfile::tempdir().unwrap();
    let body = format!(
        "buckets:\n  names: [again-a, again-b]\nkeyspace:\n  seed: {seed}\nobjects:\n  size: 100B-2KiB\nbefore:\n  - {{ name: fill, op: put, concurrency: 1, until_objects: 300 }}\nrounds:\n  count: 2\n  phases:\n    - {{ name: spread, mix: {{ get: 50, head: 10, put: 20, list: 10, delete: 10 }}, concurrency: 1, operations: 600, page_size: 7 }}\n    - {{ name: hot, mix: {{ get: 60, put: 20, delete: 20 }}, select: {{ zipf: 1.1 }}, concurrency: 1, operations: 600 }}\n"
    );
    let text = common::workload(&sim.endpoint(), &body);
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let rows = outcome
        .summary
        .rows
        .iter()
        .map(|r| {
            (
                r.section,
                r.round,
                r.phase.clone(),
                r.op,
                r.stats.ops,
                r.stats.errors,
                r.stats.bytes,
                r.stats.keys,
            )
        })
        .collect();
    (rows, outcome.window.tail, outcome.window.head)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_seed_issues_the_same_operations_on_the_same_keys_twice() {
    let first = mixed_run(5).await;
    let second = mixed_run(5).await;
    assert_eq!(first, second, "two runs of one workload and seed");
    let ops: u64 = first
        .0
        .iter()
        .filter(|r| r.0 == Section::Round)
        .map(|r| r.4 + r.5)
        .sum();
    assert_eq!(ops, 2 * 2 * 600, "every row was compared");
    assert!(first.0.iter().all(|r| r.5 == 0), "no errors: {:?}", first.0);
    let other = mixed_run(6).await;
    assert_ne!(first, other, "another seed picks other operations and keys");
}
