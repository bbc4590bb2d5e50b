//! A Parquet inventory of a million keys read back by another Parquet implementation:
//! `keystorm list --keys FILE.parquet` of a bucket of 1,000,000 objects on the embedded
//! target, then pyarrow (scripts/check_inventory.py) checks that every key is there
//! once with its size and ETag; and a smaller `--head` inventory for the metadata map.
//!
//! Compiled with the `pyarrow-tests` feature: it needs a Python with pyarrow, which
//! scripts/test.sh (and scripts/inventory-check.sh on its own) installs, pinned, in a
//! venv under target/ and names in KEYSTORM_PYARROW_PYTHON; it fails, rather than
//! skips, without one.

#![cfg(feature = "pyarrow-tests")]

use std::path::{Path, PathBuf};
use std::process::Command;

mod cli_support;

use cli_support::json_of;
use keystorm_sim::{Object, SimHandle};

const BIN: &str = env!("CARGO_BIN_EXE_keystorm");

/// The bucket's objects: the same functions as in scripts/check_inventory.py.
const SUFFIXES: [&str; 4] = ["", " with space", ",\"quoted\"", "/ünï☺%2B+&"];
const ETAG_STEP: u128 = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834;

fn key(i: u64) -> String {
    format!("inv/{:03}/{i:07}{}", i % 1000, SUFFIXES[(i % 4) as usize])
}

fn object(i: u64, with_metadata: bool) -> Object {
    let metadata: Box<[(Box<str>, Box<str>)]> = if with_metadata && i.is_multiple_of(3) {
        Box::new([
            ("owner".into(), format!("team-{}", i % 5).into()),
            ("note".into(), "a, \"b\"".into()),
        ])
    } else {
        Box::new([])
    };
    Object {
        size: i * 7919 % 100_003,
        etag: u128::from(i).wrapping_mul(ETAG_STEP).to_be_bytes(),
        last_modified_ms: keystorm_sim::now_ms(),
        content_type: None,
        metadata,
        data: None,
        parts: 0,
    }
}

/// Puts the objects straight into the target's store, in key order (keys `p`, `p +
/// 1000`, ... share the prefix `p`), which its chunked index takes fastest.
fn fill(sim: &SimHandle, name: &str, keys: u64, with_metadata: bool) {
    sim.store().create_bucket(name);
    let bucket = sim.store().bucket(name).unwrap();
    for prefix in 0..1000.min(keys) {
        for i in (prefix..keys).step_by(1000) {
            bucket
                .put(key(i).as_bytes(), object(i, with_metadata))
                .expect("within the budget");
        }
    }
}

fn python() -> String {
    std::env::var("KEYSTORM_PYARROW_PYTHON").expect(
        "KEYSTORM_PYARROW_PYTHON names a Python with pyarrow; scripts/inventory-check.sh makes one",
    )
}

fn keystorm(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("AWS_ACCESS_KEY_ID", "pyarrow-key")
        .env("AWS_SECRET_ACCESS_KEY", "pyarrow-secret")
        .env_remove("KEYSTORM_ENDPOINT");
    c
}

/// scripts/check_inventory.py on `file`; fails the test with its findings.
fn check(file: &Path, keys: u64, metadata: bool) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/check_inventory.py");
    let mut c = Command::new(python());
    c.arg(script).arg(file).args(["--keys", &keys.to_string()]);
    if metadata {
        c.arg("--metadata");
    }
    let out = c
        .output()
        .expect("the Python of KEYSTORM_PYARROW_PYTHON runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("inventory check passed"), "{stdout}");
    println!("{}", stdout.trim());
}

fn list(endpoint: &str, bucket: &str, path: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "list",
        bucket,
        "--endpoint",
        endpoint,
        "--json",
        "--keys",
        path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let started = std::time::Instant::now();
    let report = json_of(
        &keystorm(&args).output().unwrap(),
        "list-output.schema.json",
    );
    println!(
        "listed {} keys of {bucket} into {} ({} bytes) in {:.1} s",
        report["keys"],
        path.display(),
        report["inventory"]["bytes"],
        started.elapsed().as_secs_f64()
    );
    report
}

#[test]
fn a_million_key_parquet_inventory_reads_back_with_pyarrow() {
    let _ = python();
    let keys: u64 = std::env::var("KEYSTORM_INVENTORY_KEYS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let (_rt, sim) = cli_support::signing_target("pyarrow-key", "pyarrow-secret");
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    fill(&sim, "million", keys, false);
    fill(&sim, "heads", 3000, true);
    println!(
        "filled {keys} + 3000 objects in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let path: PathBuf = dir.path().join("million.parquet");
    let report = list(&endpoint, "million", &path, &[]);
    assert_eq!(report["keys"], keys);
    assert_eq!(report["inventory"]["rows"], keys);
    check(&path, keys, false);

    let path = dir.path().join("heads.parquet");
    let report = list(&endpoint, "heads", &path, &["--head"]);
    assert_eq!(report["inventory"]["rows"], 3000);
    check(&path, 3000, true);
}
