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
    let (rt, sim) = cli_support::signing_target("list-key", "list-secret");
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
        bucket.put(key.into_bytes().into(), object(i % 100, &meta));
    }
    for i in 0..7 {
        bucket.put(format!("logs/{i}").into_bytes().into(), object(1, &[]));
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
    for mode in ["serial", "prefix", "adaptive"] {
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
            "--concurrency",
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
        err.contains("http_404") && !err.contains("panicked"),
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
