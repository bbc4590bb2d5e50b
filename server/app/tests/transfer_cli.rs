//! `keystorm upload` and `keystorm download` as a user runs them against a live target:
//! a folder goes up (multipart above the threshold) and comes back byte-identical, a
//! second pass skips everything, and bad input is a clear error.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

mod cli_support;

use cli_support::{json_of, only_run};
use keystorm_sim::SimHandle;

const BIN: &str = env!("CARGO_BIN_EXE_keystorm");

fn target() -> (tokio::runtime::Runtime, SimHandle) {
    let (rt, sim) = cli_support::signing_target("xfer-key", "xfer-secret");
    sim.store().create_bucket("cli-xfer");
    (rt, sim)
}

fn keystorm(args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .env("AWS_ACCESS_KEY_ID", "xfer-key")
        .env("AWS_SECRET_ACCESS_KEY", "xfer-secret")
        .env_remove("KEYSTORM_ENDPOINT")
        .output()
        .unwrap()
}

fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_folder_goes_up_and_comes_back_byte_identical() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let src = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(src.path().join("logs/2026")).unwrap();
    std::fs::write(src.path().join("readme.md"), b"# data").unwrap();
    std::fs::write(src.path().join("logs/2026/a b.log"), vec![b'l'; 100_000]).unwrap();
    let big: Vec<u8> = (0..(11u32 << 20)).map(|i| (i % 241) as u8).collect();
    std::fs::write(src.path().join("logs/big.bin"), &big).unwrap();
    let sizes = [
        "--parts-above",
        "8MiB",
        "--part-size",
        "5MiB",
        "--concurrency",
        "4",
    ];
    let src_dir = src.path().to_str().unwrap();

    let mut up = vec![
        "upload",
        src_dir,
        "cli-xfer",
        "--prefix",
        "backup/",
        "--endpoint",
        &endpoint,
        "--json",
    ];
    up.extend(sizes);
    let v = json_of(&keystorm(&up), "transfer-output.schema.json");
    let mut broken = v.clone();
    broken["direction"] = serde_json::json!("sideways");
    assert!(!cli_support::schema_violations("transfer-output.schema.json", &broken).is_empty());
    assert_eq!(
        (v["objects"].as_u64(), v["failed"].as_u64()),
        (Some(3), Some(0)),
        "{v}"
    );
    assert_eq!(v["bytes"].as_u64(), Some(6 + 100_000 + (11 << 20)));

    let dst = tempfile::tempdir().unwrap();
    let dst_dir = dst.path().join("restore");
    let dst_str = dst_dir.to_str().unwrap();
    let mut down = vec![
        "download",
        "cli-xfer",
        dst_str,
        "--prefix",
        "backup/",
        "--endpoint",
        &endpoint,
        "--json",
    ];
    down.extend(sizes);
    let v = json_of(&keystorm(&down), "transfer-output.schema.json");
    assert_eq!(
        (v["objects"].as_u64(), v["skipped"].as_u64()),
        (Some(3), Some(0)),
        "{v}"
    );
    assert!(v["mib_per_sec"].as_f64().unwrap() > 0.0);
    assert!(files(&dst_dir) == files(src.path()), "byte-identical");

    // Both directions resume: nothing left to move.
    let v = json_of(&keystorm(&down), "transfer-output.schema.json");
    assert_eq!(
        (v["objects"].as_u64(), v["skipped"].as_u64()),
        (Some(0), Some(3)),
        "{v}"
    );
    let v = json_of(&keystorm(&up), "transfer-output.schema.json");
    assert_eq!(
        (v["objects"].as_u64(), v["skipped"].as_u64()),
        (Some(0), Some(3)),
        "{v}"
    );

    // The human summary.
    let out = keystorm(&[
        "download",
        "cli-xfer",
        dst_str,
        "--prefix",
        "backup/",
        "--endpoint",
        &endpoint,
        "--overwrite",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.starts_with("download: 3 objects"), "{text}");
    assert!(text.contains("per stream"), "{text}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();

    let out = keystorm(&[
        "upload",
        "/no/such/folder",
        "cli-xfer",
        "--endpoint",
        &endpoint,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a folder"));

    let out = keystorm(&[
        "upload",
        d,
        "cli-xfer",
        "--endpoint",
        &endpoint,
        "--part-size",
        "1MiB",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("below 5MiB"));

    let missing = format!("bucket \"no-such-bucket\" does not exist at {endpoint}");
    let out = keystorm(&["upload", d, "no-such-bucket", "--endpoint", &endpoint]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&missing), "{err}");

    let out = keystorm(&["download", "no-such-bucket", d, "--endpoint", &endpoint]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&missing) && !err.contains("panicked"), "{err}");
}

/// `keystorm ARGS` to its end, failing the test if it runs past the deadline (a walk
/// that loops forever).
fn keystorm_within(args: &[&str], deadline: std::time::Duration) -> std::process::Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env("AWS_ACCESS_KEY_ID", "xfer-key")
        .env("AWS_SECRET_ACCESS_KEY", "xfer-secret")
        .env_remove("KEYSTORM_ENDPOINT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > deadline {
            let _ = child.kill();
            panic!("keystorm {args:?} still going after {deadline:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The keys under `prefix`, as `keystorm list --keys -` writes them.
fn keys_under(endpoint: &str, prefix: &str) -> Vec<String> {
    let out = keystorm(&[
        "list",
        "cli-xfer",
        "--endpoint",
        endpoint,
        "--prefix",
        prefix,
        "--keys",
        "-",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut keys: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON lines");
            v["key"].as_str().unwrap().to_string()
        })
        .collect();
    keys.sort();
    keys
}

#[test]
fn symbolic_links_are_counted_when_skipped_and_followed_on_request_without_looping() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let src = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let s = src.path();
    std::fs::create_dir(s.join("sub")).unwrap();
    std::fs::write(s.join("a.txt"), b"a").unwrap();
    std::fs::write(s.join("sub/b.txt"), b"b").unwrap();
    std::fs::write(elsewhere.path().join("c.txt"), b"c").unwrap();
    std::fs::write(elsewhere.path().join("d.txt"), b"d").unwrap();
    use std::os::unix::fs::symlink as link;
    link(elsewhere.path().join("c.txt"), s.join("link-file")).unwrap();
    link(elsewhere.path(), s.join("link-dir")).unwrap();
    // Back up to the folder being uploaded: followed, it would never end.
    link("..", s.join("sub/loop")).unwrap();
    let dir = s.to_str().unwrap();
    let deadline = std::time::Duration::from_secs(60);

    let out = keystorm_within(
        &[
            "upload",
            dir,
            "cli-xfer",
            "--prefix",
            "plain/",
            "--endpoint",
            &endpoint,
            "--json",
        ],
        deadline,
    );
    let v = json_of(&out, "transfer-output.schema.json");
    assert_eq!(
        (v["objects"].as_u64(), v["symlinks_skipped"].as_u64()),
        (Some(2), Some(3)),
        "{v}"
    );
    assert_eq!(
        keys_under(&endpoint, "plain/"),
        ["plain/a.txt", "plain/sub/b.txt"]
    );

    // The summary says so, and how to follow them.
    let out = keystorm_within(
        &[
            "upload",
            dir,
            "cli-xfer",
            "--prefix",
            "plain/",
            "--endpoint",
            &endpoint,
        ],
        deadline,
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("skipped 3 symbolic links: --follow-symlinks uploads what they point to"),
        "{text}"
    );

    let out = keystorm_within(
        &[
            "upload",
            dir,
            "cli-xfer",
            "--prefix",
            "followed/",
            "--endpoint",
            &endpoint,
            "--follow-symlinks",
            "--json",
        ],
        deadline,
    );
    let v = json_of(&out, "transfer-output.schema.json");
    assert_eq!(
        (
            v["objects"].as_u64(),
            v["symlinks_skipped"].as_u64(),
            v["failed"].as_u64()
        ),
        (Some(5), Some(1), Some(0)),
        "{v}"
    );
    assert_eq!(
        keys_under(&endpoint, "followed/"),
        [
            "followed/a.txt",
            "followed/link-dir/c.txt",
            "followed/link-dir/d.txt",
            "followed/link-file",
            "followed/sub/b.txt",
        ]
    );
    // The linked file went up with its target's bytes.
    let back = tempfile::tempdir().unwrap();
    let out = keystorm(&[
        "download",
        "cli-xfer",
        back.path().to_str().unwrap(),
        "--prefix",
        "followed/",
        "--endpoint",
        &endpoint,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(back.path().join("link-file")).unwrap(), b"c");
    assert_eq!(
        std::fs::read(back.path().join("link-dir/d.txt")).unwrap(),
        b"d"
    );
}

#[test]
fn show_reports_a_runs_metadata_scan_and_download() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    let restore = dir.path().join("restore");
    let workload = dir.path().join("scan-and-fetch.yaml");
    std::fs::write(
        &workload,
        format!(
            r#"name: scan-and-fetch
target: {{ endpoint: "{endpoint}" }}
buckets: {{ names: [cli-xfer] }}
keyspace: {{ seed: 7, prefix: "m/" }}
objects: {{ size: 1KiB, metadata: {{ team: "team-{{i%3}}" }} }}
before:
  - {{ name: fill, op: put, concurrency: 4, until_objects: 30 }}
after:
  - {{ name: metadata, op: head, keys: bucket, concurrency: 4 }}
  - {{ name: fetch, op: download, dir: "{}", concurrency: 4 }}
"#,
            restore.display()
        ),
    )
    .unwrap();
    let results = dir.path().join("results");
    let results_str = results.to_str().unwrap();
    let out = keystorm(&[
        "run",
        workload.to_str().unwrap(),
        "--progress",
        "quiet",
        "--results",
        results_str,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(files(&restore).len(), 30);
    let run_id = only_run(&results);

    let out = keystorm(&["show", &run_id, "--results", results_str]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    let section = |title: &str| {
        let start = text
            .find(title)
            .unwrap_or_else(|| panic!("no {title} in {text}"));
        text[start..].lines().skip(1).collect::<Vec<_>>()
    };
    let scans = section("metadata scans:");
    let row: Vec<&str> = scans[1].split_whitespace().collect();
    // phase, round, bucket, HEADs, errors, missing, HEAD workers
    assert_eq!(
        &row[..7],
        ["metadata", "-", "cli-xfer", "30", "0", "0", "4"],
        "{text}"
    );
    assert!(
        text.contains("team: 30 objects; \"team-0\" 10, \"team-1\" 10, \"team-2\" 10"),
        "{text}"
    );
    let transfers = section("transfers:");
    let row: Vec<&str> = transfers[1].split_whitespace().collect();
    // phase, round, direction, objects, MiB, skipped, failed
    assert_eq!(
        &row[..7],
        ["fetch", "-", "download", "30", "0.0", "0", "0"],
        "{text}"
    );
}
