//! `verify` against a real target on loopback that really corrupts and loses objects:
//! every body the target flipped a bit of is counted `corrupt` (exactly as many as the
//! target counts), every live key deleted behind keystorm's back is `missing`, the first
//! of them are named in the run's events, and nothing else is. Also what validation
//! refuses.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use keystorm_results::{IntegrityEvent, RunEvent, RunStatus, SummaryRow, read_integrity};
use keystorm_s3::ListRequest;
use keystorm_workload::observer::Observer;

async fn start(storage: keystorm_sim::Storage, corrupt: f64) -> keystorm_sim::SimHandle {
    common::start_corrupting(storage, corrupt, 11).await
}

/// The integrity events of a run.
#[derive(Default)]
struct Findings(Mutex<Vec<IntegrityEvent>>);

impl Observer for Findings {
    fn event(&self, _id: u64, event: &RunEvent) {
        if let RunEvent::Integrity(f) = event {
            self.0.lock().unwrap().push(f.clone());
        }
    }
}

/// Runs `text` to its end; its `read` phase's row and the integrity events, after
/// checking that the run's integrity report, read back from its folder, says the same.
async fn run(text: &str) -> (SummaryRow, Vec<IntegrityEvent>) {
    let results = tempfile::tempdir().unwrap();
    let findings = Arc::new(Findings::default());
    let outcome = common::run_observed(text, results.path(), findings.clone()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let row = outcome
        .summary
        .rows
        .iter()
        .find(|r| r.phase == "read")
        .expect("a read row")
        .clone();
    let found = findings.0.lock().unwrap().clone();
    let report = read_integrity(&outcome.dir, &outcome.summary.rows);
    assert_eq!(report.examples, found);
    assert_eq!(report.corrupt, class(&row, "corrupt"));
    assert_eq!(report.missing, class(&row, "missing"));
    assert_eq!(report.verified_phases.len(), 1);
    assert_eq!(report.verified_gets, row.stats.ops + class(&row, "corrupt"));
    (row, found)
}

fn class(row: &SummaryRow, label: &str) -> u64 {
    row.stats.error_classes.get(label).copied().unwrap_or(0)
}

fn workload(endpoint: &str, content: &str, before: &str, reads: u64) -> String {
    common::workload(
        endpoint,
        &format!(
            "buckets: {{ names: [vrf] }}\nkeyspace: {{ seed: 5, prefix: v/ }}\n\
             objects: {{ size: 3KiB, content: {content} }}\n{before}\
             after:\n  - {{ name: read, op: get, concurrency: 8, operations: {reads}, verify: true }}\n"
        ),
    )
}

const FILL: &str = "before:\n  - { name: fill, op: put, concurrency: 8, until_objects: 400 }\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_body_the_target_corrupted_is_counted_and_nothing_else() {
    let sim = start(keystorm_sim::Storage::Memory, 0.1).await;
    let (row, found) = run(&workload(&sim.endpoint(), "random", FILL, 3000)).await;

    let corrupted = sim.fault_counts().corrupt;
    assert!(corrupted > 150, "{corrupted} bodies corrupted");
    assert_eq!(class(&row, "corrupt"), corrupted);
    assert_eq!(row.stats.errors, corrupted, "{:?}", row.stats.error_classes);
    assert_eq!(row.stats.ops + row.stats.errors, 3000);
    // The first hundred are named, each where one bit of one byte differs.
    assert_eq!(found.len(), 100);
    for f in &found {
        assert_eq!((f.class.as_str(), f.bucket.as_str()), ("corrupt", "vrf"));
        assert!(f.key.starts_with("v/"), "{f:?}");
        let flipped = flipped_bits(&f.detail);
        assert_eq!(flipped, 1, "{f:?}");
    }
}

/// How many bits differ in a detail `byte N is 0xGG, written 0xWW`.
fn flipped_bits(detail: &str) -> u32 {
    let hex = |s: &str| u8::from_str_radix(s.trim().trim_start_matches("0x"), 16).unwrap();
    let (_, rest) = detail.split_once(" is ").expect(detail);
    let (got, written) = rest.split_once(", written ").expect(detail);
    (hex(got) ^ hex(written)).count_ones()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zeros_on_a_size_only_target_verify_bodies_and_etags() {
    // Size-only storage keeps no bytes: it answers zeros, with the MD5 of those zeros.
    let sim = start(keystorm_sim::Storage::SizeOnly, 0.05).await;
    let (row, found) = run(&workload(&sim.endpoint(), "zero", FILL, 2000)).await;
    let corrupted = sim.fault_counts().corrupt;
    assert!(corrupted > 40, "{corrupted}");
    assert_eq!(class(&row, "corrupt"), corrupted);
    assert_eq!(row.stats.errors, corrupted, "{:?}", row.stats.error_classes);
    assert!(found.iter().all(|f| f.detail.ends_with("written 0x00")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_keys_deleted_behind_keystorms_back_are_missing() {
    let sim = start(keystorm_sim::Storage::Memory, 0.0).await;
    let fill = workload(&sim.endpoint(), "random", FILL, 1);
    run(&fill).await;
    // Five of the 400 objects go, by another hand.
    let client = common::client(&sim.endpoint()).await;
    let page = client
        .list_objects_v2(
            "vrf",
            &ListRequest {
                max_keys: Some(5),
                ..ListRequest::default()
            },
        )
        .await
        .unwrap();
    let gone: BTreeSet<String> = page.entries.into_iter().map(|e| e.key).collect();
    for key in &gone {
        client.delete_object("vrf", key).await.unwrap();
    }

    // A run that knows the 400 are there reads each about ten times.
    let reread = workload(&sim.endpoint(), "random", "", 4000)
        .replace("prefix: v/ }", "prefix: v/, existing: 400 }");
    let (row, found) = run(&reread).await;
    let missing = class(&row, "missing");
    assert_eq!(row.stats.errors, missing, "{:?}", row.stats.error_classes);
    assert_eq!(class(&row, "http_404"), 0);
    // Every read of a deleted key, and only those: each is an event while under 100.
    assert!(missing > 0 && missing < 100, "{missing}");
    assert_eq!(found.len() as u64, missing);
    let named: BTreeSet<String> = found.iter().map(|f| f.key.clone()).collect();
    assert_eq!(named, gone);
    assert!(found.iter().all(|f| f.class == "missing"));
}

#[test]
fn verify_is_refused_where_it_cannot_check() {
    let refused = |body: &str| {
        let text = common::workload("embedded", &format!("buckets: {{ names: [vrf] }}\n{body}"));
        keystorm_workload::spec::parse_workload(&text, "w.yaml")
            .err()
            .unwrap_or_else(|| panic!("accepted:\n{text}"))
            .to_string()
    };
    let e = refused("before:\n  - { op: put, operations: 10, verify: true }\n");
    assert!(
        e.starts_with("w.yaml:9:") && e.contains("`verify` checks the bodies GETs return"),
        "{e}"
    );
    let e = refused("before:\n  - { op: head, operations: 10, verify: true }\n");
    assert!(e.contains("`verify`"), "{e}");
    // Random bytes written to a target that keeps none cannot be checked.
    let size_only = "target:\n  endpoint: embedded\n  embedded: { storage: size-only }\n";
    let text = format!(
        "name: t\n{size_only}buckets: {{ names: [vrf] }}\nbefore:\n  - {{ op: put, operations: 10 }}\n  - {{ op: get, operations: 10, verify: true }}\n"
    );
    let e = keystorm_workload::spec::parse_workload(&text, "w.yaml")
        .expect_err("refused")
        .to_string();
    assert!(
        e.starts_with("w.yaml:8:") && e.contains("content: zero"),
        "{e}"
    );
    // The same with zeros, and a mix with GETs, are accepted.
    let zeros = text.replace("before:", "objects: { content: zero }\nbefore:");
    keystorm_workload::spec::parse_workload(&zeros, "w.yaml").expect("zeros verify");
    let mix = common::workload(
        "embedded",
        "buckets: { names: [vrf] }\nbefore:\n  - { mix: { get: 70, put: 30 }, operations: 10, verify: true }\n",
    );
    let (plan, _) =
        keystorm_workload::spec::parse_workload(&mix, "w.yaml").expect("a mix verifies");
    assert!(plan.before[0].verify);
}
