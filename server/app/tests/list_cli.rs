//! `keystorm list` as a user runs it against a live target: counts, the key file, the
//! space report, the HEAD scan's metadata, and clear errors for bad input.

use std::io::BufRead;
use std::process::Command;

mod cli_support;

use cli_support::json_of;
use keystorm_sim::{Object, SimHandle};

const BIN: &str = env!("CARGO_BIN_EXE_keystorm");
const KEYS: u64 = 2500;

/// A target with `KEYS` objects under `data/` (a tenth with metadata) and a few
/// elsewhere; the runtime keeps it serving while the test runs the binary.
fn target() -> (tokio::runtime::Runtime, SimHandle) {
    target_with(keystorm_sim::LatencyConfig::default())
}

/// The same target, taking `latency` per operation.
fn target_with(latency: keystorm_sim::LatencyConfig) -> (tokio::runtime::Runtime, SimHandle) {
    let (rt, sim) = cli_support::signing_target_with("list-key", "list-secret", latency);
    sim.store().create_bucket("cli-list");
    let bucket = sim.store().bucket("cli-list").unwrap();
    let object = |size: u64, meta: &[(&str, String)]| Object {
        size,
        etag: [3; 16],
        last_modified_ms: keystorm_sim::now_ms(),
        content_type: None,
        metadata: meta
            .iter()
            .map(|(k, v)| (Box::from(*k), v.clone().into_boxed_str()))
            .collect(),
        data: None,
        parts: 0,
    };
    for i in 0..KEYS {
        let meta = if i % 10 == 0 {
            vec![("owner", format!("team-{}", i % 3))]
        } else {
            vec![]
        };
        let key = format!("data/{:02}/{i:06}.bin", i % 25);
        bucket
            .put(key.as_bytes(), object(i % 100, &meta))
            .expect("within the budget");
    }
    for i in 0..7 {
        bucket
            .put(format!("logs/{i}").as_bytes(), object(1, &[]))
            .expect("within the budget");
    }
    (rt, sim)
}

fn keystorm(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("AWS_ACCESS_KEY_ID", "list-key")
        .env("AWS_SECRET_ACCESS_KEY", "list-secret")
        .env_remove("KEYSTORM_ENDPOINT");
    c
}

#[test]
fn every_mode_counts_the_prefix_and_writes_each_key_once() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    let bytes: u64 = (0..KEYS).map(|i| i % 100).sum();
    // The last mode gives the listers under the flag's old name: the same listing, and
    // a warning naming the new one.
    for (mode, listers_flag) in [
        ("serial", "--listers"),
        ("prefix", "--listers"),
        ("adaptive", "--concurrency"),
    ] {
        let keys_file = dir.path().join(format!("{mode}.jsonl"));
        let out = keystorm(&[
            "list",
            "cli-list",
            "--endpoint",
            &endpoint,
            "--prefix",
            "data/",
            "--mode",
            mode,
            listers_flag,
            "8",
            "--page-size",
            "200",
            "--report",
            "--json",
            "--keys",
            keys_file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if listers_flag == "--listers" {
            assert!(!stderr.contains("warning"), "{stderr}");
        } else {
            assert!(
                stderr.contains(&format!(
                    "warning: `keystorm list --concurrency` is now `--listers`; the old name \
                     works until release {}",
                    keystorm_types::old_names::DROPPED_IN
                )),
                "{stderr}"
            );
        }
        let v = json_of(&out, "list-output.schema.json");
        // The schema is strict enough to catch a wrong field.
        let mut broken = v.clone();
        broken["mode"]["depth"] = serde_json::json!(-1);
        broken["keys"] = serde_json::json!("many");
        assert_eq!(
            cli_support::schema_violations("list-output.schema.json", &broken).len(),
            2,
            "{mode}"
        );
        assert_eq!(v["keys"], KEYS, "{mode}");
        // The listers that listed, and until the next release the same under the old
        // name `concurrency`.
        let listers = if mode == "serial" { 1 } else { 8 };
        assert_eq!(v["listers"], listers, "{mode}");
        assert_eq!(v["concurrency"], listers, "{mode}: the old name");
        assert_eq!(v["bytes"], bytes, "{mode}");
        assert_eq!(v["complete"], true);
        assert_eq!(v["mode"]["mode"], mode);
        assert_eq!(v["report"]["total"]["objects"], KEYS);
        assert_eq!(v["report"]["by_suffix"][".bin"]["objects"], KEYS);
        assert!(v["client_cpu_s"].as_f64().unwrap() > 0.0);
        let mut lines: Vec<String> =
            std::io::BufReader::new(std::fs::File::open(&keys_file).unwrap())
                .lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(&l.unwrap()).unwrap();
                    // Key files carry what the listing said of each object.
                    assert_eq!(v["etag"], format!("\"{}\"", "03".repeat(16)), "{v}");
                    assert!(v["last_modified"].as_str().unwrap().ends_with('Z'), "{v}");
                    v["key"].as_str().unwrap().to_string()
                })
                .collect();
        lines.sort();
        lines.dedup();
        assert_eq!(lines.len() as u64, KEYS, "{mode}: each key once");
    }
}

#[test]
fn head_reads_every_objects_metadata() {
    let (_rt, sim) = target();
    let dir = tempfile::tempdir().unwrap();
    let objects = dir.path().join("objects.jsonl");
    let out = keystorm(&[
        "list",
        "cli-list",
        "--endpoint",
        &sim.endpoint(),
        "--prefix",
        "data/",
        "--head",
        "--head-concurrency",
        "16",
        "--json",
        "--keys",
        objects.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    let v = json_of(&out, "list-output.schema.json");
    assert_eq!(v["head"]["heads"], KEYS);
    assert_eq!(v["head"]["errors"], 0);
    // The HEAD workers, and until the next release the same under the old name.
    assert_eq!(v["head"]["head_workers"], 16);
    assert_eq!(v["head"]["concurrency"], 16);
    let owner = &v["head"]["metadata"]["names"]["owner"];
    assert_eq!(owner["objects"], KEYS / 10);
    assert_eq!(
        owner["values"]["team-0"],
        (0..KEYS).filter(|i| i % 10 == 0 && i % 3 == 0).count()
    );
    let with_owner = std::io::BufReader::new(std::fs::File::open(&objects).unwrap())
        .lines()
        .filter(|l| {
            let v: serde_json::Value = serde_json::from_str(l.as_ref().unwrap()).unwrap();
            v["metadata"]["owner"].is_string()
        })
        .count();
    assert_eq!(with_owner as u64, KEYS / 10);

    // The human summary names the metadata too.
    let out = keystorm(&["list", "cli-list", "--endpoint", &sim.endpoint(), "--head"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(
        text.contains(&format!("listed {} keys", KEYS + 7)),
        "{text}"
    );
    assert!(text.contains("owner"), "{text}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let (_rt, sim) = target();
    let out = keystorm(&["list", "cli-list", "--endpoint", "ftp://127.0.0.1:1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("must start with http://"), "{err}");

    let out = keystorm(&["list", "no-such-bucket", "--endpoint", &sim.endpoint()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "bucket \"no-such-bucket\" does not exist at {}",
            sim.endpoint()
        )) && !err.contains("panicked"),
        "{err}"
    );

    let out = keystorm(&[
        "list",
        "cli-list",
        "--endpoint",
        &sim.endpoint(),
        "--mode",
        "diagonal",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));

    let out = Command::new(BIN)
        .args(["list", "cli-list", "--endpoint", &sim.endpoint()])
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env("AWS_CONFIG_FILE", "/nonexistent/config")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("AWS_ACCESS_KEY_ID"), "{err}");
}

#[test]
fn a_checkpoint_resumes_the_listing_and_goes_when_it_completes() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    let mut keys: Vec<(String, u64)> = (0..KEYS)
        .map(|i| (format!("data/{:02}/{i:06}.bin", i % 25), i % 100))
        .collect();
    keys.sort();
    // As a listing stopped after 1000 keys leaves things: their lines in the key file
    // (and a line cut short after the checkpoint), the rest of the range to do.
    let keys_file = dir.path().join("keys.jsonl");
    let mut written = String::new();
    for (key, _) in &keys[..1000] {
        written.push_str(&format!("{{\"key\":\"{key}\"}}\n"));
    }
    std::fs::write(&keys_file, format!("{written}{{\"key\":\"data/cut")).unwrap();
    let checkpoint = dir.path().join("list.checkpoint");
    let saved = serde_json::json!({
        "version": 1, "bucket": "cli-list", "prefix": "data/", "mode": { "mode": "serial" },
        "page_size": 200, "report_depth": null, "keys_file": true,
        "keys_file_bytes": written.len(), "keys": 1000,
        "bytes": keys[..1000].iter().map(|(_, s)| s).sum::<u64>(),
        "requests": 5, "errors": 0, "ranges": 0, "cuts": 0, "seconds": 2.0,
        "started_unix_s": 1_790_000_000u64,
        "todo": [{ "prefix": "data/", "after": keys[999].0, "end": "open",
                   "exclude": null, "probe_first": false }],
        "cells": null, "report": null
    });
    std::fs::write(&checkpoint, saved.to_string()).unwrap();
    let args = |prefix: &'static str| {
        vec![
            "list".to_string(),
            "cli-list".into(),
            "--endpoint".into(),
            endpoint.clone(),
            "--prefix".into(),
            prefix.into(),
            "--mode".into(),
            "serial".into(),
            "--page-size".into(),
            "200".into(),
            "--keys".into(),
            keys_file.display().to_string(),
            "--checkpoint".into(),
            checkpoint.display().to_string(),
        ]
    };
    let run = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        keystorm(&args).output().unwrap()
    };

    // Another listing's checkpoint is refused, naming the difference.
    let out = run(args("logs/"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("is of another listing: it lists prefix \"data/\""),
        "{err}"
    );
    let mut without_keys = args("data/");
    without_keys.drain(10..12);
    let out = run(without_keys);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("it writes a key file"), "{err}");

    let mut resume = args("data/");
    resume.push("--json".into());
    let out = run(resume);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("resuming: 1000 keys were listed"), "{err}");
    let v = json_of(&out, "list-output.schema.json");
    assert_eq!(v["keys"], KEYS);
    assert_eq!(v["bytes"], (0..KEYS).map(|i| i % 100).sum::<u64>());
    assert_eq!(v["complete"], true);
    assert!(v["seconds"].as_f64().unwrap() > 2.0, "time before counts");
    let mut listed: Vec<String> = std::io::BufReader::new(std::fs::File::open(&keys_file).unwrap())
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(&l.unwrap()).unwrap();
            v["key"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(listed.len() as u64, KEYS, "each key once");
    listed.sort();
    assert!(listed.iter().eq(keys.iter().map(|(k, _)| k)));
    assert!(
        !checkpoint.exists(),
        "a completed listing leaves no checkpoint"
    );

    // A checkpoint that is not one is a clear error.
    std::fs::write(&checkpoint, "{ not json").unwrap();
    let out = run(args("data/"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("is not a listing checkpoint"), "{err}");
    // Checkpoints do not go with the HEAD scan (its lines come from the HEAD workers).
    let mut with_head = args("data/");
    with_head.push("--head".into());
    let out = run(with_head);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_key_file_holds_every_key_once_sorted_and_diffs_equal_to_its_bucket() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("data.keys");
    let out = keystorm(&[
        "list",
        "cli-list",
        "--endpoint",
        &endpoint,
        "--prefix",
        "data/",
        "--concurrency",
        "8",
        "--keys",
        keys.to_str().unwrap(),
        "--json",
    ])
    .output()
    .unwrap();
    let report = json_of(&out, "list-output.schema.json");
    assert_eq!(report["key_file"]["keys"], KEYS);
    let bytes = std::fs::metadata(&keys).unwrap().len();
    assert_eq!(report["key_file"]["bytes"], bytes);
    // Front-coded and compressed: fewer bytes a key than a key's own name, let alone
    // its ETag (32 hex digits) and time.
    let name = "data/00/000000.bin".len() as u64;
    assert!(bytes < KEYS * name, "{bytes} bytes for {KEYS} keys");
    // Nothing else was left beside it.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["data.keys".to_string()]);

    // Read back: every key once, in key order, as the bucket holds it.
    let file = keystorm_engine::keyfile::KeyFile::open(&keys).unwrap();
    let mut cursor = file.cursor().unwrap();
    let mut read = Vec::new();
    for i in 0..file.keys() {
        let e = cursor.get(i).unwrap().unwrap();
        read.push((e.key.clone(), e.size, e.etag.clone()));
    }
    let mut expected: Vec<(String, u64, Option<String>)> = (0..KEYS)
        .map(|i| {
            let key = format!("data/{:02}/{i:06}.bin", i % 25);
            (key, i % 100, Some("03".repeat(16)))
        })
        .collect();
    expected.sort();
    assert_eq!(read, expected);

    // The key file against its bucket: equal.
    let out = keystorm(&[
        "diff",
        keys.to_str().unwrap(),
        "s3://cli-list/data/",
        "--endpoint",
        &endpoint,
    ])
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("equal: 2500 keys"), "{stdout}");

    // What a key file cannot be written with is refused before anything is listed.
    let out = keystorm(&[
        "list",
        "cli-list",
        "--endpoint",
        &endpoint,
        "--keys",
        keys.to_str().unwrap(),
        "--head",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("leave out --head"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_key_file_listing_killed_mid_way_resumes_from_its_checkpoint() {
    // 10 keys a page, 20 ms a page, one paginator: 251 pages take five seconds.
    let (_rt, sim) = target_with(keystorm_sim::LatencyConfig {
        list: Some(keystorm_types::Delay::Fixed(
            std::time::Duration::from_millis(20),
        )),
        ..Default::default()
    });
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("all.keys");
    let checkpoint = dir.path().join("all.checkpoint");
    let args = [
        "list",
        "cli-list",
        "--endpoint",
        &endpoint,
        "--mode",
        "serial",
        "--page-size",
        "10",
        "--keys",
        keys.to_str().unwrap(),
        "--checkpoint",
        checkpoint.to_str().unwrap(),
        "--checkpoint-every",
        "1",
        "--json",
    ];
    let mut run = keystorm(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let saved = loop {
        let saved = std::fs::read(&checkpoint)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .filter(|c| c["keys"].as_u64() >= Some(500));
        if let Some(c) = saved {
            break c;
        }
        assert!(run.try_wait().unwrap().is_none(), "the listing ended early");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    run.kill().unwrap();
    run.wait().unwrap();
    assert!(!keys.exists(), "no key file before the listing completes");

    let pages_killed = sim.requests(keystorm_sim::Op::ListObjectsV2);
    let out = keystorm(&args).output().unwrap();
    let pages_resumed = sim.requests(keystorm_sim::Op::ListObjectsV2) - pages_killed;
    let report = json_of(&out, "list-output.schema.json");
    assert_eq!(report["keys"], KEYS + 7, "{report:#}");
    assert_eq!(report["key_file"]["keys"], KEYS + 7);
    assert_eq!(report["key_file"]["repeated"], 0, "nothing listed twice");
    // The resume listed only what the checkpoint had left.
    let pages_before = saved["requests"].as_u64().unwrap();
    assert!(
        report["requests"].as_u64().unwrap() >= 251,
        "the report counts every page: {report:#}"
    );
    assert!(pages_before >= 50, "{saved:#}");
    assert!(
        pages_resumed <= 251 - pages_before + 1,
        "{pages_resumed} pages after the resume; the checkpoint had {pages_before}"
    );
    assert!(!checkpoint.exists(), "checkpoint removed");
    assert!(!dir.path().join("all.keys.runs").exists(), "runs removed");
    let out = keystorm(&[
        "diff",
        keys.to_str().unwrap(),
        "s3://cli-list/",
        "--endpoint",
        &endpoint,
    ])
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
