//! Workloads that read keys keystorm did not write: `keys: {file}` and `keys: {from:
//! listing}` become the plan's key source, `epochs` its end, and every misuse is
//! refused where it stands — above all a write or a cleanup in a bucket whose keys come
//! from a listing or a key file, unless the writing phase says `allow_writes: true`.

use keystorm_results::{ListMode, PhaseEnd};
use keystorm_workload::plan::*;
use keystorm_workload::spec::parse_workload;

mod spec_support;
use spec_support::{HEAD, expect_error};

fn plan(text: &str) -> Plan {
    parse_workload(text, "w.yaml")
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .0
}

#[test]
fn key_files_and_listings_become_the_phases_key_source() {
    let p = plan(&format!(
        "{HEAD}before:\n  - {{ name: a, op: get, epochs: 2, keys: {{ file: prod.keys }} }}\n  \
         - {{ name: b, op: head, duration: 5s, list_concurrency: 8, keys: {{ from: listing, bucket: other, prefix: logs/, mode: prefix }} }}\n  \
         - {{ name: c, mix: {{ get: 90, list: 10 }}, operations: 100, select: {{ zipf: 1.1 }}, keys: {{ from: listing }} }}\n"
    ));
    let [a, b, c] = &p.before[..] else {
        panic!("three phases")
    };
    assert_eq!(
        a.keys,
        Some(KeySource::File {
            path: "prod.keys".into(),
            bucket: "bkt".into(),
            // Where `keys` is written: errors about the file point there.
            at: WrittenAt {
                line: 4,
                column: 42
            }
        })
    );
    assert_eq!(a.end, PhaseEnd::Epochs(2));
    assert_eq!(a.kind, PhaseKind::Operations { workers: 16 });
    let Some(KeySource::Listing {
        bucket,
        prefix,
        mode,
        listers,
    }) = &b.keys
    else {
        panic!("{:?}", b.keys)
    };
    assert_eq!(
        (bucket.as_str(), prefix.as_deref(), *listers),
        ("other", Some("logs/"), 8)
    );
    assert!(matches!(mode, ListMode::Prefix { depth: 1, .. }));
    // A listing is adaptive unless the workload says, with the default listers.
    let Some(KeySource::Listing { mode, listers, .. }) = &c.keys else {
        panic!("{:?}", c.keys)
    };
    assert_eq!(
        *mode,
        ListMode::Adaptive {
            delimiter: Some("/".into())
        }
    );
    assert_eq!(*listers, keystorm_workload::counts::LISTERS.default);
    assert_eq!(c.selection, Selection::Zipf { exponent: 1.1 });
    // A read of another bucket puts nothing in the keyspace's way: no window rule
    // refuses reading before anything was put.
    assert_eq!(
        p.listed_buckets(),
        vec![("bkt", "a"), ("other", "b"), ("bkt", "c")]
    );
}

#[test]
fn key_sources_are_checked_where_they_stand() {
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, operations: 5, keys: {{ file: a.keys }} }}\n"),
        4,
        37,
        "use them on `op: get`, `op: head` or a `mix` with `get` or `head`",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: get, epochs: 1, keys: {{ file: a.keys, from: listing }} }}\n"
        ),
        4,
        33,
        "`file` or `from: listing`, not both",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: get, epochs: 1, keys: {{ bucket: b }} }}\n"),
        4,
        33,
        "needs `file: PATH`",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: get, epochs: 1, keys: {{ from: inventory }} }}\n"),
        4,
        33,
        "`from` is `listing`",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: get, epochs: 1, keys: {{ file: a.keys, prefix: x/ }} }}\n"
        ),
        4,
        33,
        "a key file is listed already",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: get, epochs: 1, keys: {{ from: listing, mode: sideways }} }}\n"
        ),
        4,
        33,
        "unknown list mode \"sideways\"",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: get, epochs: 1, keys: {{ fil: a.keys }} }}\n"),
        4,
        33,
        "`keys` is `window`, `bucket`, `{file: PATH, bucket: B}`",
    );
    expect_error(
        "name: e\nbuckets: { names: [aaa, bbb] }\nbefore:\n  - { op: get, epochs: 1, keys: { file: a.keys } }\n",
        4,
        33,
        "the workload names 2 buckets: say which one",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: get, epochs: 1, verify: true, keys: {{ file: a.keys }} }}\n"
        ),
        4,
        35,
        "drop `verify`",
    );
}

#[test]
fn epochs_belong_to_reads_of_a_key_file_or_listing() {
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, operations: 1 }}\n  - {{ op: get, epochs: 2 }}\n"),
        5,
        24,
        "give the phase `keys: {file: PATH}`",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ mix: {{ get: 1, head: 1 }}, epochs: 2, keys: {{ file: a.keys }} }}\n"
        ),
        4,
        41,
        "`epochs` applies to `op: get` and `op: head`",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: get, epochs: 2, duration: 5s, keys: {{ file: a.keys }} }}\n"
        ),
        4,
        5,
        "give one end per phase",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: get, epochs: 0, keys: {{ file: a.keys }} }}\n"),
        4,
        24,
        "epochs",
    );
}

#[test]
fn writes_into_a_listed_bucket_are_refused_unless_allowed() {
    let read = "  - { name: read, op: get, epochs: 1, keys: { from: listing } }\n";
    // A put, a delete, a mix that writes and an upload into the listed bucket.
    for (writer, column) in [
        ("{ name: w, op: put, operations: 5 }", 5),
        ("{ name: w, op: delete, operations: 5 }", 5),
        ("{ name: w, mix: { get: 9, put: 1 }, operations: 5 }", 5),
        ("{ name: w, op: upload, dir: up }", 5),
    ] {
        expect_error(
            &format!("{HEAD}before:\n  - {writer}\n{read}"),
            4,
            column,
            "phase \"w\" writes into bucket \"bkt\", whose keys phase \"read\" reads from a \
             listing or key file",
        );
    }
    // The same writes go ahead when the phase says so.
    let p = plan(&format!(
        "{HEAD}before:\n  - {{ name: w, op: put, operations: 5, allow_writes: true }}\n{read}"
    ));
    assert!(p.before[0].allow_writes);
    // A mix reading the key file whose puts go into the same bucket needs it too.
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ name: m, mix: {{ get: 9, put: 1 }}, operations: 5, keys: {{ file: a.keys }} }}\n"
        ),
        4,
        5,
        "phase \"m\" writes into bucket \"bkt\"",
    );
    // Writes into another bucket than the listed one are the workload's own business.
    plan(
        "name: e\nbuckets: { name: mine }\nbefore:\n  - { op: put, operations: 5 }\n  \
         - { op: get, epochs: 1, keys: { from: listing, bucket: theirs } }\n",
    );
    // Cleanup never touches a listed bucket.
    expect_error(
        &format!("{HEAD}before:\n{read}cleanup: {{ objects: true }}\n"),
        5,
        10,
        "keystorm never cleans such a bucket",
    );
}

#[test]
fn verify_everywhere_leaves_reads_of_a_key_file_unverified() {
    // `keystorm run --verify` checks GETs of keys keystorm wrote, and only those: the
    // run must not claim to have verified objects someone else wrote.
    let mut p = plan(&format!(
        "{HEAD}before:\n  - {{ name: fill, op: put, until_objects: 10 }}\n  \
         - {{ name: mine, op: get, operations: 10 }}\n  \
         - {{ name: theirs, op: get, epochs: 1, keys: {{ file: other.keys, bucket: other }} }}\n"
    ));
    assert_eq!(p.verify_all_gets(), 1);
    let verified: Vec<_> = p
        .phases()
        .filter(|p| p.verify)
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(verified, vec!["mine"]);
}
