//! The result folder of a real run on the embedded target: every file present, the
//! summary valid against its JSON Schema, intervals parseable, and the interval
//! histograms — in the standard log format — merging to exactly the summary's numbers.

mod common;

use std::collections::HashMap;

use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use keystorm_results::{IntervalRecord, RunStatus, Summary};

const WORKLOAD: &str = "name: results-test
target:
  endpoint: embedded
buckets:
  names: [results]
keyspace:
  seed: 11
objects:
  size: 512B
before:
  - { name: fill, op: put, concurrency: 8, until_objects: 500 }
rounds:
  count: 2
  phases:
    - { name: read, op: get, concurrency: 4, operations: 400 }
    - { name: mixed, mix: { get: 60, put: 30, head: 5, delete: 5 }, concurrency: 4, operations: 300 }
after:
  - { name: final-list, op: list, page_size: 100 }
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_writes_complete_versioned_results() {
    let results = tempfile::tempdir().unwrap();
    let outcome = common::run(WORKLOAD, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let dir = &outcome.dir;
    for f in [
        "workload.yaml",
        "plan.json",
        "manifest.json",
        "intervals.jsonl",
        "histograms.hlog",
        "summary.json",
        "summary.csv",
        "totals.json",
        "checkpoint.json",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("workload.yaml")).unwrap(),
        WORKLOAD
    );

    // summary.json against its schema.
    let schema_text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/schema/summary.schema.json"
    ))
    .unwrap();
    let schema: serde_json::Value = serde_json::from_str(&schema_text).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let summary_value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&summary_value)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "schema violations: {errors:#?}");
    // The schema is strict enough to catch a broken file.
    let mut broken = summary_value.clone();
    broken["rows"][0]["op"] = serde_json::json!("copy");
    assert!(!validator.is_valid(&broken));

    let summary: Summary = serde_json::from_value(summary_value).unwrap();
    // fill + 2 rounds × (read: get; mixed: get, put, head, delete) + list
    let phases: Vec<(Option<u32>, &str, &str)> = summary
        .rows
        .iter()
        .map(|r| (r.round, r.phase.as_str(), r.op.as_str()))
        .collect();
    assert_eq!(phases.len(), 1 + 2 * 5 + 1, "{phases:?}");
    assert_eq!(phases[0], (None, "fill", "put"));
    assert_eq!(phases.last().unwrap(), &(None, "final-list", "list"));
    let list = summary.rows.last().unwrap();
    assert_eq!(
        list.stats.keys,
        outcome.window.len(),
        "a full listing sees every live key"
    );
    let reads: Vec<_> = summary.rows.iter().filter(|r| r.phase == "read").collect();
    assert_eq!(reads.len(), 2);
    assert!(
        reads
            .iter()
            .all(|r| r.stats.ops == 400 && r.stats.bytes == 400 * 512)
    );
    assert!(reads.iter().all(|r| r.stats.ttfb_us.is_some()));

    // CSV: header plus one line per row, `.` decimals.
    let csv = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + summary.rows.len());
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .starts_with("section,round,phase,op,")
    );

    // Intervals: every line parses and belongs to a phase of the summary.
    let intervals: Vec<IntervalRecord> = std::fs::read_to_string(dir.join("intervals.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("interval line parses"))
        .collect();
    assert!(!intervals.is_empty());
    let ops_in_intervals: u64 = intervals
        .iter()
        .filter(|i| i.phase == "read")
        .flat_map(|i| i.ops.values())
        .map(|s| s.ops)
        .sum();
    assert_eq!(
        ops_in_intervals, 800,
        "intervals add up to the phase totals"
    );

    // events.jsonl: the watched run as a log; one interval event per interval line,
    // one phase_finished per phase, carrying exactly the summary's rows.
    let events: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("event line parses"))
        .collect();
    let count = |name: &str| events.iter().filter(|e| e["event"] == name).count();
    assert_eq!(events[0]["event"], "started");
    assert_eq!(count("interval"), intervals.len());
    assert_eq!(count("phase_started"), count("phase_finished"));
    assert_eq!(
        events.last().unwrap()["data"]["status"],
        "completed",
        "{:?}",
        events.last()
    );
    let rows_in_events: usize = events
        .iter()
        .filter(|e| e["event"] == "phase_finished")
        .map(|e| e["data"]["rows"].as_array().unwrap().len())
        .sum();
    assert_eq!(rows_in_events, summary.rows.len());
    assert!(
        !events
            .iter()
            .any(|e| e.to_string().contains(&*dir.to_string_lossy())),
        "no local paths in the event log"
    );

    // histograms.hlog: standard format; merged per tag it gives the summary's numbers.
    let log = std::fs::read(dir.join("histograms.hlog")).unwrap();
    let mut merged: HashMap<String, Histogram<u64>> = HashMap::new();
    let mut deserializer = Deserializer::new();
    for entry in IntervalLogIterator::new(&log) {
        if let LogEntry::Interval(h) = entry.expect("log line parses") {
            let tag = h.tag().expect("every line is tagged").as_str().to_string();
            let bytes = base64_decode(h.encoded_histogram());
            let hist: Histogram<u64> = deserializer.deserialize(&mut bytes.as_slice()).unwrap();
            merged
                .entry(tag)
                .or_insert_with(|| Histogram::new(3).unwrap())
                .add(&hist)
                .unwrap();
        }
    }
    let read2 = summary
        .rows
        .iter()
        .find(|r| r.phase == "read" && r.round == Some(2))
        .unwrap();
    let h = &merged["round.2.read.get"];
    assert_eq!(h.len(), read2.stats.ops);
    assert_eq!(h.value_at_quantile(0.99), read2.stats.latency_us.p99);
    assert_eq!(h.max(), read2.stats.latency_us.max);

    // The library's own per-tag reader gives the same merge.
    let again =
        keystorm_results::read_merged(&dir.join("histograms.hlog"), "round.2.read.get").unwrap();
    assert_eq!(&again, h);
}

fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedded_workload_needs_a_program_that_provides_the_embedded_target() {
    // The engine knows the embedded target only through `RunOptions::embedded`: without
    // it the run is refused before anything is written, and says what to do instead.
    let dir = tempfile::tempdir().unwrap();
    let options = keystorm_engine::executor::RunOptions {
        results_root: dir.path().to_path_buf(),
        ..Default::default()
    };
    let refused = keystorm_engine::executor::run(
        common::plan(WORKLOAD),
        WORKLOAD,
        options,
        std::sync::Arc::new(keystorm_workload::observer::NoObserver),
        tokio_util::sync::CancellationToken::new(),
    )
    .await
    .expect_err("no embedded target to start");
    assert!(
        matches!(refused, keystorm_engine::executor::RunError::BadInput(_)),
        "{refused:?}"
    );
    let message = refused.to_string();
    assert!(
        message.contains("no embedded target") && message.contains("--endpoint"),
        "{message}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
