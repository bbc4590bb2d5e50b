//! Workload parsing and validation: a full workload becomes the exact plan, defaults
//! are filled in, and every mistake is reported at its line and column.

use keystorm_workload::counts::{self, Count};
use std::time::Duration;

use keystorm_results::{IndexLayout, PhaseEnd};
use keystorm_types::ClientKind;
use keystorm_types::CredentialSource;
use keystorm_types::OpKind;
use keystorm_workload::plan::*;
use keystorm_workload::spec::parse_workload;

mod spec_support;
use spec_support::{HEAD, expect_error};

const FULL: &str = r#"name: full
description: every field
target:
  endpoint: https://s3.example.com:8443/
  region: eu-west-1
  path_style: false
  client: sdk
  credentials:
    env: { access_key: MY_AK, secret_key: MY_SK }
  tls: { ca_file: ca.pem }
  timeout: 30s
  retries: 2
  checksums: true
  payload_signing: true
buckets:
  prefix: ks-
  count: 3
  create: false
keyspace:
  seed: 42
  prefix: data/
  layout: tree
  fanout: 8
  depth: 2
  key_length: 20
  existing: 100
objects:
  size: {4KiB: 70, 1MiB: 30}
  content: zero
  metadata:
    team: "team-{i%8}"
before:
  - { name: fill, op: put, workers: 32, until_objects: 1000 }
rounds:
  count: 4
  phases:
    - { op: put, duration: 10s, warmup: 2s, rate: 500 }
    - { op: get, operations: 5000, select: { zipf: 1.2 } }
    - { mix: { get: 70, put: 20, list: 5, delete: 5 }, duration: 1m, page_size: 100, max_error_rate: 0.01 }
after:
  - { name: final, op: list }
  - { op: delete, until_objects: 0, workers: 64 }
cleanup: { objects: true, buckets: true }
"#;

#[test]
fn a_full_workload_becomes_the_exact_plan() {
    let (plan, warnings) = parse_workload(FULL, "full.yaml").unwrap();
    assert!(warnings.is_empty());
    assert_eq!(plan.name, "full");
    let t = &plan.target;
    assert_eq!(
        t.endpoint,
        Endpoint::Urls(vec!["https://s3.example.com:8443".into()])
    );
    assert_eq!(t.region, "eu-west-1");
    assert!(!t.path_style);
    assert_eq!(t.client, ClientKind::Sdk);
    assert_eq!(
        t.credentials,
        CredentialSource::Env {
            access_key_var: "MY_AK".into(),
            secret_key_var: "MY_SK".into(),
            session_token_var: "AWS_SESSION_TOKEN".into()
        }
    );
    assert_eq!(
        t.tls.ca_file.as_deref(),
        Some(std::path::Path::new("ca.pem"))
    );
    assert_eq!(t.timeout, Some(Duration::from_secs(30)));
    assert_eq!(t.retries, 2);
    assert!(t.checksums && t.payload_signing);
    assert_eq!(plan.buckets.names, ["ks-0", "ks-1", "ks-2"]);
    assert!(!plan.buckets.create);
    assert_eq!(
        plan.keyspace,
        KeyspacePlan {
            seed: 42,
            prefix: "data/".into(),
            layout: KeyLayout::Tree {
                fanout: 8,
                depth: 2
            },
            key_length: 20,
            existing: 100,
            shard: Default::default(),
        }
    );
    assert_eq!(
        plan.objects.size,
        SizeDist::Weighted {
            choices: vec![(4096, 70), (1 << 20, 30)]
        }
    );
    assert_eq!(plan.objects.content, Content::Zero);
    assert_eq!(plan.objects.metadata[0].0, "team");
    assert_eq!(plan.before[0].end, PhaseEnd::UntilObjects(1000));
    assert_eq!(plan.before[0].kind, PhaseKind::Operations { workers: 32 });
    assert_eq!(plan.rounds.count, 4);
    let r = &plan.rounds.phases;
    assert_eq!(r[0].name, "put");
    assert_eq!(r[0].rate, Some(500.0));
    assert_eq!(r[0].warmup, Duration::from_secs(2));
    assert_eq!(r[0].end, PhaseEnd::Duration(Duration::from_secs(10)));
    assert_eq!(r[1].selection, Selection::Zipf { exponent: 1.2 });
    assert_eq!(r[1].end, PhaseEnd::Operations(5000));
    assert_eq!(r[2].name, "mix");
    assert_eq!(
        r[2].work,
        PhaseWork::Mix(vec![
            (OpKind::Put, 20),
            (OpKind::Get, 70),
            (OpKind::List, 5),
            (OpKind::Delete, 5)
        ])
    );
    assert_eq!(r[2].page_size, 100);
    assert_eq!(r[2].max_error_rate, Some(0.01));
    assert_eq!(plan.after[0].end, PhaseEnd::ListOnce);
    assert_eq!(plan.after[1].end, PhaseEnd::UntilObjects(0));
    assert_eq!(
        plan.cleanup,
        CleanupPlan {
            objects: true,
            buckets: true
        }
    );
}

#[test]
fn defaults_fill_in_what_is_left_out() {
    let text = "name: d\nbuckets: { name: bkt }\nbefore:\n  - { op: put, operations: 10 }\n";
    let (plan, _) = parse_workload(text, "d.yaml").unwrap();
    assert_eq!(
        plan.target.endpoint,
        Endpoint::Embedded {
            storage: EmbeddedStorage::Memory
        }
    );
    assert_eq!(plan.target.client, ClientKind::Fast);
    assert_eq!(plan.target.retries, 0, "no retries unless asked");
    assert!(!plan.target.checksums && !plan.target.payload_signing);
    assert_eq!(plan.target.timeout, Some(Duration::from_secs(60)));
    assert!(plan.buckets.create);
    assert_eq!(plan.keyspace.layout, KeyLayout::Random);
    assert_eq!(plan.keyspace.key_length, 16);
    assert_eq!(plan.objects.size, SizeDist::Fixed { bytes: 1024 });
    assert_eq!(plan.before[0].kind, PhaseKind::Operations { workers: 16 });
    assert_eq!(plan.before[0].page_size, 1000);
    assert_eq!(plan.rounds.count, 0);
    assert_eq!(plan.cleanup, CleanupPlan::default(), "cleanup is opt-in");
}

#[test]
fn size_forms() {
    let size = |s: &str| {
        let text = format!(
            "name: s\nbuckets: {{ name: bkt }}\nobjects: {{ size: {s} }}\nbefore:\n  - {{ op: put, operations: 1 }}\n"
        );
        parse_workload(&text, "s.yaml").map(|(p, _)| p.objects.size)
    };
    assert_eq!(size("6B").unwrap(), SizeDist::Fixed { bytes: 6 });
    assert_eq!(size("6").unwrap(), SizeDist::Fixed { bytes: 6 });
    assert_eq!(
        size("1KiB-4KiB").unwrap(),
        SizeDist::Uniform {
            min: 1024,
            max: 4096
        }
    );
    assert_eq!(
        size("\"1.5 MB\"").unwrap(),
        SizeDist::Fixed { bytes: 1_500_000 }
    );
    assert_eq!(
        size("{1MiB: 30, 4KiB: 70}").unwrap(),
        SizeDist::Weighted {
            choices: vec![(4096, 70), (1 << 20, 30)]
        }
    );
}

/// Parses `text` expecting an error at `line`:`column` whose message contains `needle`.
#[test]
fn unknown_fields_are_rejected_where_they_stand() {
    expect_error(
        "name: e\nbuckets: { name: bkt }\ncolour: red\n",
        3,
        1,
        "unknown field `colour`",
    );
    expect_error(
        &format!("{HEAD}before:\n  - op: put\n    operations: 5\n    concurency: 4\n"),
        6,
        5,
        "unknown field `concurency`: did you mean `concurrency`?",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: pt, operations: 5 }}\n"),
        4,
        11,
        "did you mean `put`?",
    );
    expect_error(
        &format!("{HEAD}target:\n  endpont: embedded\n"),
        4,
        3,
        "endpont",
    );
}

#[test]
fn yaml_mistakes_are_reported_with_positions() {
    expect_error("name: a\nname: b\n", 2, 1, "duplicate");
    expect_error("name: [oops\n", 1, 7, "");
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, operations: many }}\n"),
        4,
        28,
        "",
    );
    expect_error("", 1, 1, "empty");
    expect_error("   \n", 1, 1, "empty");
}

#[test]
fn sizes_and_weights_are_checked() {
    expect_error(
        &format!("{HEAD}objects: {{ size: 4XB }}\n"),
        3,
        18,
        "unknown size unit \"XB\"",
    );
    expect_error(
        &format!("{HEAD}objects: {{ size: 4KiB-1KiB }}\n"),
        3,
        18,
        "minimum is above",
    );
    expect_error(
        &format!("{HEAD}objects: {{ size: 6GiB }}\n"),
        3,
        18,
        "5 GiB",
    );
    expect_error(
        &format!("{HEAD}objects:\n  size: {{4KiB: 0}}\n"),
        4,
        9,
        "must be positive",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: put, operations: 9 }}\n  - {{ mix: {{ get: 70, put: -2 }}, duration: 1s }}\n"
        ),
        5,
        28,
        "weight of put must be positive",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: put, operations: 9 }}\n  - {{ mix: {{ get: 1, copy: 2 }}, duration: 1s }}\n"
        ),
        5,
        28,
        "unknown op \"copy\"",
    );
}

#[test]
fn window_rules_are_enforced() {
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: put, operations: 9 }}\n  - {{ mix: {{ get: 80, put: 5, delete: 15 }}, duration: 1s }}\n"
        ),
        5,
        12,
        "deletes outrun puts",
    );
    expect_error(
        &format!(
            "{HEAD}keyspace: {{ existing: 1000 }}\nbefore:\n  - {{ op: put, until_objects: 500 }}\n"
        ),
        5,
        5,
        "below its current size",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: put, until_objects: 100 }}\n  - {{ op: delete, until_objects: 200 }}\n"
        ),
        5,
        5,
        "drains to 200",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: put, until_objects: 100 }}\n  - {{ op: delete, operations: 101 }}\n"
        ),
        5,
        5,
        "deletes 101",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: get, duration: 5s }}\n"),
        4,
        5,
        "empty keyspace",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: list, until_objects: 5 }}\n"),
        4,
        32,
        "`until_objects` ends `put`",
    );
    // Rounds repeat: a fill-to-N after a round that grew the window is refused.
    expect_error(
        &format!(
            "{HEAD}rounds:\n  count: 2\n  phases:\n    - {{ op: put, until_objects: 100 }}\n    - {{ op: put, operations: 50 }}\n"
        ),
        6,
        7,
        "holds 150",
    );
}

#[test]
fn phases_are_checked() {
    expect_error(
        &format!("{HEAD}before:\n  - {{ concurrency: 4 }}\n"),
        4,
        5,
        "needs `op`",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, mix: {{ put: 1 }}, duration: 1s }}\n"),
        4,
        21,
        "not both",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: copy, duration: 1s }}\n"),
        4,
        11,
        "unknown op \"copy\"",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put }}\n"),
        4,
        5,
        "needs an end",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, duration: 1s, operations: 3 }}\n"),
        4,
        5,
        "one end",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, duration: 5 }}\n"),
        4,
        26,
        "needs a unit",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, duration: soon }}\n"),
        4,
        26,
        "not a duration",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, duration: 2s, warmup: 2s }}\n"),
        4,
        38,
        "shorter",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, operations: 1, concurrency: 0 }}\n"),
        4,
        44,
        "between 1 and",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, operations: 1, rate: -5 }}\n"),
        4,
        37,
        "rate",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, operations: 1, page_size: 5000 }}\n"),
        4,
        42,
        "page_size",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, operations: 1, max_error_rate: 2 }}\n"),
        4,
        47,
        "fraction",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, operations: 1, select: uniform }}\n"),
        4,
        39,
        "get or head",
    );
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ name: a, op: put, operations: 1 }}\n  - {{ name: a, op: put, operations: 1 }}\n"
        ),
        5,
        5,
        "used twice",
    );
    expect_error(
        &format!("{HEAD}rounds:\n  count: 0\n  phases:\n    - {{ op: list }}\n"),
        4,
        10,
        "positive",
    );
    expect_error(HEAD, 1, 7, "no phases");
}

#[test]
fn targets_buckets_and_keyspaces_are_checked() {
    expect_error(
        &format!("{HEAD}target: {{ endpoint: s3.example.com }}\nafter: [{{ op: list }}]\n"),
        3,
        21,
        "http://",
    );
    expect_error(
        &format!("{HEAD}target: {{ endpoint: \"http://h/x\" }}\nafter: [{{ op: list }}]\n"),
        3,
        21,
        "without a path",
    );
    expect_error(
        &format!(
            "{HEAD}target:\n  endpoint: http://h:9000\n  tls: {{ ca_file: ca.pem }}\nafter: [{{ op: list }}]\n"
        ),
        5,
        8,
        "https://",
    );
    expect_error(
        &format!(
            "{HEAD}target:\n  endpoint: http://h:9000\n  embedded: {{ storage: memory }}\nafter: [{{ op: list }}]\n"
        ),
        5,
        13,
        "`embedded` options",
    );
    expect_error(
        &format!("{HEAD}target: {{ client: turbo }}\nafter: [{{ op: list }}]\n"),
        3,
        19,
        "unknown client",
    );
    expect_error(
        "name: e\nbuckets: { name: Bad_Bucket }\nafter: [{ op: list }]\n",
        2,
        18,
        "bad bucket name",
    );
    expect_error(
        "name: e\nbuckets: { names: [abc, abc] }\nafter: [{ op: list }]\n",
        2,
        25,
        "listed twice",
    );
    expect_error(
        "name: e\nbuckets: { name: abc, names: [abd] }\nafter: [{ op: list }]\n",
        2,
        10,
        "exactly one",
    );
    expect_error(
        &format!("{HEAD}keyspace: {{ layout: spiral }}\nafter: [{{ op: list }}]\n"),
        3,
        21,
        "unknown layout",
    );
    expect_error(
        &format!("{HEAD}keyspace: {{ key_length: 8 }}\nafter: [{{ op: list }}]\n"),
        3,
        25,
        "between 12",
    );
    expect_error(
        &format!("{HEAD}keyspace: {{ fanout: 4 }}\nafter: [{{ op: list }}]\n"),
        3,
        21,
        "layout: tree",
    );
    expect_error(
        &format!("{HEAD}keyspace: {{ prefix: /abs }}\nafter: [{{ op: list }}]\n"),
        3,
        21,
        "must not start",
    );
    expect_error(
        &format!("{HEAD}objects:\n  metadata:\n    team: \"t-{{i%0}}\"\nafter: [{{ op: list }}]\n"),
        5,
        11,
        "divides by zero",
    );
    expect_error(
        &format!(
            "{HEAD}target:\n  credentials: {{ profile: p, env: {{}} }}\nafter: [{{ op: list }}]\n"
        ),
        4,
        16,
        "exactly one",
    );
}

#[test]
fn inline_secrets_are_allowed_with_a_warning() {
    let text = format!(
        "{HEAD}target:\n  endpoint: http://h:1\n  credentials:\n    access_key: AK\n    secret_key: SK\nafter: [{{ op: list }}]\n"
    );
    let (plan, warnings) = parse_workload(&text, "w.yaml").unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!((warnings[0].line, warnings[0].column), (7, 17));
    assert!(warnings[0].message.contains("inline secret"));
    let json = serde_json::to_string(&plan).unwrap();
    assert!(json.contains("\"AK\""), "the access key id may show");
    assert!(!json.contains("SK"), "the secret never does: {json}");
}

#[test]
fn garbage_never_panics() {
    let inputs = [
        "\0\0\0",
        "{",
        "[",
        "- - -",
        "name: \"unterminated",
        ": :",
        "name: x\nbuckets: 5\n",
        "name: x\nbuckets: { name: [a] }\n",
        "name: x\nbefore: 7\n",
        "a: &a [*a]\n",
        "!!binary xyz",
        "name: x\nbuckets: {name: abc}\nbefore: [{op: put, until_objects: 99999999999999999999999}]\n",
        "name: x\nbuckets: {name: abc}\nobjects: {size: 1e400}\nafter: [{op: list}]\n",
        "name: x\nbuckets: {name: abc}\nobjects: {size: \"-\"}\nafter: [{op: list}]\n",
        "name: x\nbuckets: {name: abc}\nbefore: [{op: get, select: {zipf: -1}, duration: 1s}]\n",
        "---\nname: a\n---\nname: b\n",
    ];
    for text in inputs {
        assert!(
            parse_workload(text, "g.yaml").is_err(),
            "{text:?} was accepted"
        );
    }
}

#[test]
fn the_example_workloads_are_valid() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../workloads");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let (plan, _, text) = keystorm_workload::spec::load_workload(&path).unwrap();
            assert!(
                text.starts_with('#'),
                "{} opens with a comment",
                path.display()
            );
            assert!(!plan.name.is_empty());
            n += 1;
        }
    }
    assert!(n >= 3);
}

#[test]
fn rgw_index_settings_become_the_plan() {
    let text = "name: r\ntarget:\n  endpoint: http://127.0.0.1:7480\n  rgw:\n    admin:\n      credentials: { env: { access_key: A, secret_key: S } }\n    poll: 500ms\n    preshard: radosgw-admin\n    radosgw_admin: radosgw-admin --cluster test\nbuckets:\n  name: bkt\n  index: { shards: 101 }\nstalls: { throughput_below: 0.3, p99_above: 8, min_intervals: 3 }\nbefore:\n  - { op: put, operations: 10 }\n";
    let (plan, _) = parse_workload(text, "w.yaml").unwrap();
    assert_eq!(plan.buckets.index, Some(IndexLayout::Shards(101)));
    assert_eq!(plan.target.rgw.poll, Duration::from_millis(500));
    assert_eq!(plan.target.rgw.preshard, PreshardMethod::RadosgwAdmin);
    assert_eq!(
        plan.target.rgw.radosgw_admin,
        ["radosgw-admin", "--cluster", "test"]
    );
    assert!(plan.target.rgw.admin.is_some());
    assert_eq!(
        plan.stalls,
        StallPlan {
            throughput_below: 0.3,
            p99_above: 8.0,
            min_intervals: 3
        }
    );

    // On the embedded target, `index` turns the imitation on, dynamic by default.
    let text = "name: r\nbuckets:\n  name: bkt\n  index: dynamic\nbefore:\n  - { op: put, operations: 10 }\n";
    let (plan, _) = parse_workload(text, "w.yaml").unwrap();
    assert_eq!(plan.buckets.index, Some(IndexLayout::Dynamic));
    assert!(plan.target.embedded.rgw_like && plan.target.embedded.index.dynamic);
    let text = "name: r\nbuckets: { name: bkt }\nbefore:\n  - { op: put, operations: 10 }\n";
    let (plan, _) = parse_workload(text, "w.yaml").unwrap();
    assert!(!plan.target.embedded.rgw_like && !plan.target.embedded.index.dynamic);
}

#[test]
fn embedded_imitations_become_the_target_config() {
    let text = "name: r\ntarget:\n  endpoint: embedded\n  embedded:\n    index: { shards: 7, dynamic: true, max_objs_per_shard: 50, retry_step: 1s, list_time_per_shard: 100us }\n    latency: { put: 2ms, list: 1ms..3ms, get: exp:1ms, head: \"lognormal:1ms,10ms\" }\n    faults: { slow_down: 0.1, reset: 0.05, stall: 0.01, key_error: 0.9, stall_time: 2s, seed: 9, ops: [put, delete] }\n    max_memory: 512MiB\nbuckets: { name: bkt }\nbefore:\n  - { op: put, operations: 10 }\n";
    let (plan, _) = parse_workload(text, "w.yaml").unwrap();
    let c = keystorm_embedded::sim_config(&plan.target.embedded);
    assert_eq!(c.index.default_shards, 7);
    assert!(c.index.dynamic);
    assert_eq!(c.index.max_objs_per_shard, 50);
    assert_eq!(c.index.retry_step, Duration::from_secs(1));
    assert_eq!(c.index.list_time_per_shard, Duration::from_micros(100));
    assert_eq!(
        c.latency.put,
        Some(keystorm_types::Delay::Fixed(Duration::from_millis(2)))
    );
    assert!(matches!(
        c.latency.list,
        Some(keystorm_types::Delay::Uniform { .. })
    ));
    assert!(matches!(
        c.latency.get,
        Some(keystorm_types::Delay::Exponential { .. })
    ));
    assert!(matches!(
        c.latency.head,
        Some(keystorm_types::Delay::LogNormal { .. })
    ));
    assert_eq!(c.latency.delete, None);
    assert_eq!(
        (c.faults.slow_down, c.faults.internal_error, c.faults.reset),
        (0.1, 0.0, 0.05)
    );
    assert_eq!(c.faults.key_error, 0.9);
    assert_eq!(c.faults.stall_time, Duration::from_secs(2));
    assert_eq!(c.faults.seed, 9);
    assert_eq!(
        c.faults.ops,
        [keystorm_sim::ObjectOp::Put, keystorm_sim::ObjectOp::Delete]
    );
    assert_eq!(c.max_memory, Some(512 << 20));
    let (plain, _) = parse_workload(
        "name: r\nbuckets: { name: bkt }\nbefore:\n  - { op: put, operations: 10 }\n",
        "w.yaml",
    )
    .unwrap();
    assert_eq!(
        keystorm_embedded::sim_config(&plain.target.embedded).max_memory,
        None,
        "the target's own default"
    );
    let (bytes, _) = parse_workload(
        "name: r\ntarget:\n  embedded: { max_memory: 1048576 }\nbuckets: { name: bkt }\nbefore:\n  - { op: put, operations: 10 }\n",
        "w.yaml",
    )
    .unwrap();
    assert_eq!(
        keystorm_embedded::sim_config(&bytes.target.embedded).max_memory,
        Some(1 << 20),
        "a bare number is bytes"
    );
}

#[test]
fn a_corrupt_rate_is_a_fault_rate_like_the_others() {
    let workload = |faults: &str| {
        format!(
            "name: c\ntarget:\n  embedded:\n    faults: {faults}\nbuckets: {{ name: bkt }}\nbefore:\n  - {{ op: put, operations: 10 }}\n"
        )
    };
    let (plan, _) = parse_workload(&workload("{ corrupt: 0.5 }"), "w.yaml").unwrap();
    assert_eq!(plan.target.embedded.faults.corrupt, 0.5);
    let c = keystorm_embedded::sim_config(&plan.target.embedded);
    assert_eq!(c.faults.corrupt, 0.5);
    assert_eq!(c.faults.slow_down + c.faults.key_error, 0.0);
    let (plain, _) = parse_workload(&workload("{ reset: 0.1 }"), "w.yaml").unwrap();
    assert_eq!(
        plain.target.embedded.faults.corrupt, 0.0,
        "none unless asked"
    );

    expect_error(
        &workload("{ corrupt: 2 }"),
        4,
        24,
        "`faults.corrupt` is a fraction of requests between 0 and 1, not 2",
    );
    expect_error(&workload("{ corrupt: -0.1 }"), 4, 24, "between 0 and 1");
    // One fault per request: a GET cannot be both stalled and corrupted.
    expect_error(
        &workload("{ stall: 0.6, corrupt: 0.5 }"),
        4,
        13,
        "add up to 1.1",
    );
    expect_error(
        &workload("{ corrupt: lots }"),
        4,
        24,
        "a fault rate is a fraction of requests between 0 and 1",
    );
}

#[test]
fn the_index_faults_reach_the_plan_and_are_no_alternative_of_a_request() {
    let workload = |faults: &str| {
        format!(
            "name: c\ntarget:\n  embedded:\n    faults: {faults}\nbuckets: {{ name: bkt }}\nbefore:\n  - {{ op: put, operations: 10 }}\n"
        )
    };
    // With a request's faults adding up to 1: the index's do not count toward it.
    let (plan, _) = parse_workload(
        &workload("{ lose_on_reshard: 0.2, list_twice: 0.5, reset: 1, seed: 3 }"),
        "w.yaml",
    )
    .unwrap();
    let f = &plan.target.embedded.faults;
    assert_eq!((f.lose_on_reshard, f.list_twice, f.seed), (0.2, 0.5, 3));
    let c = keystorm_embedded::sim_config(&plan.target.embedded);
    assert_eq!((c.faults.lose_on_reshard, c.faults.list_twice), (0.2, 0.5));
    assert_eq!(c.faults.seed, 3);
    let (plain, _) = parse_workload(&workload("{ reset: 0.1 }"), "w.yaml").unwrap();
    let f = &plain.target.embedded.faults;
    assert_eq!(
        (f.lose_on_reshard, f.list_twice),
        (0.0, 0.0),
        "none unless asked"
    );

    expect_error(
        &workload("{ lose_on_reshard: 2 }"),
        4,
        32,
        "`faults.lose_on_reshard` is a fraction of the index entries a reshard moves between 0 and 1, not 2",
    );
    expect_error(
        &workload("{ list_twice: 2 }"),
        4,
        27,
        "`faults.list_twice` is a fraction of the continued listing pages between 0 and 1, not 2",
    );
    expect_error(&workload("{ list_twice: -0.5 }"), 4, 27, "between 0 and 1");
    expect_error(
        &workload("{ lose_on_reshard: lots }"),
        4,
        32,
        "a fault rate is a fraction between 0 and 1",
    );
}

#[test]
fn rgw_mistakes_are_reported_with_positions() {
    let put = "before:\n  - { op: put, operations: 10 }\n";
    expect_error(
        &format!("name: e\nbuckets:\n  name: bkt\n  index: sharded\n{put}"),
        4,
        10,
        "use `dynamic` or `{shards: N}`",
    );
    expect_error(
        &format!("name: e\nbuckets:\n  name: bkt\n  index: {{ shards: 0 }}\n{put}"),
        4,
        10,
        "between 1 and 65521",
    );
    expect_error(
        &format!(
            "name: e\ntarget:\n  embedded:\n    latency: {{ put: fast }}\nbuckets: {{ name: bkt }}\n{put}"
        ),
        4,
        21,
        "`latency.put: fast`",
    );
    expect_error(
        &format!(
            "name: e\ntarget:\n  embedded:\n    latency: {{ copy: 1ms }}\nbuckets: {{ name: bkt }}\n{put}"
        ),
        4,
        22,
        "unknown operation \"copy\"",
    );
    expect_error(
        &format!(
            "name: e\ntarget:\n  embedded:\n    faults: {{ slow_down: 0.7, reset: 0.5 }}\nbuckets: {{ name: bkt }}\n{put}"
        ),
        4,
        13,
        "add up to 1.2",
    );
    expect_error(
        &format!(
            "name: e\ntarget:\n  embedded:\n    faults: {{ reset: 2 }}\nbuckets: {{ name: bkt }}\n{put}"
        ),
        4,
        22,
        "between 0 and 1",
    );
    expect_error(
        &format!(
            "name: e\ntarget:\n  embedded:\n    faults: {{ reset: 0.5, ops: [put, copy] }}\nbuckets: {{ name: bkt }}\n{put}"
        ),
        4,
        38,
        "unknown operation \"copy\" in `faults.ops`",
    );
    expect_error(
        &format!(
            "name: e\ntarget:\n  endpoint: http://h:1\n  rgw:\n    admin: {{ endpoint: http://h:2 }}\nbuckets: {{ name: bkt }}\n{put}"
        ),
        5,
        12,
        "needs `credentials`",
    );
    expect_error(
        &format!(
            "name: e\ntarget:\n  endpoint: http://h:1\n  rgw: {{ preshard: magic }}\nbuckets: {{ name: bkt }}\n{put}"
        ),
        4,
        20,
        "unknown pre-shard method",
    );
    expect_error(
        &format!(
            "name: e\ntarget:\n  embedded:\n    max_memory: lots\nbuckets: {{ name: bkt }}\n{put}"
        ),
        4,
        17,
        "`embedded.max_memory`: \"lots\" is not a size",
    );
    expect_error(
        &format!(
            "name: e\ntarget:\n  embedded:\n    max_memory: 1KiB\nbuckets: {{ name: bkt }}\n{put}"
        ),
        4,
        17,
        "must be at least 64KiB",
    );
    expect_error(
        &format!(
            "name: e\ntarget:\n  embedded:\n    max_memory: {{ 1GiB: 1 }}\nbuckets: {{ name: bkt }}\n{put}"
        ),
        4,
        17,
        "`embedded.max_memory` is one size",
    );
    for (n, column) in [("0", 19), ("1000001", 19), ("-3", 19)] {
        expect_error(
            &format!(
                "name: e\ntarget:\n  embedded:\n    max_inflight: {n}\nbuckets: {{ name: bkt }}\n{put}"
            ),
            4,
            column,
            "`embedded.max_inflight` must be between 1 and 1000000",
        );
    }
    expect_error(
        &format!("name: e\nbuckets: {{ name: bkt }}\nstalls: {{ throughput_below: 1.5 }}\n{put}"),
        3,
        29,
        "between 0 and 1",
    );
}

#[test]
fn list_modes_are_read_and_checked() {
    let plan = parse_workload(
        &format!(
            "{HEAD}after:\n  - {{ name: s, op: list }}\n  - {{ name: p, op: list, mode: prefix, prefix_depth: 2, alphabet: \"0123456789abcdef\" }}\n  - {{ name: a, op: list, mode: adaptive, delimiter: \"\", report: true }}\n  - {{ name: d, op: list, mode: adaptive }}\n"
        ),
        "w.yaml",
    )
    .expect("valid")
    .0;
    use keystorm_results::ListMode;
    let modes: Vec<_> = plan
        .after
        .iter()
        .map(|p| {
            assert!(matches!(p.kind, PhaseKind::Listing(_)), "{:?}", p.kind);
            p.kind.listing().cloned().expect("a complete listing")
        })
        .collect();
    assert_eq!(modes[0].mode, ListMode::Serial);
    // A serial listing has one page in flight, whatever its listers say.
    assert_eq!(plan.after[0].at_once().listers, Some(1));
    assert_eq!(plan.after[1].at_once().listers, Some(modes[1].listers));
    assert!(modes[1].listers > 1);
    assert_eq!(
        modes[1].mode,
        ListMode::Prefix {
            depth: 2,
            alphabet: "0123456789abcdef".into()
        }
    );
    assert_eq!(modes[2].mode, ListMode::Adaptive { delimiter: None });
    assert_eq!(modes[2].report_depth, Some(1));
    assert_eq!(
        modes[3].mode,
        ListMode::Adaptive {
            delimiter: Some("/".into())
        }
    );

    expect_error(
        &format!("{HEAD}after:\n  - {{ op: list, mode: sideways }}\n"),
        4,
        23,
        "unknown list mode \"sideways\"",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: list, mode: serial, prefix_depth: 2 }}\n"),
        4,
        45,
        "`prefix_depth` applies to `mode: prefix`",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: list, mode: prefix, prefix_depth: 9 }}\n"),
        4,
        45,
        "prefix_depth",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: list, duration: 5s, mode: adaptive }}\n"),
        4,
        37,
        "complete listings only",
    );
    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, operations: 5, report: true }}\n"),
        4,
        39,
        "complete listings only",
    );
}

#[test]
fn metadata_scans_are_head_phases_over_the_bucket() {
    let plan = parse_workload(
        &format!("{HEAD}after:\n  - {{ name: m, op: head, keys: bucket, concurrency: 64, prefix: \"\" }}\n"),
        "w.yaml",
    )
    .expect("valid")
    .0;
    let p = &plan.after[0];
    assert_eq!(p.end, PhaseEnd::ListOnce);
    let PhaseKind::Scan {
        listing: l,
        head_workers,
    } = &p.kind
    else {
        panic!("a scan: {:?}", p.kind)
    };
    assert_eq!(l.listers, counts::LISTERS.default);
    assert_eq!(*head_workers, 64);
    // plan.json names each count as the workload does.
    let json = serde_json::to_value(p).unwrap();
    assert_eq!(json["kind"], "scan");
    assert_eq!(json["head_workers"], 64, "{json}");
    assert_eq!(
        json["listing"]["listers"],
        counts::LISTERS.default,
        "{json}"
    );
    assert!(json.get("concurrency").is_none(), "{json}");
    assert!(json["listing"].get("scan_listers").is_none(), "{json}");
    assert_eq!(l.prefix.as_deref(), Some(""));

    expect_error(
        &format!("{HEAD}before:\n  - {{ op: put, operations: 5, keys: bucket }}\n"),
        4,
        37,
        "`keys: window` and `keys: bucket` apply to `op: head`",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: head, keys: bucket, duration: 5s }}\n"),
        4,
        41,
        "drop `duration`",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: head, keys: everything }}\n"),
        4,
        23,
        "use `window`, `bucket`, `{file: PATH}` or `{from: listing}`",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: list, list_concurrency: 4 }}\n"),
        4,
        35,
        "`list_concurrency` applies to scans",
    );
}

#[test]
fn download_and_upload_phases_are_read_and_checked() {
    let plan = parse_workload(
        &format!(
            "{HEAD}after:\n  - {{ op: download, dir: ./restore, concurrency: 8, part_size: 8MiB, parts_above: 32MiB }}\n  - {{ name: up, op: upload, dir: data, prefix: copy/, overwrite: true }}\n"
        ),
        "w.yaml",
    )
    .expect("valid")
    .0;
    use keystorm_workload::plan::TransferDirection;
    let (down, up) = (&plan.after[0], &plan.after[1]);
    assert_eq!(down.name, "download");
    assert_eq!(down.end, PhaseEnd::ListOnce);
    let t = down.kind.transfer().unwrap();
    assert_eq!(t.direction, TransferDirection::Download);
    assert_eq!(t.dir, std::path::PathBuf::from("./restore"));
    assert_eq!(
        (
            t.settings.in_flight,
            t.settings.part_size,
            t.settings.parts_above
        ),
        (8, 8 << 20, 32 << 20)
    );
    assert!(t.settings.resume);
    // plan.json keeps the objects in flight once, in the transfer's settings.
    let json = serde_json::to_value(down).unwrap();
    assert_eq!(json["transfer"]["settings"]["in_flight"], 8, "{json}");
    assert_eq!(json["transfer"]["settings"]["parts_in_flight"], 4, "{json}");
    assert_eq!(
        json["transfer"]["listers"],
        counts::LISTERS.default,
        "{json}"
    );
    assert!(json.get("concurrency").is_none(), "{json}");
    let t = up.kind.transfer().unwrap();
    assert_eq!(t.direction, TransferDirection::Upload);
    assert_eq!(t.prefix.as_deref(), Some("copy/"));
    assert!(!t.settings.resume);
    assert_eq!(up.work, PhaseWork::Single(OpKind::Put));

    expect_error(
        &format!("{HEAD}after:\n  - {{ op: download }}\n"),
        4,
        11,
        "needs `dir`",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: upload, dir: d, duration: 5s }}\n"),
        4,
        37,
        "drop `duration`",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: upload, dir: d, part_size: 1MiB }}\n"),
        4,
        38,
        "at least 5MiB",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: get, duration: 1s, dir: d }}\n"),
        4,
        35,
        "`dir` applies to",
    );
    // PUTs and GETs move big objects in parts with the same settings, under the same
    // limits; a phase that moves no bodies refuses them.
    let (plan, _) = keystorm_workload::spec::parse_workload(
        &format!(
            "{HEAD}after:\n  - {{ op: put, duration: 1s, part_size: 8MiB, parts_above: 32MiB, parts_in_flight: 6 }}\n  - {{ op: get, duration: 1s }}\n"
        ),
        "t.yaml",
    )
    .unwrap();
    let parts = |i: usize| plan.after[i].parts;
    assert_eq!(
        (
            parts(0).part_size,
            parts(0).parts_above,
            parts(0).parts_in_flight
        ),
        (8 << 20, 32 << 20, 6)
    );
    assert_eq!(parts(1), keystorm_workload::plan::PartPlan::default());
    assert_eq!(parts(1).parts_above, 64 << 20);
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: get, duration: 1s, part_size: 1MiB }}\n"),
        4,
        41,
        "at least 5MiB",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: head, duration: 1s, parts_above: 1GiB }}\n"),
        4,
        44,
        "`parts_above` applies to phases that PUT or GET",
    );
    expect_error(
        "name: e\nbuckets: { names: [aaa, bbb] }\nafter:\n  - { op: download, dir: d }\n",
        4,
        5,
        "one bucket",
    );
}

/// One phase of each kind, its settings after a `concurrency` given first.
/// Every kind of phase, with the count its old `concurrency` stands for.
const EVERY_PHASE_KIND: [(&str, Count); 6] = [
    ("op: put, operations: 1", counts::WORKERS),
    ("mix: { get: 1, put: 1 }, operations: 1", counts::WORKERS),
    ("op: list", counts::LISTERS),
    ("op: head, keys: bucket", counts::HEAD_WORKERS),
    ("op: download, dir: ./restore", counts::IN_FLIGHT),
    ("op: upload, dir: ./data", counts::IN_FLIGHT),
];

#[test]
fn concurrency_has_the_limit_of_the_count_it_stands_for() {
    for (kind, count) in EVERY_PHASE_KIND {
        let max = count.max;
        for bad in [0, max + 1] {
            expect_error(
                &format!("{HEAD}after:\n  - {{ concurrency: {bad}, {kind} }}\n"),
                4,
                20,
                &format!("`concurrency` must be between 1 and {max}, not {bad}"),
            );
        }
        for good in [1, max] {
            let text = format!("{HEAD}after:\n  - {{ concurrency: {good}, {kind} }}\n");
            let plan = parse_workload(&text, "w.yaml")
                .unwrap_or_else(|e| panic!("{kind}: {e}"))
                .0;
            let p = &plan.after[0];
            assert_eq!(p.tasks(), good, "{kind}");
            if let Some(t) = p.kind.transfer() {
                assert_eq!(t.settings.in_flight, good, "{kind}");
            }
        }
    }
}

#[test]
fn list_concurrency_has_one_limit_for_scans_and_downloads() {
    for kind in ["op: head, keys: bucket", "op: download, dir: ./restore"] {
        for bad in [0, 4097] {
            expect_error(
                &format!("{HEAD}after:\n  - {{ list_concurrency: {bad}, {kind} }}\n"),
                4,
                25,
                &format!("`list_concurrency` must be between 1 and 4096, not {bad}"),
            );
        }
        for (given, listers) in [
            ("list_concurrency: 4096, ", 4096),
            ("", counts::LISTERS.default),
        ] {
            let text = format!("{HEAD}after:\n  - {{ {given}{kind} }}\n");
            let plan = parse_workload(&text, "w.yaml")
                .unwrap_or_else(|e| panic!("{kind}: {e}"))
                .0;
            let p = &plan.after[0];
            let got = match &p.kind {
                PhaseKind::Scan { listing, .. } => Some(listing.listers),
                PhaseKind::Transfer(t) => Some(t.listers),
                other => panic!("{kind}: neither a scan nor a transfer: {other:?}"),
            };
            assert_eq!(got, Some(listers), "{kind}");
        }
    }
}

#[test]
fn a_workload_says_what_a_lost_agent_does_to_a_run_across_agents() {
    let phases = "before:\n  - { op: put, operations: 5 }\n";
    let (plan, _) = parse_workload(&format!("{HEAD}{phases}"), "w.yaml").unwrap();
    assert_eq!(plan.agents.on_loss, OnAgentLoss::Continue);
    let (plan, _) = parse_workload(
        &format!("{HEAD}{phases}agents: {{ on_loss: abort }}\n"),
        "w.yaml",
    )
    .unwrap();
    assert_eq!(plan.agents.on_loss, OnAgentLoss::Abort);
    expect_error(
        &format!("{HEAD}{phases}agents:\n  on_loss: stop\n"),
        6,
        12,
        "`agents.on_loss` is `continue` (the other shards go on) or `abort`",
    );
    expect_error(
        &format!("{HEAD}{phases}agents: {{ on_lost: abort }}\n"),
        5,
        11,
        "unknown field `on_lost`",
    );
}

#[test]
fn audits_are_listing_phases_of_their_own() {
    let plan = parse_workload(
        &format!(
            "{HEAD}rounds:\n  count: 2\n  phases:\n    - {{ op: put, operations: 10 }}\n    - {{ op: audit, mode: prefix, concurrency: 8 }}\nafter:\n  - {{ name: final, op: audit }}\n"
        ),
        "w.yaml",
    )
    .expect("valid")
    .0;
    let audit = &plan.rounds.phases[1];
    assert_eq!(audit.name, "audit", "named for what it does");
    assert!(
        matches!(audit.kind, PhaseKind::Audit { .. }),
        "{:?}",
        audit.kind
    );
    assert_eq!(audit.kind.name(), "audit");
    assert_eq!(audit.end, PhaseEnd::ListOnce);
    assert_eq!(
        audit.work,
        PhaseWork::Single(OpKind::List),
        "its requests are LISTs"
    );
    assert_eq!(audit.at_once().listers, Some(8));
    // A serial audit has one page in flight.
    assert_eq!(plan.after[0].at_once().listers, Some(1));
    let json = serde_json::to_value(audit).unwrap();
    assert_eq!(json["kind"], "audit");
    assert!(
        json["listing"]["mode"].to_string().contains("prefix"),
        "{json}"
    );

    expect_error(
        &format!("{HEAD}after:\n  - {{ op: audit, duration: 5s }}\n"),
        4,
        28,
        "`op: audit` lists every key once and then compares: drop `duration`",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: audit, prefix: other/ }}\n"),
        4,
        26,
        "drop `prefix`",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ mix: {{ get: 5, audit: 1 }}, duration: 5s }}\n"),
        4,
        29,
        "give it a phase of its own (`op: audit`)",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: audti }}\n"),
        4,
        11,
        "did you mean `audit`?",
    );
}

#[test]
fn an_audit_waits_for_a_reshard_as_long_as_its_wait_for_reshard_says() {
    let wait = |phase: &str| {
        let text = format!("{HEAD}after:\n  - {phase}\n");
        let (plan, _) = parse_workload(&text, "w.yaml").expect("valid");
        match &plan.after[0].kind {
            PhaseKind::Audit {
                wait_for_reshard, ..
            } => *wait_for_reshard,
            other => panic!("not an audit: {other:?}"),
        }
    };
    assert_eq!(
        wait("{ op: audit }"),
        Duration::from_secs(300),
        "five minutes unless told"
    );
    assert_eq!(
        wait("{ op: audit, wait_for_reshard: 2m }"),
        Duration::from_secs(120)
    );
    assert_eq!(
        wait("{ op: audit, wait_for_reshard: 0s }"),
        Duration::ZERO,
        "0s: no wait"
    );
    let (plan, _) = parse_workload(
        &format!("{HEAD}after:\n  - {{ op: audit, wait_for_reshard: 90s }}\n"),
        "w.yaml",
    )
    .unwrap();
    let json = serde_json::to_value(&plan.after[0]).unwrap();
    assert_eq!(json["wait_for_reshard"], "1m 30s", "{json}");

    expect_error(
        &format!("{HEAD}after:\n  - {{ op: audit, wait_for_reshard: 5 }}\n"),
        4,
        36,
        "`wait_for_reshard: 5` needs a unit",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: audit, wait_for_reshard: soon }}\n"),
        4,
        36,
        "`wait_for_reshard: soon` is not a duration",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: audit, wait_for_reshard: [1m] }}\n"),
        4,
        36,
        "a duration is a number with a unit",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: audit, wait_for_reshard: 2d }}\n"),
        4,
        36,
        "`wait_for_reshard` is at most 24h",
    );
    expect_error(
        &format!("{HEAD}after:\n  - {{ op: put, operations: 5, wait_for_reshard: 1m }}\n"),
        4,
        49,
        "`wait_for_reshard` applies to audits (`op: audit`) only",
    );
}

#[test]
fn a_sharded_run_refuses_an_audit() {
    let (mut plan, _) = parse_workload(
        &format!("{HEAD}after:\n  - {{ name: check, op: audit }}\n"),
        "w.yaml",
    )
    .unwrap();
    let shard = keystorm_results::Shard { index: 1, count: 2 };
    let e = plan.for_shard(shard).unwrap_err().to_string();
    assert!(
        e.starts_with("phase check audits the whole bucket against every key written"),
        "{e}"
    );
    assert!(e.contains("run the audit in one process"), "{e}");
}

#[test]
fn names_with_invisible_or_control_characters_are_refused_at_the_name() {
    let text = "name: \"report\u{202E}txt\"\nbuckets: { name: bkt }\nbefore:\n  - { op: put, operations: 1 }\n";
    expect_error(text, 1, 7, "U+202E");
    let text = format!("{HEAD}before:\n  - {{ name: \"fi\u{200B}ll\", op: put, operations: 1 }}\n");
    expect_error(&text, 4, 13, "U+200B");
    let text = format!("{HEAD}before:\n  - {{ name: \"a\u{2028}b\", op: put, operations: 1 }}\n");
    expect_error(&text, 4, 13, "invisible or control character");
    // Letters of any script still make a name.
    let text = format!("{HEAD}before:\n  - {{ name: \"füllen-写入\", op: put, operations: 1 }}\n");
    assert!(parse_workload(&text, "w.yaml").is_ok());
}

#[test]
fn a_sweep_becomes_one_phase_per_rate() {
    let (plan, _) = parse_workload(
        &format!(
            "{HEAD}rounds:\n  count: 1\n  phases:\n    - {{ op: put, rates: {{ from: 500, to: 8000, steps: 5 }}, warmup: 1s, duration: 3s }}\n    - {{ name: mixed, mix: {{ get: 70, put: 30 }}, rates: {{ from: 100, to: 400, steps: 4, scale: linear }}, operations: 50 }}\n    - {{ op: get, rates: [12.5, 4], duration: 1s }}\n"
        ),
        "w.yaml",
    )
    .unwrap();
    let steps: Vec<(&str, Option<f64>, Option<&str>)> = plan
        .rounds
        .phases
        .iter()
        .map(|p| (p.name.as_str(), p.rate, p.sweep.as_deref()))
        .collect();
    assert_eq!(
        steps,
        [
            ("put@500", Some(500.0), Some("put")),
            ("put@1000", Some(1000.0), Some("put")),
            ("put@2000", Some(2000.0), Some("put")),
            ("put@4000", Some(4000.0), Some("put")),
            ("put@8000", Some(8000.0), Some("put")),
            ("mixed@100", Some(100.0), Some("mixed")),
            ("mixed@200", Some(200.0), Some("mixed")),
            ("mixed@300", Some(300.0), Some("mixed")),
            ("mixed@400", Some(400.0), Some("mixed")),
            ("get@4", Some(4.0), Some("get")),
            ("get@12.5", Some(12.5), Some("get")),
        ]
    );
    // Every step has the phase's warm-up and end.
    let first = &plan.rounds.phases[0];
    assert_eq!(first.warmup, Duration::from_secs(1));
    assert_eq!(first.end, PhaseEnd::Duration(Duration::from_secs(3)));
    // A log scale rounds its inner steps to 3 significant digits.
    let (plan, _) = parse_workload(
        &format!("{HEAD}before:\n  - {{ op: put, rates: {{ from: 100, to: 1000, steps: 4 }}, duration: 1s }}\n"),
        "w.yaml",
    )
    .unwrap();
    let rates: Vec<f64> = plan.before.iter().filter_map(|p| p.rate).collect();
    assert_eq!(rates, [100.0, 215.0, 464.0, 1000.0]);
}

#[test]
fn sweeps_are_checked() {
    let cases: &[(&str, usize, usize, &str)] = &[
        (
            "{ op: put, rate: 100, rates: [200], duration: 1s }",
            4,
            22,
            "not both",
        ),
        (
            "{ op: put, rates: [], duration: 1s }",
            4,
            23,
            "at least one rate",
        ),
        (
            "{ op: put, rates: [100, 0], duration: 1s }",
            4,
            23,
            "positive number",
        ),
        (
            "{ op: put, rates: [100, 100.0], duration: 1s }",
            4,
            23,
            "holds 100 twice",
        ),
        (
            "{ op: put, rates: 100, duration: 1s }",
            4,
            23,
            "`rates` is a list",
        ),
        (
            "{ op: put, rates: { from: 10, to: 5, steps: 3 }, duration: 1s }",
            4,
            23,
            "must be above",
        ),
        (
            "{ op: put, rates: { from: 1, to: 5, steps: 1 }, duration: 1s }",
            4,
            23,
            "between 2 and 100",
        ),
        (
            "{ op: put, rates: { from: 1, to: 5, steps: 3, scale: cubic }, duration: 1s }",
            4,
            23,
            "`log` or `linear`",
        ),
        (
            "{ op: put, rates: { from: 1, to: 1.001, steps: 9 }, duration: 1s }",
            4,
            23,
            "repeats a rate",
        ),
        (
            "{ op: put, rates: [100], until_objects: 10 }",
            4,
            23,
            "`duration` (or `operations`)",
        ),
        ("{ op: list, rates: [100] }", 4, 24, "phases of operations"),
    ];
    for (phase, line, column, message) in cases {
        expect_error(
            &format!("{HEAD}before:\n  - {phase}\n"),
            *line,
            *column,
            message,
        );
    }
    let too_many: Vec<String> = (1..=101).map(|n| n.to_string()).collect();
    expect_error(
        &format!(
            "{HEAD}before:\n  - {{ op: put, rates: [{}], duration: 1s }}\n",
            too_many.join(", ")
        ),
        4,
        23,
        "at most 100",
    );
}

#[test]
fn searches_are_read_and_checked() {
    let (plan, _) = parse_workload(
        &format!(
            "{HEAD}before:\n  - {{ op: put, search: {{ slo: [\"put.p99 < 50ms\", \"errors.rate < 1%\"], from: 100, to: 1000, resolution: 2%, budget: 10m }}, duration: 1s }}\n"
        ),
        "w.yaml",
    )
    .unwrap();
    let phase = &plan.before[0];
    assert_eq!(phase.name, "put");
    assert_eq!(
        phase.sweep.as_deref(),
        Some("put"),
        "its steps make a curve"
    );
    assert_eq!(phase.rate, None);
    assert_eq!(
        phase.search,
        Some(SearchPlan {
            slo: vec!["put.p99 < 50ms".into(), "errors.rate < 1%".into()],
            from: 100.0,
            to: 1000.0,
            resolution: 0.02,
            budget: Some(Duration::from_secs(600)),
        })
    );
    let slo = "slo: \"put.p99 < 50ms\"";
    let cases: &[(&str, usize, &str)] = &[
        (
            "{ op: put, rate: 5, search: { SLO, from: 1, to: 9 }, duration: 1s }",
            22,
            "drop `rate`",
        ),
        (
            "{ op: put, rates: [5], search: { SLO, from: 1, to: 9 }, duration: 1s }",
            36,
            "not both",
        ),
        (
            "{ op: put, search: { from: 1, to: 9 }, duration: 1s }",
            24,
            "needs `slo`",
        ),
        (
            "{ op: put, search: { slo: \"get.p99 < 50ms\", from: 1, to: 9 }, duration: 1s }",
            31,
            "which this phase does not run",
        ),
        (
            "{ op: put, search: { slo: \"put.p99 << 5ms\", from: 1, to: 9 }, duration: 1s }",
            31,
            "not a comparator",
        ),
        (
            "{ op: put, search: { SLO, from: 10, to: 9 }, duration: 1s }",
            63,
            "must be above",
        ),
        (
            "{ op: put, search: { SLO, from: 1, to: 9, resolution: 70% }, duration: 1s }",
            77,
            "between 0.1% and 50%",
        ),
        (
            "{ op: put, search: { SLO, from: 1, to: 9, budget: 0s }, duration: 1s }",
            73,
            "at least 1s",
        ),
        (
            "{ op: put, search: { SLO, to: 9 }, duration: 1s }",
            24,
            "needs `from`",
        ),
        (
            "{ op: put, search: { SLO, from: 1, to: 9 }, until_objects: 5 }",
            24,
            "`duration` (or `operations`)",
        ),
        (
            "{ op: list, search: { slo: \"list.p99 < 5ms\", from: 1, to: 9 } }",
            25,
            "phases of operations",
        ),
    ];
    for (phase, column, message) in cases {
        expect_error(
            &format!("{HEAD}before:\n  - {}\n", phase.replace("SLO", slo)),
            4,
            *column,
            message,
        );
    }
}
