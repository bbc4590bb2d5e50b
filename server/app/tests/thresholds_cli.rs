//! Thresholds beyond a phase's end, as `keystorm run` meets them on the embedded
//! target: judged live on what a phase measured so far, which with `expect_abort_after`
//! stops a run missing one long before its end (exit 3) and without it only says so;
//! and `integrity: as_written`, met only when a verification or an audit proved the
//! store kept what it was given. Run in-process (`in_process`); a shard, which needs a
//! target of its own (`keystorm sim`), runs the binary.

mod cli_support;
mod in_process;
mod process_support;

use std::path::Path;

use cli_support::{only_run, write};
use in_process::keystorm;

fn show_json(results: &Path, id: &str) -> serde_json::Value {
    let shown = keystorm()
        .args(["show", id, "--json", "--results"])
        .arg(results)
        .code(0)
        .stdout();
    serde_json::from_str(&shown).unwrap()
}

/// `keystorm run FILE --progress plain --results RESULTS MORE...`, which must exit
/// with `code`; what it printed on stderr.
fn run_plain(file: &Path, results: &Path, more: &[&str], code: u8) -> String {
    keystorm()
        .arg("run")
        .arg(file)
        .args(["--progress", "plain", "--results"])
        .arg(results)
        .args(more)
        .code(code)
        .stderr()
}

/// The run's logged events named `name`, their data.
fn events(results: &Path, id: &str, name: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(results.join(id).join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == name)
        .map(|e| e["data"].clone())
        .collect()
}

/// Every GET takes 2 ms on the target: its p99 is never under 1 ms. The read phase
/// runs 8 s unless stopped (`ABORT` is where `expect_abort_after` goes).
const SLOW_GETS: &str = "name: live
target:
  endpoint: embedded
  embedded: { storage: size-only, latency: { get: 2ms } }
buckets: { names: [live] }
objects: { size: 1KiB }
before:
  - { name: fill, op: put, workers: 4, operations: 100 }
  - { name: read, op: get, workers: 4, duration: 8s, expect: [\"get.p99 < 1ms\", \"get.p50 < 10s\"]ABORT }
";

#[test]
fn a_threshold_missed_live_stops_the_run_after_its_grace_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let f = write(
        dir.path(),
        "abort.yaml",
        &SLOW_GETS.replace("ABORT", ", expect_abort_after: 2s"),
    );
    let stderr = run_plain(&f, &results, &[], 3);
    assert!(
        stderr.contains("before read: get.p99 < 1ms missed so far (")
            && stderr.contains("stops the run if still missed after 2 s measured"),
        "told while it ran: {stderr}"
    );
    assert!(
        stderr.contains("before read: get.p99 < 1ms MISSED so far (")
            && stderr.contains("expect_abort_after stops the run"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "missed a threshold: before read: get.p99 < 1ms missed while the phase ran ("
        ) && stderr.contains("; exit 3"),
        "{stderr}"
    );
    let id = only_run(&results);
    let json = show_json(&results, &id);
    let read = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["phase"] == "read")
        .unwrap_or_else(|| panic!("{json:#}"));
    let measured = read["duration_s"].as_f64().unwrap();
    assert!(
        (2.0..4.0).contains(&measured),
        "stopped once it measured 2 s, long before its 8 s: {measured} s"
    );
    assert_eq!(json["verdict"]["status"], "aborted", "{json:#}");

    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(results.join(&id).join("manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["status"], "aborted");
    let stopped = &manifest["stopped_by_threshold"];
    assert_eq!(stopped["expect"], "get.p99 < 1ms", "{manifest:#}");
    assert_eq!(stopped["passed"], false);
    assert!(stopped["actual"].as_f64().unwrap() >= 2_000.0, "{stopped}");
    let error = manifest["error"].as_str().unwrap();
    assert!(
        error.starts_with("phase read: get.p99 < 1ms missed on the ")
            && error.contains("expect_abort_after 2s stops the run"),
        "{error}"
    );

    // Told every second on what the phase measured so far; the last says which stops it.
    let so_far = events(&results, &id, "thresholds_so_far");
    let last = so_far.last().expect("no thresholds_so_far event");
    assert_eq!(last["stops_run"], "get.p99 < 1ms", "{last}");
    assert_eq!(last["abort_after_s"], 2.0);
    assert!(last["measured_s"].as_f64().unwrap() >= 2.0, "{last}");
    let checks: Vec<(&str, bool)> = last["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["expect"].as_str().unwrap(),
                c["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(checks, [("get.p99 < 1ms", false), ("get.p50 < 10s", true)]);
    assert!(
        so_far[..so_far.len() - 1]
            .iter()
            .all(|e| e.get("stops_run").is_none()),
        "only the last stops the run: {so_far:#?}"
    );
}

#[test]
fn without_expect_abort_after_a_threshold_missed_live_is_only_told() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let f = write(dir.path(), "told.yaml", &SLOW_GETS.replace("ABORT", ""));
    let stderr = run_plain(&f, &results, &[], 3);
    assert!(
        stderr.contains("before read: get.p99 < 1ms missed so far ("),
        "{stderr}"
    );
    assert!(!stderr.contains("stops the run"), "{stderr}");
    let id = only_run(&results);
    let json = show_json(&results, &id);
    assert_eq!(json["verdict"]["overall"], "missed_threshold", "{json:#}");
    let read = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["phase"] == "read")
        .unwrap();
    let measured = read["duration_s"].as_f64().unwrap();
    assert!(measured >= 7.9, "ran its whole 8 s: {measured} s");
    let so_far = events(&results, &id, "thresholds_so_far");
    assert!(so_far.len() >= 6, "one a second: {}", so_far.len());
    assert!(so_far.iter().all(|e| e.get("stops_run").is_none()));
}

#[test]
fn a_shard_is_not_stopped_by_a_bound_on_its_share_of_the_throughput() {
    let sim = process_support::start_sim(&[]);
    let dir = tempfile::tempdir().unwrap();
    // No shard writes a hundred million objects a second; its share of that is not
    // the bound's to judge, so the phase runs its 3 s and is judged at its end.
    let f = write(
        dir.path(),
        "shard.yaml",
        &format!(
            "name: shard\ntarget: {{ endpoint: \"{}\" }}\nbuckets: {{ names: [shard] }}\n\
             objects: {{ size: 10B }}\nbefore:\n  - {{ name: fill, op: put, workers: 2, \
             duration: 3s, expect: [\"put.ops_per_sec > 100000000\"], expect_abort_after: 1s }}\n",
            sim.endpoint
        ),
    );
    let results = dir.path().join("results");
    let ran = process_support::keystorm(
        &[
            "run",
            f.to_str().unwrap(),
            "--shard",
            "0/2",
            "--progress",
            "plain",
        ],
        &results,
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("before fill: put.ops_per_sec > 100000000 missed so far ("),
        "shown: {stderr}"
    );
    assert!(!stderr.contains("stops the run"), "{stderr}");
    let id = only_run(&results);
    let json = show_json(&results, &id);
    let measured = json["rows"][0]["duration_s"].as_f64().unwrap();
    assert!(measured >= 2.9, "ran its whole 3 s: {measured} s");
}

#[test]
fn expect_abort_after_with_nothing_to_miss_live_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "idle.yaml",
        "name: idle\nbuckets: { names: [idle] }\nexpect: [\"integrity: as_written\"]\nexpect_abort_after: 5s\nbefore:\n  - { name: fill, op: put, operations: 10 }\n",
    );
    let stderr = keystorm().arg("validate").arg(&f).code(2).stderr();
    assert!(
        stderr.contains("idle.yaml:4:21: `expect_abort_after` stops the run when a threshold"),
        "{stderr}"
    );
    // A phase's own, where neither it nor the workload has a bound: at the phase.
    let f = write(
        dir.path(),
        "idle-phase.yaml",
        "name: idle\nbuckets: { names: [idle] }\nbefore:\n  - { name: fill, op: put, operations: 10 }\n  - { name: read, op: get, operations: 10, expect_abort_after: 5s }\n",
    );
    let stderr = keystorm().arg("validate").arg(&f).code(2).stderr();
    assert!(
        stderr.contains(
            "idle-phase.yaml:5:5: phase `read`: `expect_abort_after` stops the run when a \
             threshold is missed"
        ),
        "{stderr}"
    );
}

#[test]
fn an_integrity_entry_that_cannot_be_read_is_refused_at_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "bad.yaml",
        &KEPT
            .replace("FAULTS", "")
            .replace("VERIFY", "")
            .replace("integrity: as_written", "integrity: intact"),
    );
    let stderr = keystorm().arg("validate").arg(&f).code(2).stderr();
    assert!(
        stderr.contains("bad.yaml:7:10: `expect`: \"integrity: intact\" is not an integrity")
            && stderr.contains("write \"integrity: as_written\""),
        "{stderr}"
    );
}

/// A fill and a read (`VERIFY` is where `verify: true` goes) on a target whose faults
/// go where `FAULTS` is; the workload expects the store to keep what it was given.
const KEPT: &str = "name: kept
target:
  endpoint: embedded
  embedded: { storage: memory FAULTS}
buckets: { names: [kept] }
objects: { size: 1KiB }
expect: [\"integrity: as_written\"]
before:
  - { name: fill, op: put, workers: 4, operations: 300 }
  - { name: read, op: get, workers: 4, operations: 300 VERIFY}
";

fn run_kept(dir: &Path, name: &str, faults: &str, verify: &str, more: &[&str], code: u8) -> String {
    let results = dir.join(name);
    let f = write(
        dir,
        &format!("{name}.yaml"),
        &KEPT.replace("FAULTS", faults).replace("VERIFY", verify),
    );
    run_plain(&f, &results, more, code)
}

#[test]
fn integrity_as_written_is_missed_by_a_run_that_never_checked() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = run_kept(dir.path(), "unchecked", "", "", &[], 3);
    assert!(
        stderr.contains(
            "missed a threshold: run: integrity: as_written missed (integrity not checked: \
             no phase verified or audited); exit 3"
        ),
        "{stderr}"
    );
    let results = dir.path().join("unchecked");
    let id = only_run(&results);
    let json = show_json(&results, &id);
    assert_eq!(json["verdict"]["overall"], "missed_threshold", "{json:#}");
    let checks = json["thresholds"].as_array().unwrap();
    assert_eq!(checks.len(), 1, "{json:#}");
    assert_eq!(checks[0]["phase"], "run");
    assert_eq!(checks[0]["expect"], "integrity: as_written");
    assert_eq!(checks[0]["passed"], false);
    // Told as the run ended, as the events have it.
    let told = events(&results, &id, "threshold");
    assert_eq!(told.len(), 1, "{told:#?}");
    assert_eq!(told[0]["phase"], "run");
    let text = keystorm()
        .args(["show", &id, "--results"])
        .arg(&results)
        .code(0)
        .stdout();
    assert!(
        text.contains("  MISSED  run: integrity: as_written (integrity not checked"),
        "{text}"
    );
}

#[test]
fn integrity_as_written_is_met_by_verified_reads_of_a_healthy_store() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = run_kept(dir.path(), "healthy", "", ", verify: true", &[], 0);
    assert!(
        stderr.contains("run: integrity: as_written met (all as written: 300 GETs verified)"),
        "{stderr}"
    );
}

#[test]
fn integrity_as_written_is_missed_when_the_store_corrupts_even_if_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let faults = ", faults: { corrupt: 0.1, seed: 7, ops: [get] } ";
    let stderr = run_kept(dir.path(), "corrupt", faults, ", verify: true", &[], 3);
    assert!(
        stderr.contains("not as written: reads found ") && stderr.contains("; exit 3"),
        "{stderr}"
    );
    // The workload asked for it: allowing the store's findings does not drop the expectation.
    let stderr = run_kept(
        dir.path(),
        "allowed",
        faults,
        ", verify: true",
        &["--allow-not-as-written"],
        3,
    );
    assert!(
        stderr.contains("missed a threshold: run: integrity: as_written missed (reads found ")
            && stderr.contains(" corrupt, 0 missing); exit 3"),
        "{stderr}"
    );
}
