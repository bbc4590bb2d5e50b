//! Faults counted exactly at volume: `keystorm run` against `keystorm sim` in a process
//! of its own injecting all four fault kinds at known rates, with retries on. Every
//! request is accounted for — keystorm's attempts of each operation are the requests
//! the target received of it, its failed attempts by class are the faults it injected,
//! successes and failed operations are the operations issued, and intervals, rows and
//! totals agree — and only the workload's abort rule (`max_error_rate`) stops a run.

mod process_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use process_support::{
    admin_get, intervals, keystorm, kill_9, read_json, start_sim, the_run, write_workload,
};
use serde_json::Value;

/// The target's request and fault-group names of a keystorm operation.
fn target_names(op: &str) -> (&'static str, &'static str) {
    match op {
        "put" => ("PutObject", "put"),
        "get" => ("GetObject", "get"),
        "head" => ("HeadObject", "head"),
        "list" => ("ListObjectsV2", "list"),
        "delete" => ("DeleteObject", "delete"),
        other => panic!("unknown operation {other}"),
    }
}

/// keystorm's class label of each injected fault kind (with a `timeout` shorter than
/// the stall).
const CLASS_OF_FAULT: [(&str, &str); 4] = [
    ("slow_down", "slowdown"),
    ("internal_error", "http_500"),
    ("reset", "connection"),
    ("stall", "timeout"),
];

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
    fn add(&mut self, s: &Value) {
        let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("no {k} in {s}"));
        self.ops += n("ops");
        self.errors += n("errors");
        self.retries += n("retries");
        for (field, into) in [
            ("error_classes", &mut self.error_classes),
            ("attempt_error_classes", &mut self.attempt_error_classes),
        ] {
            for (class, count) in s[field].as_object().unwrap() {
                *into.entry(class.clone()).or_default() += count.as_u64().unwrap();
            }
        }
    }

    fn attempts(&self) -> u64 {
        self.ops + self.errors + self.retries
    }
}

/// Checks the run's accounting against what the target received and injected; returns
/// the counts per operation.
fn check_against_target(run: &Path, endpoint: &str) -> BTreeMap<String, Counts> {
    let summary = read_json(&run.join("summary.json")).expect("summary.json");
    let mut by_op: BTreeMap<String, Counts> = BTreeMap::new();
    for row in summary["rows"].as_array().unwrap() {
        let mut c = Counts::default();
        c.add(row);
        let failed_attempts: u64 = c.attempt_error_classes.values().sum();
        assert_eq!(
            failed_attempts,
            c.errors + c.retries,
            "every retry follows one failed attempt: {row}"
        );
        by_op
            .entry(row["op"].as_str().unwrap().to_string())
            .or_default()
            .add(row);
    }
    for t in summary["totals"].as_array().unwrap() {
        let mut total = Counts::default();
        total.add(t);
        assert_eq!(total, by_op[t["op"].as_str().unwrap()], "totals: {t}");
    }
    let mut from_intervals: BTreeMap<String, Counts> = BTreeMap::new();
    for r in intervals(run) {
        for (op, s) in r["ops"].as_object().unwrap() {
            from_intervals.entry(op.clone()).or_default().add(s);
        }
    }
    assert_eq!(from_intervals, by_op, "intervals add up to the rows");

    let requests = admin_get(endpoint, "/admin/keystorm/requests");
    let faults = admin_get(endpoint, "/admin/keystorm/faults");
    for op in ["put", "get", "head", "list", "delete"] {
        let (request_name, fault_group) = target_names(op);
        let counted = by_op.get(op);
        assert_eq!(
            counted.map_or(0, Counts::attempts),
            requests[request_name].as_u64().unwrap(),
            "{op}: attempts = requests the target received ({counted:?})"
        );
        let injected: BTreeMap<String, u64> = CLASS_OF_FAULT
            .iter()
            .map(|(kind, class)| {
                let n = faults["ops"][fault_group][kind].as_u64().unwrap();
                (class.to_string(), n)
            })
            .filter(|(_, n)| *n > 0)
            .collect();
        assert_eq!(
            counted
                .map(|c| c.attempt_error_classes.clone())
                .unwrap_or_default(),
            injected,
            "{op}: failed attempts by class = faults injected"
        );
    }
    by_op
}

/// How long a run may take before the test fails instead of waiting on: far above what
/// the soak needs, even on a busy machine.
const RUN_DEADLINE: Duration = Duration::from_secs(600);

/// Runs `text` with `keystorm run` to its end (failing the test if that takes longer
/// than [`RUN_DEADLINE`]); returns whether it exited with success, what it wrote to
/// stderr, and its run folder.
fn run_to_end(dir: &Path, text: &str) -> (bool, String, PathBuf) {
    let results = dir.join("results");
    let wl = write_workload(dir, "soak", text);
    let stderr_path = dir.join("stderr.txt");
    let mut child = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "quiet"],
        &results,
    )
    .stdout(Stdio::null())
    .stderr(std::fs::File::create(&stderr_path).unwrap())
    .spawn()
    .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > RUN_DEADLINE {
            kill_9(&mut child);
            panic!("the run did not end within {RUN_DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = std::fs::read_to_string(&stderr_path).unwrap();
    (status.success(), stderr, the_run(&results))
}

/// HEADs per soak: with the fill, at least 500,000 requests.
const SOAK_HEADS: u64 = 500_000;
const SOAK_OBJECTS: u64 = 2_000;

/// Slow-down 1 %, internal error 1 %, reset 0.5 %, stall 0.01 % (held 3 s, against a
/// 1 s timeout): about 2.5 % of requests fail, with every kind in the hundreds or more.
const SOAK_FAULTS: &[&str] = &[
    "--storage",
    "size-only",
    "--fault",
    "slow-down=0.01",
    "--fault",
    "internal-error=0.01",
    "--fault",
    "reset=0.005",
    "--fault",
    "stall=0.0001",
    "--stall-time",
    "3s",
    "--fault-seed",
    "15",
];

#[test]
fn half_a_million_requests_with_faults_and_retries_are_each_accounted_for() {
    let sim = start_sim(SOAK_FAULTS);
    let dir = tempfile::tempdir().unwrap();
    // One retry: most failed attempts succeed on it, some fail twice (failed
    // operations); max_error_rate is above the operations' failure rate but below the
    // attempts', so it must not abort.
    let text = format!(
        "name: soak\ntarget: {{ endpoint: \"{}\", timeout: 1s, retries: 1 }}\n\
         buckets: {{ names: [soak] }}\nobjects: {{ size: 0B }}\n\
         before:\n  - {{ name: fill, op: put, concurrency: 32, until_objects: {SOAK_OBJECTS} }}\n\
         rounds:\n  count: 1\n  phases:\n    - {{ name: heads, op: head, concurrency: 32, operations: {SOAK_HEADS}, max_error_rate: 0.01 }}\n",
        sim.endpoint
    );
    let started = Instant::now();
    let (success, stderr, run) = run_to_end(dir.path(), &text);
    let took = started.elapsed();
    let manifest = read_json(&run.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "completed", "{manifest}\n{stderr}");
    assert!(success, "{stderr}");
    let by_op = check_against_target(&run, &sim.endpoint);

    let put = &by_op["put"];
    let head = &by_op["head"];
    assert_eq!(put.ops, SOAK_OBJECTS, "the fill put exactly its objects");
    assert_eq!(head.ops + head.errors, SOAK_HEADS, "operations issued");
    let attempts = put.attempts() + head.attempts();
    assert!(attempts >= SOAK_HEADS + SOAK_OBJECTS, "{attempts}");
    // Every kind was injected, into the reads in the hundreds; failed operations and
    // retries both happened.
    for (_, class) in CLASS_OF_FAULT {
        assert!(
            head.attempt_error_classes.get(class).copied().unwrap_or(0) >= 20,
            "{class}: {head:?}"
        );
    }
    assert!(head.retries > 10_000 && head.errors > 50, "{head:?}");
    let attempt_failure = (head.errors + head.retries) as f64 / head.attempts() as f64;
    let op_failure = head.errors as f64 / (head.ops + head.errors) as f64;
    assert!(
        attempt_failure > 0.01 && op_failure < 0.01,
        "attempts fail more often than max_error_rate, operations less: {attempt_failure} {op_failure}"
    );
    eprintln!(
        "soak: {attempts} requests ({} retries, {} failed operations) in {:.1} s",
        put.retries + head.retries,
        put.errors + head.errors,
        took.as_secs_f64()
    );
}

/// HEADs the aborted phase would make if it ran to its end.
const ABORT_HEADS: u64 = 40_000;

#[test]
fn the_abort_rule_stops_a_run_whose_operations_fail_too_often() {
    let sim = start_sim(&[
        "--storage",
        "size-only",
        "--fault",
        "slow-down=0.1",
        "--fault",
        "reset=0.05",
        "--fault-ops",
        "head",
        "--fault-seed",
        "16",
    ]);
    let dir = tempfile::tempdir().unwrap();
    // One retry: about 2 % of operations fail on both attempts, above the 1 % allowed.
    // Not stopped, the phase would take some ten seconds.
    let text = format!(
        "name: abort\ntarget: {{ endpoint: \"{}\", timeout: 1s, retries: 1 }}\n\
         buckets: {{ names: [abort] }}\nobjects: {{ size: 0B }}\n\
         before:\n  - {{ name: fill, op: put, concurrency: 8, until_objects: 200 }}\n\
         rounds:\n  count: 1\n  phases:\n    - {{ name: heads, op: head, concurrency: 8, operations: {ABORT_HEADS}, max_error_rate: 0.01 }}\n",
        sim.endpoint
    );
    let (success, _, run) = run_to_end(dir.path(), &text);
    assert!(!success, "an aborted run is not a success");
    let manifest = read_json(&run.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "aborted", "{manifest}");
    let error = manifest["error"].as_str().unwrap();
    assert!(
        error.contains("phase heads") && error.contains("exceeds max_error_rate 1.0%"),
        "{error}"
    );
    // Stopped early, with what it did still accounted for exactly.
    let by_op = check_against_target(&run, &sim.endpoint);
    let head = &by_op["head"];
    assert!(head.ops + head.errors < ABORT_HEADS, "{head:?}");
    assert!(head.errors > 0 && head.retries > 0, "{head:?}");
    assert!(head.errors as f64 / (head.ops + head.errors) as f64 > 0.01);
    assert_eq!(by_op["put"].retries, 0, "the fill got no faults");
}
