//! The command line as a user meets it: help, validation errors as one line with
//! file:line:column and exit code 2, a run on the embedded target with its summary,
//! and the past-run commands. They run in-process (`in_process`); only the check that
//! reads `KEYSTORM_TOKEN` from the environment starts the binary.

mod cli_support;
mod in_process;

use std::path::Path;

use assert_cmd::Command;
use cli_support::{only_run, write};
use in_process::keystorm;
use predicates::prelude::*;

const SMALL: &str = "name: cli-small
target: { endpoint: embedded }
buckets: { names: [cli] }
objects: { size: 1KiB }
before:
  - { name: fill, op: put, concurrency: 4, until_objects: 200 }
rounds:
  count: 2
  phases:
    - { name: read, op: get, concurrency: 4, operations: 100 }
";

#[test]
fn help_documents_every_command() {
    let text = keystorm().arg("--help").success().stdout();
    for cmd in [
        "run", "validate", "ls", "show", "list", "keys", "sim", "serve",
    ] {
        assert!(text.contains(cmd), "help lacks {cmd}");
    }
    let text = keystorm().args(["run", "--help"]).success().stdout();
    assert!(
        text.contains("--resume") && text.contains("--label"),
        "{text}"
    );
    // Settings that also come from the environment say which variable, without an
    // empty `NAME=` where the variable is unset (nor a value where it is set).
    for cmd in ["run", "ls", "show", "list", "sim", "serve", "agent"] {
        let text = keystorm().args([cmd, "--help"]).success().stdout();
        assert!(!text.contains("=]"), "{cmd} --help: {text}");
    }
    let text = keystorm().args(["serve", "--help"]).success().stdout();
    assert!(text.contains("[env: KEYSTORM_RESULTS]"), "{text}");
}

#[test]
fn a_valid_workload_validates() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "ok.yaml", SMALL);
    let out = keystorm().arg("validate").arg(&f).success().stdout();
    assert!(out.contains("ok"), "{out}");
}

#[test]
fn a_bad_workload_gets_one_line_with_line_and_column_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = SMALL.replace(
        "objects: { size: 1KiB }",
        "objects: { size: 1KiB, colour: red }",
    );
    let f = write(dir.path(), "bad.yaml", &bad);
    let stderr = keystorm().arg("validate").arg(&f).code(2).stderr();
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("bad.yaml:4:"),
        "names file and line: {stderr}"
    );
    assert!(stderr.contains("colour"), "names the field: {stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"));

    // The same error stops `run` before anything starts.
    let results = dir.path().join("results");
    let stderr = keystorm()
        .arg("run")
        .arg(&f)
        .arg("--results")
        .arg(&results)
        .code(2)
        .stderr();
    assert!(stderr.contains("bad.yaml:4:"), "{stderr}");
    assert!(
        !results.exists(),
        "no result folder for a workload that never ran"
    );
}

#[test]
fn a_bad_size_unit_is_reported_where_it_stands() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "unit.yaml",
        &SMALL.replace("size: 1KiB", "size: 1KB-4XB"),
    );
    let stderr = keystorm().arg("validate").arg(&f).code(2).stderr();
    assert!(
        stderr.contains("unit.yaml:4:") && stderr.contains("XB"),
        "{stderr}"
    );
}

#[test]
fn missing_files_and_bad_arguments_exit_2() {
    let stderr = keystorm()
        .args(["validate", "does-not-exist.yaml"])
        .code(2)
        .stderr();
    assert!(stderr.contains("does-not-exist.yaml"), "{stderr}");
    keystorm()
        .args(["run", "--label", "novalue", "x.yaml"])
        .code(2);
    let stderr = keystorm().arg("frobnicate").code(2).stderr();
    assert!(stderr.contains("frobnicate"), "{stderr}");
    let dir = tempfile::tempdir().unwrap();
    let stderr = keystorm()
        .args(["show", "no-such-run", "--results"])
        .arg(dir.path())
        .code(2)
        .stderr();
    assert!(stderr.contains("no-such-run"), "{stderr}");
}

#[test]
fn a_run_prints_its_summary_and_is_listed_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{SMALL}cleanup: {{ objects: true, buckets: true }}\n");
    let f = write(dir.path(), "small.yaml", &text);
    let results = dir.path().join("results");
    let out = keystorm()
        .arg("run")
        .arg(&f)
        .args([
            "--label",
            "purpose=cli-test",
            "--progress",
            "plain",
            "--results",
        ])
        .arg(&results)
        .success();
    let (stdout, stderr) = (out.stdout(), out.stderr());
    assert!(
        stdout.contains("p99.9") && stdout.contains("ops/s"),
        "{stdout}"
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("read ")).count(),
        2,
        "{stdout}"
    );
    assert!(
        stderr.contains("round 1/2 read"),
        "plain progress lines: {stderr}"
    );
    // The 200 objects in one DeleteObjects; the bucket the run made goes too.
    let cleanup = "deleted 200 of 200 objects in 1 request";
    assert!(
        stderr.contains(&format!("cleanup: done, {cleanup}, 1 bucket deleted, ")),
        "cleanup line: {stderr}"
    );

    let runs: Vec<_> = std::fs::read_dir(&results).unwrap().collect();
    assert_eq!(runs.len(), 1);
    let run_id = runs[0].as_ref().unwrap().file_name().into_string().unwrap();
    let ls = || {
        keystorm()
            .arg("ls")
            .arg("--results")
            .arg(&results)
            .success()
            .stdout()
    };
    let listed = ls();
    assert!(
        listed.contains(&run_id) && listed.contains("purpose=cli-test"),
        "{listed}"
    );
    // Newest first, as the web UI lists runs: a copy of the run dated later comes
    // before it.
    let later = format!("{run_id}-later");
    copy_dir(&results.join(&run_id), &results.join(&later));
    let manifest_path = results.join(&later).join("manifest.json");
    let mut later_manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    later_manifest["run_id"] = later.clone().into();
    later_manifest["started_at"] = "2099-01-01T00:00:00.000Z".into();
    std::fs::write(&manifest_path, later_manifest.to_string()).unwrap();
    let listed = ls();
    let row = |id: &str| {
        listed
            .lines()
            .position(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_else(|| panic!("{id} not listed: {listed}"))
    };
    assert!(row(&later) < row(&run_id), "{listed}");
    std::fs::remove_dir_all(results.join(&later)).unwrap();
    let shown = keystorm()
        .args(["show", &run_id[..run_id.len() - 3], "--results"])
        .arg(&results)
        .success()
        .stdout();
    assert!(
        shown.contains("completed")
            && shown.contains("fill")
            && shown.contains(&format!("cleanup: {cleanup}")),
        "{shown}"
    );
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(results.join(&run_id).join("manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["status"], "completed");
    assert_eq!(manifest["labels"]["purpose"], "cli-test");
    assert_eq!(manifest["endpoint"], "embedded");
    // The run records the command line it was given.
    let words = manifest["command_line"].as_array().expect("command_line");
    assert_eq!(words[0], "keystorm");
    assert!(words.iter().any(|w| w == "purpose=cli-test"), "{words:?}");
}

#[test]
fn serving_beyond_loopback_needs_a_token() {
    // The token may come from the environment: this one runs the binary, whose
    // environment it controls.
    let keystorm = || Command::cargo_bin("keystorm").unwrap();
    keystorm()
        .args(["serve", "--bind", "0.0.0.0", "--port", "0"])
        .env_remove("KEYSTORM_TOKEN")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--token"));
    keystorm()
        .args([
            "serve", "--bind", "0.0.0.0", "--port", "0", "--token", "short",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("at least 16"));
}

#[test]
fn an_audit_that_finds_objects_lost_prints_them_and_the_run_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let f = write(
        dir.path(),
        "audited.yaml",
        "name: audited\ntarget:\n  endpoint: embedded\n  embedded:\n    storage: size-only\n    \
         index: { dynamic: true, max_objs_per_shard: 20, check_interval: 10ms, reshard_time_per_object: 1us, retry_step: 1ms }\n    \
         faults: { lose_on_reshard: 0.05, seed: 9 }\n\
         buckets: { names: [audited], create: true }\nobjects: { size: 10B }\n\
         before:\n  - { name: fill, op: put, concurrency: 8, until_objects: 1500 }\n  - { name: check, op: audit }\n",
    );
    // Completed, but the store did not keep what it was given: exit 3, saying why.
    let ran = keystorm()
        .arg("run")
        .arg(&f)
        .args(["--progress", "quiet", "--results"])
        .arg(&results)
        .code(3);
    let stdout = ran.stdout();
    let run = results.join(only_run(&results));
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    let audit: serde_json::Value = events
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["event"] == "audit")
        .expect("an audit event");
    let missing = audit["data"]["counts"]["missing"].as_u64().unwrap();
    assert!(missing > 0, "{audit}");
    assert!(
        ran.stderr().contains(&format!(
            "not as written: audits found {missing} missing, 0 doubled, 0 extra, 0 size \
             mismatches; exit 3 (--allow-not-as-written exits 0)"
        )),
        "{}",
        ran.stderr()
    );
    let verdict = format!(
        "audit before check, bucket audited: NOT AS WRITTEN: {missing} missing, 0 doubled, 0 extra, 0 size mismatches (1500 keys expected, {} listed;",
        1500 - missing
    );
    assert!(stdout.contains(&verdict), "{verdict} in\n{stdout}");
    let first = audit["data"]["examples"][0]["key"].as_str().unwrap();
    assert!(
        stdout.contains(&format!("  missing {first}: written, 10 bytes, not listed")),
        "{stdout}"
    );
    // No GET was verified: no verification line.
    assert!(!stdout.contains("integrity:"), "{stdout}");
    let shown = keystorm()
        .args(["show", &only_run(&results), "--results"])
        .arg(&results)
        .success()
        .stdout();
    assert!(shown.contains(&verdict), "{shown}");
    assert!(
        shown.contains(&format!(
            "not as written: audits found {missing} missing, 0 doubled, 0 extra, 0 size mismatches"
        )),
        "{shown}"
    );
    // Scripts read the same verdict and counts, in the documented shape.
    let json: serde_json::Value = serde_json::from_str(
        &keystorm()
            .args(["show", &only_run(&results), "--json", "--results"])
            .arg(&results)
            .success()
            .stdout(),
    )
    .unwrap();
    assert_eq!(json["verdict"]["overall"], "not_as_written", "{json}");
    assert_eq!(json["verdict"]["findings"][0]["kind"], "not_as_written");
    assert_eq!(
        json["integrity"]["audits"][0]["counts"]["missing"].as_u64(),
        Some(missing)
    );
    fits_summary_schema(&json);
    let listed = keystorm()
        .args(["ls", "--results"])
        .arg(&results)
        .success()
        .stdout();
    assert!(listed.contains("not as written"), "{listed}");
    // Asked not to fail on it: exit 0, the finding still said.
    let allowed = keystorm()
        .arg("run")
        .arg(&f)
        .args(["--progress", "quiet", "--allow-not-as-written", "--results"])
        .arg(&results)
        .success();
    assert!(
        allowed.stderr().contains("not as written"),
        "{}",
        allowed.stderr()
    );
}

#[test]
fn verify_checks_every_get_or_says_why_it_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let f = write(dir.path(), "small.yaml", SMALL);
    let stdout = keystorm()
        .arg("run")
        .arg(&f)
        .args(["--verify", "--progress", "quiet", "--results"])
        .arg(&results)
        .success()
        .stdout();
    assert!(
        stdout.contains(
            "integrity: verified 200 GETs in 2 phases: every body as written, no live key missing"
        ),
        "{stdout}"
    );
    // Every GET phase checked what it read, found nothing wrong, and the run recorded
    // the flag (a resume goes on verifying).
    let run = results.join(only_run(&results));
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(run.join(name)).unwrap()).unwrap()
    };
    let plan = read("plan.json");
    assert_eq!(plan["rounds"]["phases"][0]["verify"], true, "{plan}");
    assert!(plan["before"][0].get("verify").is_none(), "{plan}");
    assert_eq!(read("manifest.json")["overrides"]["verify"], true);
    let summary = read("summary.json");
    let reads: Vec<&serde_json::Value> = summary["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["op"] == "get")
        .collect();
    assert_eq!(reads.len(), 2);
    assert!(
        reads.iter().all(|r| r["ops"] == 100 && r["errors"] == 0),
        "{summary}"
    );
    // `show` says the same later.
    let shown = keystorm()
        .args(["show", &only_run(&results), "--results"])
        .arg(&results)
        .success()
        .stdout();
    assert!(
        shown.contains("integrity: verified 200 GETs in 2 phases"),
        "{shown}"
    );

    // A workload without a GET has nothing to verify: said, before anything runs.
    let fill_only = write(
        dir.path(),
        "fill.yaml",
        SMALL.split("rounds:").next().unwrap(),
    );
    let stderr = keystorm()
        .arg("run")
        .arg(&fill_only)
        .args(["--verify", "--progress", "quiet", "--results"])
        .arg(&results)
        .code(2)
        .stderr();
    assert!(
        stderr.contains("--verify checks what GETs read"),
        "{stderr}"
    );
}

#[test]
fn a_missing_bucket_without_create_fails_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let text = SMALL.replace(
        "buckets: { names: [cli] }",
        "buckets: { names: [absent], create: false }",
    );
    let f = write(dir.path(), "nocreate.yaml", &text);
    let stderr = keystorm()
        .arg("run")
        .arg(&f)
        .args(["--progress", "quiet", "--results"])
        .arg(dir.path().join("results"))
        .code(1)
        .stderr();
    assert!(
        stderr.contains("absent") && stderr.contains("does not exist"),
        "{stderr}"
    );
    // Shown later, the failed run says why it failed, not only that no phase finished.
    let results = dir.path().join("results");
    let run_id = only_run(&results);
    let shown = keystorm()
        .args(["show", &run_id, "--results"])
        .arg(&results)
        .success()
        .stdout();
    let why = shown
        .lines()
        .find(|l| l.starts_with("failed: "))
        .unwrap_or_else(|| panic!("no reason in:\n{shown}"));
    assert!(
        why.contains("absent") && why.contains("does not exist"),
        "{shown}"
    );
}

#[test]
fn show_fits_list_time_against_objects_and_extrapolates() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "scaling.yaml",
        "name: cli-scaling
target: { endpoint: embedded, embedded: { storage: size-only, latency: { list: 40ms } } }
buckets: { names: [cli-scaling] }
objects: { size: 6B }
rounds:
  count: 3
  phases:
    - { name: grow, op: put, concurrency: 8, operations: 1500 }
    - { name: serial, op: list, page_size: 100 }
    - { name: parallel, op: list, mode: prefix, concurrency: 8, page_size: 100 }
",
    );
    let results = dir.path().join("results");
    keystorm()
        .arg("run")
        .arg(&f)
        .args(["--progress", "quiet", "--results"])
        .arg(&results)
        .success();
    let id = only_run(&results);
    let extrapolated = |keys: &str| {
        keystorm()
            .args(["show", &id, "--extrapolate", keys, "--results"])
            .arg(&results)
            .success()
            .stdout()
    };
    let text = extrapolated("67e9");
    // Six listings (two phases × three rounds) of 1500, 3000 and 4500 keys.
    let listings = text
        .split("complete listings:")
        .nth(1)
        .unwrap_or_else(|| panic!("no listings section: {text}"));
    let keys: Vec<&str> = listings
        .lines()
        .skip(2)
        .take(6)
        .map(|l| l.split_whitespace().nth(5).unwrap_or(""))
        .collect();
    assert_eq!(
        keys,
        ["1500", "1500", "3000", "3000", "4500", "4500"],
        "{text}"
    );
    for phase in ["serial", "parallel"] {
        let fit = text
            .lines()
            .find(|l| l.starts_with(&format!("{phase}: list time = ")))
            .unwrap_or_else(|| panic!("no fit for {phase}: {text}"));
        assert!(fit.contains("3 sizes"), "{fit}");
    }
    // 67 billion keys is far beyond 100× the 4,500 listed: no line is taken there.
    assert_eq!(
        text.matches("not extrapolated to 67 billion keys: ")
            .count(),
        2,
        "{text}"
    );
    assert!(!text.contains("at this rate"), "{text}");
    // 100,000 keys (22× the largest listing) by the serial line, whose pages each wait
    // 40 ms (long beside a busy machine's stalls, which would bend the line): a time
    // with its 95 % prediction interval.
    let text = extrapolated("1e5");
    let serial = text
        .lines()
        .skip_while(|l| !l.starts_with("serial: list time = "))
        .nth(1)
        .unwrap_or_else(|| panic!("nothing under the serial fit: {text}"));
    assert!(
        serial.starts_with("  at this rate, 100,000 keys take ")
            && serial.contains("(95 % prediction interval ")
            && serial.ends_with("; serial with 1 lister)"),
        "{text}"
    );
    let stderr = keystorm()
        .args(["show", &id, "--extrapolate", "many", "--results"])
        .arg(&results)
        .code(2)
        .stderr();
    assert!(stderr.contains("not a key count"), "{stderr}");
}

/// A copy of the folder `from` (files only, one level) at `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn long_steps_say_how_far_they_got_the_listing_of_keys_to_read_and_an_audits_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    // 3,000 keys listed 100 a page, 50 ms a page: about 1.5 s of listing before the
    // reads begin, long enough to be told as it goes.
    let f = write(
        dir.path(),
        "steps.yaml",
        "name: steps\ntarget:\n  endpoint: embedded\n  embedded: { storage: size-only, latency: { list: 50ms } }\n\
         buckets: { names: [steps], create: true }\nobjects: { size: 6B }\n\
         before:\n  - { name: fill, op: put, concurrency: 8, until_objects: 3000, allow_writes: true }\n  \
         - { name: read, op: head, concurrency: 4, epochs: 1, page_size: 100, keys: { from: listing, mode: serial } }\n  \
         - { name: check, op: audit, page_size: 1000 }\n",
    );
    let ran = keystorm()
        .arg("run")
        .arg(&f)
        .args(["--progress", "plain", "--results"])
        .arg(&results)
        .success();
    let run = results.join(only_run(&results));
    let steps: Vec<serde_json::Value> = std::fs::read_to_string(run.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == "step")
        .map(|e| e["data"].clone())
        .collect();
    let listing: Vec<&serde_json::Value> = steps
        .iter()
        .filter(|s| s["step"] == "listing_keys")
        .collect();
    // Told while it went (keys so far, a rate), then once done with every key.
    let going = listing
        .iter()
        .find(|s| s["finished"].is_null())
        .unwrap_or_else(|| panic!("no look while listing: {steps:#?}"));
    assert_eq!(going["phase"]["name"], "read");
    assert_eq!(going["bucket"], "steps");
    assert!(going["per_sec"].as_f64().unwrap() > 0.0, "{going}");
    let last = listing.last().unwrap();
    assert_eq!(last["finished"], true, "{last}");
    assert_eq!(last["done"], 3000, "{last}");
    // The audit's comparison says when it is done, every key compared.
    let compared = steps
        .iter()
        .find(|s| s["step"] == "audit_compare")
        .unwrap_or_else(|| panic!("no comparison told: {steps:#?}"));
    assert_eq!(
        (&compared["done"], &compared["total"], &compared["finished"]),
        (
            &serde_json::json!(3000),
            &serde_json::json!(3000),
            &serde_json::json!(true)
        )
    );
    // The CLI says them as lines.
    let said = ran.stderr();
    assert!(
        said.contains("before read: listing the keys to read of bucket steps: "),
        "{said}"
    );
    assert!(
        said.contains("before check: audit: comparing of bucket steps: 3000 keys of 3000"),
        "{said}"
    );
}

const EXPECTING: &str = "name: expect
target:
  endpoint: embedded
  embedded: { storage: size-only, latency: { get: 2ms } }
buckets: { names: [expect] }
objects: { size: 1KiB }
expect: [\"errors.rate < 1%\"]
before:
  - { name: fill, op: put, workers: 4, operations: 200 }
  - { name: read, op: get, workers: 4, operations: 200, expect: [\"GET_P50\", \"get.ops_per_sec > 1\"] }
";

#[test]
fn a_run_that_misses_a_threshold_it_set_exits_3_and_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    // Every GET takes 2 ms on the target: its median cannot be under 1 ms.
    let f = write(
        dir.path(),
        "expect.yaml",
        &EXPECTING.replace("GET_P50", "get.p50 < 1ms"),
    );
    let ran = keystorm()
        .arg("run")
        .arg(&f)
        .args(["--progress", "plain", "--results"])
        .arg(&results)
        .code(3);
    let stderr = ran.stderr();
    assert!(
        stderr.contains("before read: get.p50 < 1ms MISSED ("),
        "said when the phase ended: {stderr}"
    );
    assert!(
        stderr.contains("before read: get.ops_per_sec > 1 met ("),
        "{stderr}"
    );
    assert!(
        stderr.contains("missed a threshold: before read: get.p50 < 1ms missed (")
            && stderr.contains("; exit 3"),
        "{stderr}"
    );
    let id = only_run(&results);
    let json = show_json(&results, &id);
    assert_eq!(json["verdict"]["overall"], "missed_threshold", "{json:#}");
    let checks: Vec<(String, String, bool)> = json["thresholds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["phase"].as_str().unwrap().to_string(),
                c["expect"].as_str().unwrap().to_string(),
                c["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    let owned = |p: &str, e: &str, ok| (p.to_string(), e.to_string(), ok);
    assert_eq!(
        checks,
        [
            owned("before fill", "errors.rate < 1%", true),
            owned("before read", "errors.rate < 1%", true),
            owned("before read", "get.p50 < 1ms", false),
            owned("before read", "get.ops_per_sec > 1", true),
        ],
        "{json:#}"
    );
    let p50 = json["thresholds"][2]["actual"].as_f64().unwrap();
    assert!(p50 >= 2_000.0, "{p50} µs");
    let text = keystorm()
        .args(["show", &id, "--results"])
        .arg(&results)
        .code(0)
        .stdout();
    assert!(
        text.contains("  MISSED  before read: get.p50 < 1ms ("),
        "{text}"
    );

    // A bound the run meets: exit 0.
    let f = write(
        dir.path(),
        "met.yaml",
        &EXPECTING.replace("GET_P50", "get.p50 < 10s"),
    );
    let stderr = keystorm()
        .arg("run")
        .arg(&f)
        .args(["--progress", "plain", "--results"])
        .arg(dir.path().join("met"))
        .code(0)
        .stderr();
    assert!(
        stderr.contains("before read: get.p50 < 10s met ("),
        "{stderr}"
    );
}

#[test]
fn a_threshold_that_cannot_be_read_is_refused_at_its_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    for (threshold, says) in [
        ("get.p98 < 1ms", "p50, p90, p99, p99.9"),
        ("get.p50 < 1", "a duration such as"),
        ("gets.p50 < 1ms", "put, get, head, list or delete"),
        ("get.p50 = 1ms", "<, <=, > or >="),
    ] {
        let f = write(
            dir.path(),
            "bad.yaml",
            &EXPECTING.replace("GET_P50", threshold),
        );
        let stderr = keystorm().arg("validate").arg(&f).code(2).stderr();
        assert!(
            stderr.contains("bad.yaml:10:66: `expect`: ") && stderr.contains(says),
            "{threshold}: {stderr}"
        );
    }
}

#[test]
fn operations_slower_than_1_s_are_counted_where_percentiles_hide_them() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    // 4 PUTs of 1.1 s among 400 of none: p99 does not see them; the tail count does.
    let f = write(
        dir.path(),
        "tail.yaml",
        "name: tail\ntarget:\n  endpoint: embedded\n  embedded: { storage: size-only, latency: { put: 1100ms } }\n\
         buckets: { names: [tail] }\nobjects: { size: 10B }\nbefore:\n  - { name: slow, op: put, workers: 4, operations: 4 }\n  \
         - { name: fast, op: get, workers: 4, operations: 400 }\n",
    );
    let stdout = run_quietly(&f, &results);
    assert!(
        stdout.contains("before slow put: 4 took 1 s or more\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("before fast get:"), "{stdout}");
    let id = only_run(&results);
    let json = show_json(&results, &id);
    let rows = json["rows"].as_array().unwrap();
    fits_summary_schema(&json);
    let counts = |row: &serde_json::Value| row["latency_us"]["slower_than"].clone();
    let at = |mark_us: u64, count: u64| serde_json::json!({ "mark_us": mark_us, "count": count });
    assert_eq!(
        counts(&rows[0]),
        serde_json::json!([at(1_000_000, 4), at(10_000_000, 0)]),
        "{json:#}"
    );
    assert_eq!(
        counts(&rows[1]),
        serde_json::json!([at(1_000_000, 0), at(10_000_000, 0)])
    );
}

#[test]
fn tails_are_counted_at_the_workloads_marks_and_again_at_any_marks_by_show() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    // 3 PUTs of 300 ms and 60 GETs of 2 ms, counted at 250 ms and 1 s.
    let f = write(
        dir.path(),
        "marks.yaml",
        "name: marks\ntail_marks: [250ms, 1s]\ntarget:\n  endpoint: embedded\n  \
         embedded: { storage: size-only, latency: { put: 300ms, get: 2ms } }\n\
         buckets: { names: [marks] }\nobjects: { size: 10B }\nbefore:\n  \
         - { name: slow, op: put, workers: 3, operations: 3 }\n  \
         - { name: fast, op: get, workers: 4, operations: 60 }\n",
    );
    let stdout = run_quietly(&f, &results);
    assert!(
        stdout.contains("before slow put: 3 took 250 ms or more\n"),
        "{stdout}"
    );
    let id = only_run(&results);
    let csv = std::fs::read_to_string(results.join(&id).join("summary.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(
        header[header.len() - 3..],
        ["over_250ms", "over_1s", "endpoint"]
    );

    // Again from the kept histograms, at marks the run did not count at.
    let show = |marks: &str| {
        keystorm()
            .args(["show", &id, "--tail-marks", marks, "--results"])
            .arg(&results)
            .code(0)
            .stdout()
    };
    let text = show("1ms,100ms,2s");
    assert!(
        text.contains("before slow put: 3 took 1 ms or more (3 of them 100 ms or more)\n"),
        "{text}"
    );
    assert!(
        text.contains("before fast get: 60 took 1 ms or more\n"),
        "{text}"
    );
    assert!(show("2s").contains("no operation took 2 s or more\n"));
    let json: serde_json::Value = serde_json::from_str(
        &keystorm()
            .args([
                "show",
                &id,
                "--json",
                "--tail-marks",
                "200ms,400ms",
                "--results",
            ])
            .arg(&results)
            .code(0)
            .stdout(),
    )
    .unwrap();
    assert_eq!(
        json["rows"][0]["latency_us"]["slower_than"],
        serde_json::json!([{ "mark_us": 200_000, "count": 3 }, { "mark_us": 400_000, "count": 0 }]),
        "{json:#}"
    );
    fits_summary_schema(&json);

    // Marks that cannot be are a usage error.
    for (marks, says) in [
        ("1s,100ms", "tail marks go up: 100 ms does not follow 1 s"),
        ("500us", "under 1ms"),
        ("1ms,2ms,3ms,4ms,5ms", "give 1 to 4 tail marks, not 5"),
        ("soon", "\"soon\" is not a duration"),
    ] {
        let stderr = keystorm()
            .args(["show", &id, "--tail-marks", marks, "--results"])
            .arg(&results)
            .code(2)
            .stderr();
        assert!(stderr.contains(says), "{marks}: {stderr}");
    }
}

#[test]
fn show_gives_each_phases_throughput_and_percentiles_with_95_percent_intervals_or_says_why_not() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let f = write(
        dir.path(),
        "interval.yaml",
        "name: interval\ntarget:\n  endpoint: embedded\n  embedded: { storage: size-only, latency: { get: 1ms } }\n\
         buckets: { names: [interval] }\nobjects: { size: 10B }\nbefore:\n  - { name: fill, op: put, workers: 2, operations: 50 }\n  \
         - { name: read, op: get, workers: 2, duration: 11s }\n",
    );
    keystorm()
        .arg("run")
        .arg(&f)
        .args(["--progress", "quiet", "--results"])
        .arg(&results)
        .code(0);
    let id = only_run(&results);
    let json = show_json(&results, &id);
    let intervals = json["intervals"].as_array().unwrap();
    assert_eq!(intervals.len(), 2, "{json:#}");
    // The fill lasted under a second: too few to say.
    assert_eq!(intervals[0]["phase"], "fill");
    assert!(intervals[0].get("ops_per_sec").is_none(), "{json:#}");
    assert!(
        intervals[0]["none_because"]
            .as_str()
            .unwrap()
            .ends_with("an interval needs at least 10"),
        "{json:#}"
    );
    // The read's rate lies inside its interval, drawn from its 11 seconds.
    let read = &intervals[1];
    assert!(read["seconds"].as_u64().unwrap() >= 10, "{read}");
    let within = |e: &serde_json::Value| {
        let (low, value, high) = (
            e["low"].as_f64().unwrap(),
            e["value"].as_f64().unwrap(),
            e["high"].as_f64().unwrap(),
        );
        assert!(low <= value && value <= high, "{e}");
        value
    };
    let rate = within(&read["ops_per_sec"]);
    let row_rate = json["rows"][1]["ops_per_sec"].as_f64().unwrap();
    assert!(
        (rate - row_rate).abs() <= 0.02 * row_rate,
        "{rate} against the row's {row_rate}"
    );
    // Each percentile too, read from the histograms: the same as the row's (both are
    // the whole phase's histogram), its interval around it.
    for (q, row_q) in [("p50_us", "p50"), ("p99_us", "p99"), ("p999_us", "p999")] {
        let value = within(&read[q]);
        let row = json["rows"][1]["latency_us"][row_q].as_f64().unwrap();
        assert_eq!(value, row, "{q}: {read}");
    }
    // 1 ms of the target's own and a little of the client's: never under 1 ms.
    assert!(read["p50_us"]["low"].as_f64().unwrap() >= 1000.0, "{read}");
    let text = keystorm()
        .args(["show", &id, "--results"])
        .arg(&results)
        .code(0)
        .stdout();
    assert!(text.contains("95 % intervals"), "{text}");
    assert!(text.contains("  before read get: "), "{text}");
}

/// `keystorm run F --progress quiet` into `results`, which completes: its output.
fn run_quietly(f: &Path, results: &Path) -> String {
    keystorm()
        .arg("run")
        .arg(f)
        .args(["--progress", "quiet", "--results"])
        .arg(results)
        .code(0)
        .stdout()
}

/// `show --json` output is what `docs/schema/summary.schema.json` describes.
fn fits_summary_schema(json: &serde_json::Value) {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/summary.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let violations: Vec<String> = validator.iter_errors(json).map(|e| e.to_string()).collect();
    assert!(violations.is_empty(), "{violations:#?}");
}

/// `keystorm show ID --json` of the run `id` under `results`.
fn show_json(results: &Path, id: &str) -> serde_json::Value {
    let shown = keystorm()
        .args(["show", id, "--json", "--results"])
        .arg(results)
        .code(0)
        .stdout();
    serde_json::from_str(&shown).unwrap()
}

#[test]
fn a_sweeps_knee_is_on_the_screen_and_in_show_json() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    // 8 PUTs served at once, 20 ms each: at most 400 a second.
    let f = write(
        dir.path(),
        "sweep.yaml",
        "name: sweep\ntarget:\n  endpoint: embedded\n  embedded: { storage: size-only, latency: { put: 20ms }, max_inflight: 8 }\n\
         buckets: { names: [sweep] }\nobjects: { size: 1KiB }\nrounds:\n  count: 1\n  phases:\n    \
         - { op: put, workers: 32, rates: [100, 200, 800], duration: 1500ms }\n",
    );
    let stdout = run_quietly(&f, &results);
    assert!(
        stdout.contains("sweep put, round 1, put: kept up to 200 ops/s (p50 "),
        "{stdout}"
    );
    assert!(
        stdout.contains("; behind from 800 ops/s (sent "),
        "{stdout}"
    );
    let json = show_json(&results, &only_run(&results));
    fits_summary_schema(&json);
    let sweeps = json["sweeps"].as_array().unwrap();
    assert_eq!(sweeps.len(), 1, "{json}");
    assert_eq!(sweeps[0]["sweep"], "put");
    assert_eq!(sweeps[0]["kept_up_to_per_sec"], 200.0);
    assert_eq!(sweeps[0]["behind_from_per_sec"], 800.0);
    let phases: Vec<&str> = sweeps[0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["put@100", "put@200", "put@800"]);
}

#[test]
fn a_searchs_sustainable_rate_is_on_the_screen_and_in_show_json() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    // 8 PUTs served at once, 20 ms each: at most 400 a second. A budget of 5 s holds
    // two steps of 2 s; the third would overrun it. The bound is loose (a second, fifty
    // times the service time), so on a quiet machine both steps pass (100, then 200).
    // A client starved beside the suite may fall behind its own schedule in a step of
    // 2 s, which then fails and is repeated: what is asserted either way is the budget,
    // the climb after a pass, and one account of it on the screen and in show --json.
    let f = write(
        dir.path(),
        "search.yaml",
        "name: search\ntarget:\n  endpoint: embedded\n  embedded: { storage: size-only, latency: { put: 20ms }, max_inflight: 8 }\n\
         buckets: { names: [search] }\nobjects: { size: 1KiB }\nrounds:\n  count: 1\n  phases:\n    \
         - { op: put, workers: 32, search: { slo: \"put.p99 < 1s\", from: 100, to: 1600, budget: 5s }, duration: 2s }\n",
    );
    let stdout = run_quietly(&f, &results);
    let json = show_json(&results, &only_run(&results));
    fits_summary_schema(&json);
    let search = &json["searches"][0];
    assert_eq!(search["phase"], "put");
    assert_eq!(search["confirmed"], false);
    let judged: Vec<(&str, bool)> = search["judged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["phase"].as_str().unwrap(), j["passed"].as_bool().unwrap()))
        .collect();
    assert_eq!(judged.len(), 2, "the budget holds two steps: {json}");
    assert_eq!(judged[0].0, "put@100");
    // After a pass the search climbs (doubling); a failing first step is repeated.
    let second = if judged[0].1 { "put@200" } else { "put@100#2" };
    assert_eq!(judged[1].0, second, "{json}");
    // The highest rate whose last step passed.
    let sustainable = match (judged[0].1, judged[1].1) {
        (true, true) => Some(200.0),
        (true, false) | (false, true) => Some(100.0),
        (false, false) => None,
    };
    assert_eq!(search["sustainable_rate"].as_f64(), sustainable, "{json}");
    if let Some(rate) = sustainable {
        // (With both steps failed there is nothing below `from` to try.)
        assert_eq!(search["budget_ran_out"], true, "{json}");
        assert!(
            stdout.contains("the time budget ran out before it was done; 2 steps)"),
            "{stdout}"
        );
        assert_eq!(search["bracket"][0].as_f64(), Some(rate), "{json}");
        assert!(
            stdout.contains(&format!(
                "search put, round 1: sustainable {rate} ops/s at put.p99 < 1s ("
            )),
            "{stdout}"
        );
    }
    // A quiet machine: the climb, and the whole line.
    if judged[0].1 && judged[1].1 {
        assert_eq!(search["bracket"], serde_json::json!([200.0, null]));
        assert!(
            stdout.contains(
                "search put, round 1: sustainable 200 ops/s at put.p99 < 1s (every step passed, \
                 up to 200 ops/s, the time budget ran out before it was done; 2 steps)"
            ),
            "{stdout}"
        );
    }
    let steps: Vec<&str> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["sweep"] == "put")
        .map(|r| r["phase"].as_str().unwrap())
        .collect();
    assert_eq!(steps, judged.iter().map(|j| j.0).collect::<Vec<_>>());
}
