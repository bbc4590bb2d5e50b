//! One workload run as N shards (`keystorm run W --shard I/N`), each a process of its
//! own, side by side against one `keystorm sim`: together they write exactly the keys a
//! single process writes, each once; a mix on each shard reads and deletes only keys
//! that exist (no 404s); every listing mode lists each key once across the shards; and
//! a shard's counts are its part of the workload's.

mod process_support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use keystorm_engine::keyspace::Keyspace;
use keystorm_s3::ListRequest;
use process_support::{
    client, count_objects, keystorm, kill_9, read_json, resume, start_sim, summary_rows,
    wait_for_checkpoint, workload, write_workload,
};

const SHARDS: u32 = 3;
const OBJECTS: u64 = 6_001;
const MIXED_OPS: u64 = 1_500;

fn writes() -> String {
    format!(
        "keyspace: {{ seed: 9, prefix: sh/ }}\ntail_marks: [1ms, 5ms, 50ms]\n\
         before:\n  - {{ name: fill, op: put, concurrency: 8, until_objects: {OBJECTS} }}\n\
         rounds:\n  count: 1\n  phases:\n\
         \x20   - {{ name: mixed, mix: {{ get: 70, put: 20, list: 5, delete: 5 }}, concurrency: 8, operations: {MIXED_OPS} }}\n\
         after:\n  - {{ name: census, op: list, mode: serial }}\n"
    )
}

/// Standalone shards have no barrier between phases (a controller gives them one), so
/// the listings run as a workload of their own once every shard's writes are done.
fn listings() -> &'static str {
    "keyspace: { seed: 9, prefix: sh/ }\n\
     before:\n\
     \x20 - { name: serial, op: list, mode: serial }\n\
     \x20 - { name: prefix, op: list, mode: prefix, concurrency: 4 }\n\
     \x20 - { name: adaptive, op: list, mode: adaptive, concurrency: 4 }\n"
}

/// Starts every shard of the workload at once, each a process of its own with its own
/// results folder.
fn start_shards(wl: &Path, results: &Path, endpoint: &str) -> Vec<(PathBuf, Child)> {
    (0..SHARDS)
        .map(|i| {
            let root = results.join(format!("shard-{i}"));
            let child = keystorm(
                &[
                    "run",
                    wl.to_str().unwrap(),
                    "--shard",
                    &format!("{i}/{SHARDS}"),
                    "--endpoint",
                    endpoint,
                    "--progress",
                    "quiet",
                ],
                &root,
            )
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
            (root, child)
        })
        .collect()
}

/// Waits for a shard's process to end well; its run folder.
fn finished(root: &Path, child: Child) -> PathBuf {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    process_support::the_run(root)
}

/// Runs every shard of the workload at once, each in its own process; their run
/// folders, in shard order.
fn run_shards(wl: &Path, results: &Path, endpoint: &str) -> Vec<PathBuf> {
    start_shards(wl, results, endpoint)
        .into_iter()
        .map(|(root, child)| finished(&root, child))
        .collect()
}

fn rows_of<'a>(
    rows: &'a [serde_json::Value],
    phase: &str,
    op: &str,
) -> impl Iterator<Item = &'a serde_json::Value> {
    let (phase, op) = (phase.to_string(), op.to_string());
    rows.iter()
        .filter(move |r| r["phase"] == phase.as_str() && r["op"] == op.as_str())
}

/// Keys each listing of the run found, by phase name.
fn listed_keys(run: &Path, phase: &str) -> u64 {
    std::fs::read_to_string(run.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == "listing" && e["data"]["phase"]["name"] == phase)
        .map(|e| e["data"]["outcome"]["keys"].as_u64().unwrap())
        .sum()
}

async fn all_keys(endpoint: &str, bucket: &str) -> BTreeSet<String> {
    let client = client(endpoint).await;
    let mut keys = BTreeSet::new();
    let mut token = None;
    loop {
        let page = client
            .list_objects_v2(
                bucket,
                &ListRequest {
                    continuation_token: token.take(),
                    ..ListRequest::default()
                },
            )
            .await
            .unwrap();
        keys.extend(page.entries.into_iter().map(|e| e.key));
        match page.next_continuation_token {
            Some(t) => token = Some(t),
            None => return keys,
        }
    }
}

#[tokio::test]
async fn the_shards_of_a_workload_write_each_key_once_and_list_each_once() {
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let text = workload("shards", "embedded", "size: 6B", &writes());
    let wl = write_workload(dir.path(), "shards", &text);
    let runs = run_shards(&wl, &dir.path().join("writes"), &sim.endpoint);

    // Each shard's fill wrote its share; the plan and labels say which shard it was.
    let mut fill_puts = 0;
    let mut mixed_ops = 0;
    for (i, run) in runs.iter().enumerate() {
        let rows = summary_rows(run);
        let puts: u64 = rows_of(&rows, "fill", "put")
            .map(|r| r["ops"].as_u64().unwrap())
            .sum();
        let share = (OBJECTS - i as u64 - 1) / u64::from(SHARDS) + 1;
        assert_eq!(puts, share, "shard {i}");
        fill_puts += puts;
        for r in rows.iter().filter(|r| r["phase"] == "mixed") {
            mixed_ops += r["ops"].as_u64().unwrap();
            // Gets and deletes pick keys of their own shard's window: all exist.
            assert_eq!(r["errors"], 0, "shard {i}: {r:#}");
        }
        let plan: serde_json::Value = read_json(&run.join("plan.json")).unwrap();
        assert_eq!(
            plan["keyspace"]["shard"],
            serde_json::json!({ "index": i, "count": SHARDS })
        );
        let manifest: serde_json::Value = read_json(&run.join("manifest.json")).unwrap();
        assert_eq!(manifest["labels"]["shard"], format!("{i}/{SHARDS}"));
    }
    assert_eq!(fill_puts, OBJECTS);
    assert_eq!(mixed_ops, MIXED_OPS, "the shards' operations add up");

    // What is in the bucket is exactly what the single-process keyspace names for the
    // objects that are live: the shards' windows, mapped to the workload's indices.
    let bucket = all_keys(&sim.endpoint, "shards").await;
    let (plan, _) = keystorm_workload::spec::parse_workload(&text, "shards.yaml").unwrap();
    let mut expected = BTreeSet::new();
    for (i, run) in runs.iter().enumerate() {
        let mut shard_plan = plan.keyspace.clone();
        shard_plan.shard = keystorm_results::Shard::new(i as u32, SHARDS).unwrap();
        let keyspace = Keyspace::new(&shard_plan, &plan.objects, 1);
        let checkpoint: serde_json::Value = read_json(&run.join("checkpoint.json")).unwrap();
        let (tail, head) = (
            checkpoint["window"]["tail"].as_u64().unwrap(),
            checkpoint["window"]["head"].as_u64().unwrap(),
        );
        for local in tail..head {
            assert!(expected.insert(keyspace.key(local)), "a key of two shards");
        }
    }
    assert_eq!(bucket, expected);

    merged_run_is_exact(&runs, dir.path(), bucket.len() as u64);

    // Each listing mode, split across the shards, finds every key once; the serial
    // baseline runs on shard 0 alone.
    let wl = write_workload(
        dir.path(),
        "listings",
        &workload("shards", "embedded", "size: 6B", listings()),
    );
    let runs = run_shards(&wl, &dir.path().join("listings"), &sim.endpoint);
    for mode in ["serial", "prefix", "adaptive"] {
        let per_shard: Vec<u64> = runs.iter().map(|r| listed_keys(r, mode)).collect();
        assert_eq!(
            per_shard.iter().sum::<u64>(),
            bucket.len() as u64,
            "{mode}: {per_shard:?}"
        );
        if mode == "serial" {
            assert_eq!(per_shard[1..], [0, 0]);
        } else {
            assert!(per_shard.iter().all(|&n| n > 0), "{mode}: {per_shard:?}");
        }
    }

    // Merged, each listing is one outcome: every key, the listers of the shards that
    // listed (the serial baseline's one), the longest shard's time.
    let merged_root = dir.path().join("merged-listings");
    let mut args = vec!["merge".to_string()];
    args.extend(runs.iter().map(|r| r.display().to_string()));
    args.extend(["-o".to_string(), merged_root.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = keystorm(&args, dir.path()).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = process_support::the_run(&merged_root);
    for (mode, listers) in [
        ("serial", 1),
        ("prefix", 4 * SHARDS),
        ("adaptive", 4 * SHARDS),
    ] {
        let events: Vec<serde_json::Value> = std::fs::read_to_string(merged.join("events.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|e: &serde_json::Value| {
                e["event"] == "listing" && e["data"]["phase"]["name"] == mode
            })
            .collect();
        assert_eq!(events.len(), 1, "{mode}: one merged listing of the bucket");
        let o = &events[0]["data"]["outcome"];
        assert_eq!(o["keys"].as_u64(), Some(bucket.len() as u64), "{mode}");
        assert_eq!(o["listers"].as_u64(), Some(u64::from(listers)), "{mode}");
        assert_eq!(
            o["concurrency"].as_u64(),
            Some(u64::from(listers)),
            "{mode}: the old name, until the next release"
        );
        assert_eq!(o["complete"], true, "{mode}");
    }
    let show = keystorm(&["show", merged.to_str().unwrap()], dir.path())
        .output()
        .unwrap();
    assert!(show.status.success());
    assert!(
        String::from_utf8_lossy(&show.stdout).contains(&bucket.len().to_string()),
        "{}",
        String::from_utf8_lossy(&show.stdout)
    );
}

#[test]
fn a_shard_that_cannot_be_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let wl = write_workload(
        dir.path(),
        "refused",
        &workload(
            "refused",
            "embedded",
            "size: 6B",
            "before:\n  - { op: put, operations: 10 }\n",
        ),
    );
    let wl = wl.to_str().unwrap();
    for (args, says) in [
        (
            vec!["--shard", "3/3"],
            "shard 3/3 does not exist: indices run from 0 to 2",
        ),
        (vec!["--shard", "two"], "a shard is written I/N"),
        (
            vec!["--shard", "1/2"],
            "the embedded target lives in this process",
        ),
        (vec!["--start-at", "tomorrow"], "RFC 3339"),
    ] {
        let mut all = vec!["run", wl, "--progress", "quiet"];
        all.extend(args.iter().copied());
        let out = keystorm(&all, &results).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn a_shard_alone_refuses_a_search_a_controller_would_choose_the_steps_of() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let wl = write_workload(
        dir.path(),
        "searching",
        &workload(
            "searching",
            "embedded",
            "size: 6B",
            "rounds:\n  count: 1\n  phases:\n    - { op: put, search: { slo: \"put.p99 < 50ms\", from: 100, to: 1000 }, duration: 2s }\n",
        ),
    );
    let out = keystorm(
        &[
            "run",
            wl.to_str().unwrap(),
            "--progress",
            "quiet",
            "--shard",
            "1/2",
            "--endpoint",
            "http://127.0.0.1:9",
        ],
        &results,
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("phase put searches for its sustainable rate")
            && stderr.contains("a controller does that for its agents"),
        "{stderr}"
    );
}

#[test]
fn a_run_told_when_to_start_begins_its_phases_no_earlier() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let wl = write_workload(
        dir.path(),
        "later",
        &workload(
            "later",
            "embedded",
            "size: 6B",
            "before:\n  - { op: put, operations: 10 }\n",
        ),
    );
    let at = std::time::SystemTime::now() + std::time::Duration::from_secs(2);
    let at_text = humantime::format_rfc3339_millis(at).to_string();
    let out = keystorm(
        &[
            "run",
            wl.to_str().unwrap(),
            "--progress",
            "plain",
            "--start-at",
            &at_text,
        ],
        &results,
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("target ready; phases begin at"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = process_support::the_run(&results);
    let rows = summary_rows(&run);
    let started = humantime::parse_rfc3339(rows[0]["started_at"].as_str().unwrap()).unwrap();
    // Both at millisecond precision, as result files write times.
    let at = humantime::parse_rfc3339(&at_text).unwrap();
    assert!(
        started >= at,
        "the first phase started at {} before {at_text}",
        rows[0]["started_at"]
    );
}

/// Counts of every histogram line of `phase` and `op` in a run's log.
fn hlog_count(run: &Path, phase: &str, op: &str) -> u64 {
    let mut n = 0;
    keystorm_results::for_each_hlog_line(
        &run.join("histograms.hlog"),
        |_| true,
        |line| {
            if line.tag.ends_with(&format!(".{phase}.{op}")) {
                n += line.histogram.len();
            }
        },
    )
    .unwrap();
    n
}

/// `keystorm merge` of the shards' runs: one run whose counts are the sum of the
/// parts', whose latency comes from their histograms added (so its extremes are the
/// parts' extremes), with intervals per second of each phase and the parts kept.
fn merged_run_is_exact(runs: &[PathBuf], dir: &Path, live: u64) {
    let merged_root = dir.join("merged");
    let mut args = vec!["merge".to_string()];
    args.extend(runs.iter().map(|r| r.display().to_string()));
    args.extend(["-o".to_string(), merged_root.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let merged = keystorm(&args, &dir.join("writes")).output().unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let out = process_support::the_run(&merged_root);
    let schema = read_json(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/summary.schema.json"),
    )
    .unwrap();
    let summary = read_json(&out.join("summary.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let violations: Vec<String> = validator
        .iter_errors(&summary)
        .map(|e| e.to_string())
        .collect();
    assert!(violations.is_empty(), "{violations:#?}");
    let rows = summary_rows(&out);
    let parts: Vec<Vec<serde_json::Value>> = runs.iter().map(|r| summary_rows(r)).collect();
    for (phase, op) in [("fill", "put"), ("mixed", "get"), ("mixed", "put")] {
        let row = rows_of(&rows, phase, op).next().unwrap();
        let of_parts = || {
            parts
                .iter()
                .flat_map(|p| rows_of(p, phase, op).cloned().collect::<Vec<_>>())
        };
        let ops: u64 = of_parts().map(|r| r["ops"].as_u64().unwrap()).sum();
        assert_eq!(row["ops"].as_u64(), Some(ops), "{phase} {op}");
        let max = of_parts()
            .map(|r| r["latency_us"]["max"].as_u64().unwrap())
            .max();
        let min = of_parts()
            .map(|r| r["latency_us"]["min"].as_u64().unwrap())
            .min();
        assert_eq!(row["latency_us"]["max"].as_u64(), max, "{phase} {op}");
        assert_eq!(row["latency_us"]["min"].as_u64(), min, "{phase} {op}");
        // The merged log holds every value the parts' logs hold.
        let in_parts: u64 = runs.iter().map(|r| hlog_count(r, phase, op)).sum();
        assert_eq!(hlog_count(&out, phase, op), in_parts, "{phase} {op}");
        assert_eq!(
            in_parts, ops,
            "{phase} {op}: one latency value per operation"
        );
        // The tail at each of the workload's marks: the parts' counts add up.
        for (i, mark_us) in [1_000, 5_000, 50_000].into_iter().enumerate() {
            let count = |r: &serde_json::Value| {
                let at = &r["latency_us"]["slower_than"][i];
                assert_eq!(at["mark_us"], mark_us, "{r:#}");
                at["count"].as_u64().unwrap()
            };
            let of_parts: u64 = of_parts().map(|r| count(&r)).sum();
            assert_eq!(count(row), of_parts, "{phase} {op} at {mark_us} µs");
        }
    }
    assert_eq!(
        rows_of(&rows, "fill", "put").next().unwrap()["ops"].as_u64(),
        Some(OBJECTS)
    );
    // The serial census ran on shard 0 alone; its row counts every shard's objects.
    let census = rows_of(&rows, "census", "list").next().unwrap();
    assert_eq!(
        census["objects_at_start"].as_u64(),
        Some(live),
        "{census:#}"
    );

    // Intervals: one per phase and second, numbered on, adding up.
    let intervals = process_support::intervals(&out);
    let fill: Vec<&serde_json::Value> = intervals.iter().filter(|r| r["phase"] == "fill").collect();
    let numbers: Vec<u64> = fill
        .iter()
        .map(|r| r["interval"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, (0..fill.len() as u64).collect::<Vec<_>>());
    let puts: u64 = fill
        .iter()
        .map(|r| r["ops"]["put"]["ops"].as_u64().unwrap())
        .sum();
    assert_eq!(puts, OBJECTS);

    let manifest = read_json(&out.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "completed");
    assert_eq!(manifest["labels"]["shards"], SHARDS.to_string());
    assert!(manifest["labels"].get("shard").is_none());
    let shards: Vec<u64> = manifest["merged_from"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["shard"]["index"].as_u64().unwrap())
        .collect();
    assert_eq!(shards, [0, 1, 2]);
    // Each shard's own numbers stay beside the merged ones, to spot a slow client.
    let per_shard_puts: u64 = manifest["merged_from"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["totals"].as_array().unwrap().iter())
        .filter(|t| t["op"] == "put")
        .map(|t| t["ops"].as_u64().unwrap())
        .sum();
    let merged_puts = read_json(&out.join("summary.json")).unwrap()["totals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["op"] == "put")
        .unwrap()["ops"]
        .as_u64();
    assert_eq!(Some(per_shard_puts), merged_puts);
    let table = String::from_utf8_lossy(&merged.stdout);
    for i in 0..SHARDS {
        assert!(table.contains(&format!("{i}/{SHARDS}")), "{table}");
    }
    for run in runs {
        let id = run.file_name().unwrap();
        assert!(out.join("shards").join(id).join("summary.json").is_file());
    }
    let plan = read_json(&out.join("plan.json")).unwrap();
    assert_eq!(
        plan["before"][0]["end"]["until_objects"], OBJECTS,
        "the whole workload's plan"
    );

    // What does not merge says why.
    let first = runs[0].display().to_string();
    for (args, says) in [
        (vec!["merge", &first, &first], "are both shard 0/3"),
        (vec!["merge", "no-such-run"], "no-such-run"),
    ] {
        let o = keystorm(&args, &dir.join("writes")).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// kill -9 of one shard in the middle of its fill, under load, while the others go on:
/// resumed, it continues its own part from its checkpoint, and the bucket ends with
/// exactly the workload's objects; the merge of the three runs says completed.
#[tokio::test]
async fn a_shard_killed_mid_fill_resumes_its_part_and_the_fill_is_exact() {
    const N: u64 = 24_000;
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let text = workload(
        "killed",
        "embedded",
        "size: 6B",
        // 9,000 PUT/s for the workload: 3,000 per shard, about 3 s of fill each.
        &format!(
            "before:\n  - {{ name: fill, op: put, concurrency: 16, rate: 9000, until_objects: {N} }}\n"
        ),
    );
    let wl = write_workload(dir.path(), "killed", &text);
    let results = dir.path().join("results");
    let mut shards = start_shards(&wl, &results, &sim.endpoint);
    let (root, mut victim) = shards.remove(1);
    let run = process_support::the_run(&root);
    let saved = wait_for_checkpoint(&run, "shard 1 2,000 objects into its fill", |c| {
        c["window"]["head"].as_u64().is_some_and(|h| h >= 2_000)
    });
    assert_eq!(
        saved["completed"], 0,
        "killed in the middle of the phase: {saved:#}"
    );
    kill_9(&mut victim);
    let others: Vec<PathBuf> = shards
        .into_iter()
        .map(|(root, child)| finished(&root, child))
        .collect();
    let share = (N - 1 - 1) / u64::from(SHARDS) + 1;
    let before = count_objects(&sim.endpoint, "killed").await;
    assert!(before < N, "shard 1 was stopped short: {before}");
    let checkpoint = read_json(&run.join("checkpoint.json")).unwrap();
    assert!(checkpoint["window"]["head"].as_u64().unwrap() < share);

    let out = resume(&run, &root, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(count_objects(&sim.endpoint, "killed").await, N);
    let manifest = read_json(&run.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "completed");
    assert_eq!(
        manifest["overrides"]["shard"],
        serde_json::json!({ "index": 1, "count": SHARDS })
    );

    let merged_root = dir.path().join("merged");
    let mut args = vec!["merge".to_string(), run.display().to_string()];
    args.extend(others.iter().map(|r| r.display().to_string()));
    args.extend(["-o".to_string(), merged_root.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let merged = keystorm(&args, &results).output().unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let merged = process_support::the_run(&merged_root);
    assert_eq!(
        read_json(&merged.join("manifest.json")).unwrap()["status"],
        "completed"
    );
    let fill = summary_rows(&merged);
    let puts = rows_of(&fill, "fill", "put").next().unwrap()["ops"]
        .as_u64()
        .unwrap();
    // A resume redoes the writes above the checkpoint's mark, never skips one.
    assert!(puts >= N, "{puts} puts for {N} objects");
}
