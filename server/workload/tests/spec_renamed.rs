//! One name per meaning: what a phase keeps going at once is `workers`, `listers`,
//! `head_workers` or `in_flight` by the phase's kind, and `parts_in_flight` for the
//! parts of one object. The old names still work for one release: each gives the same
//! plan as its new name, with a warning at its line and column that names the new one.

use keystorm_workload::plan::{PhaseKind, PhasePlan};
use keystorm_workload::spec::parse_workload;

mod spec_support;
use spec_support::{HEAD, expect_error};

/// The phase of a workload of `phase` alone, and the workload's warnings.
fn plan_of(phase: &str) -> (PhasePlan, Vec<String>) {
    let text = format!("{HEAD}after:\n  - {phase}\n");
    let (plan, warnings) = parse_workload(&text, "w.yaml").unwrap_or_else(|e| panic!("{e}"));
    let warnings = warnings
        .iter()
        .map(|w| format!("{}:{}: {}", w.line, w.column, w.message))
        .collect();
    (plan.after[0].clone(), warnings)
}

/// The column of the value of `field` in `phase`, written after `  - ` on its line.
fn value_column(phase: &str, field: &str) -> usize {
    "  - ".len() + phase.find(&format!("{field}:")).unwrap() + field.len() + 3
}

#[test]
fn each_old_name_gives_the_plan_of_its_new_one_with_a_warning_naming_it() {
    // (old phase, new phase, the old name, the new one)
    let cases = [
        (
            "{ op: put, concurrency: 7, operations: 10 }",
            "{ op: put, workers: 7, operations: 10 }",
            "concurrency",
            "workers",
        ),
        (
            "{ mix: { get: 1, put: 1 }, concurrency: 7, operations: 10 }",
            "{ mix: { get: 1, put: 1 }, workers: 7, operations: 10 }",
            "concurrency",
            "workers",
        ),
        (
            "{ op: list, concurrency: 7 }",
            "{ op: list, listers: 7 }",
            "concurrency",
            "listers",
        ),
        (
            "{ op: audit, concurrency: 7 }",
            "{ op: audit, listers: 7 }",
            "concurrency",
            "listers",
        ),
        (
            "{ op: head, keys: bucket, concurrency: 7 }",
            "{ op: head, keys: bucket, head_workers: 7 }",
            "concurrency",
            "head_workers",
        ),
        (
            "{ op: download, dir: d, concurrency: 7 }",
            "{ op: download, dir: d, in_flight: 7 }",
            "concurrency",
            "in_flight",
        ),
        (
            "{ op: upload, dir: d, concurrency: 7 }",
            "{ op: upload, dir: d, in_flight: 7 }",
            "concurrency",
            "in_flight",
        ),
        (
            "{ op: head, keys: bucket, list_concurrency: 9 }",
            "{ op: head, keys: bucket, listers: 9 }",
            "list_concurrency",
            "listers",
        ),
        (
            "{ op: download, dir: d, list_concurrency: 9 }",
            "{ op: download, dir: d, listers: 9 }",
            "list_concurrency",
            "listers",
        ),
        (
            "{ op: get, epochs: 1, keys: { from: listing }, list_concurrency: 9 }",
            "{ op: get, epochs: 1, keys: { from: listing }, listers: 9 }",
            "list_concurrency",
            "listers",
        ),
        (
            "{ op: download, dir: d, part_concurrency: 3 }",
            "{ op: download, dir: d, parts_in_flight: 3 }",
            "part_concurrency",
            "parts_in_flight",
        ),
    ];
    for (old, new, old_name, new_name) in cases {
        let (old_plan, old_warnings) = plan_of(old);
        let (new_plan, new_warnings) = plan_of(new);
        assert_eq!(
            format!("{old_plan:?}"),
            format!("{new_plan:?}"),
            "{old} against {new}"
        );
        assert!(new_warnings.is_empty(), "{new}: {new_warnings:?}");
        let column = value_column(old, old_name);
        assert_eq!(
            old_warnings,
            vec![format!(
                "4:{column}: `{old_name}` is now `{new_name}` here; the old name works until \
                 release {}",
                keystorm_types::old_names::DROPPED_IN
            )],
            "{old}"
        );
    }
}

#[test]
fn the_counts_reach_the_plan_under_their_new_names() {
    let (phase, _) =
        plan_of("{ op: download, dir: d, in_flight: 7, listers: 9, parts_in_flight: 3 }");
    assert_eq!(phase.tasks(), 7);
    let PhaseKind::Transfer(transfer) = &phase.kind else {
        panic!("{:?}", phase.kind)
    };
    assert_eq!(transfer.settings.in_flight, 7);
    assert_eq!(
        (transfer.listers, transfer.settings.parts_in_flight),
        (9, 3)
    );
    let (phase, _) = plan_of("{ op: head, keys: bucket, head_workers: 5, listers: 2 }");
    assert_eq!(phase.tasks(), 5);
    assert!(
        matches!(&phase.kind, PhaseKind::Scan { listing, head_workers: 5 } if listing.listers == 2),
        "{:?}",
        phase.kind
    );
    let (phase, _) = plan_of("{ op: list, listers: 3 }");
    assert_eq!(phase.tasks(), 3);
    let (phase, _) = plan_of("{ op: put, workers: 6, operations: 10 }");
    assert_eq!(phase.kind, PhaseKind::Operations { workers: 6 });
}

#[test]
fn an_old_name_beside_its_new_one_or_a_name_of_another_kind_is_refused() {
    let at = |phase: &str| format!("{HEAD}after:\n  - {phase}\n");
    let refused = |phase: &str, field: &str, needle: &str| {
        expect_error(&at(phase), 4, value_column(phase, field), needle)
    };
    refused(
        "{ op: put, workers: 4, concurrency: 4, operations: 1 }",
        "concurrency",
        "`concurrency` is the old name of `workers`, which is given too: keep `workers`",
    );
    refused(
        "{ op: head, keys: bucket, listers: 2, list_concurrency: 2 }",
        "list_concurrency",
        "`list_concurrency` is the old name of `listers`",
    );
    refused(
        "{ op: list, workers: 4 }",
        "workers",
        "`workers` does not apply here: a complete listing's count is `listers`",
    );
    refused(
        "{ op: put, head_workers: 4, operations: 1 }",
        "head_workers",
        "an ops phase's (or a mix's) count is `workers`",
    );
    refused(
        "{ op: upload, dir: d, workers: 4 }",
        "workers",
        "a download's or upload's count is `in_flight`",
    );
    // Limits name the field as written, old or new.
    refused(
        "{ op: put, workers: 0, operations: 1 }",
        "workers",
        "`workers` must be between 1 and 100000, not 0",
    );
    refused(
        "{ op: put, concurrency: 0, operations: 1 }",
        "concurrency",
        "`concurrency` must be between 1 and 100000, not 0",
    );
    refused(
        "{ op: download, dir: d, listers: 5000 }",
        "listers",
        "`listers` must be between 1 and 4096, not 5000",
    );
}
