//! Every printing command into a pipe whose reader has gone (`keystorm openapi | head
//! -2`): the command ends quietly, as `cat` does — killed by SIGPIPE, or exit 0 — and
//! never panics. Long outputs are read a little and then cut off, so the write that
//! fails is one in the middle of the output, not the first.

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

mod cli_support;
use cli_support::only_run;

use keystorm_sim::{Object, SimHandle};

const BIN: &str = env!("CARGO_BIN_EXE_keystorm");

/// How a command ended with its standard output cut off.
struct Cut {
    status: ExitStatus,
    stderr: String,
    /// What the reader got before it went away.
    head: Vec<u8>,
}

/// Runs `cmd` with its standard output in a pipe whose reader takes the first `keep`
/// bytes (none: it is closed before the command starts) and then closes its end.
fn into_cut_pipe(cmd: &mut Command, keep: usize) -> Cut {
    let (mut reader, writer) = std::io::pipe().unwrap();
    cmd.stdout(writer).stderr(Stdio::piped());
    if keep == 0 {
        drop(reader);
        let out = cmd.spawn().unwrap().wait_with_output().unwrap();
        return Cut {
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            head: Vec::new(),
        };
    }
    let child = cmd.spawn().unwrap();
    // The parent's copy of the write end lives in `cmd`: the reader sees no end of
    // file from it, but reads only what it asked for.
    let mut head = vec![0; keep];
    reader.read_exact(&mut head).unwrap();
    drop(reader);
    let out = child.wait_with_output().unwrap();
    Cut {
        status: out.status,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        head,
    }
}

fn keystorm(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("AWS_ACCESS_KEY_ID", "pipe-key")
        .env("AWS_SECRET_ACCESS_KEY", "pipe-secret")
        .env_remove("KEYSTORM_ENDPOINT")
        .env_remove("RUST_BACKTRACE");
    c
}

/// Ended as `cat` does on a closed pipe: no panic, killed by SIGPIPE.
fn assert_quiet_sigpipe(what: &str, cut: &Cut) {
    assert!(
        !cut.stderr.contains("panicked") && !cut.stderr.contains("Broken pipe"),
        "{what}: {}",
        cut.stderr
    );
    assert_eq!(
        cut.status.signal(),
        Some(libc::SIGPIPE),
        "{what}: ended with {:?}; stderr: {}",
        cut.status,
        cut.stderr
    );
}

/// A finished run of many phases × rounds, so that `show --json` prints well over a
/// pipe's 64 KiB buffer.
fn long_run(dir: &Path) -> (PathBuf, String) {
    let workload = dir.join("rows.yaml");
    std::fs::write(
        &workload,
        "name: pipe-rows
target: { endpoint: embedded, embedded: { storage: size-only } }
buckets: { names: [pipe-rows] }
objects: { size: 6B }
before:
  - { name: fill, op: put, concurrency: 4, until_objects: 50 }
rounds:
  count: 60
  phases:
    - { name: read, op: get, concurrency: 4, operations: 20 }
    - { name: mixed, mix: { get: 50, put: 50 }, concurrency: 4, operations: 20 }
",
    )
    .unwrap();
    let results = dir.join("results");
    let out = keystorm(&["run", workload.to_str().unwrap(), "--progress", "quiet"])
        .arg("--results")
        .arg(&results)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = only_run(&results);
    (workload, id)
}

/// A signing target with `n` keys in bucket `pipe`.
fn target_with_keys(n: u64) -> (tokio::runtime::Runtime, SimHandle) {
    let (rt, sim) = cli_support::signing_target("pipe-key", "pipe-secret");
    sim.store().create_bucket("pipe");
    let bucket = sim.store().bucket("pipe").unwrap();
    for i in 0..n {
        bucket
            .put(
                format!("keys/{i:08}").as_bytes(),
                Object {
                    size: i % 100,
                    etag: [7; 16],
                    last_modified_ms: keystorm_sim::now_ms(),
                    content_type: None,
                    metadata: Default::default(),
                    data: None,
                    parts: 0,
                },
            )
            .expect("the default budget holds 20,000 size-only keys");
    }
    (rt, sim)
}

#[test]
fn long_outputs_cut_off_midway_end_like_cat() {
    let dir = tempfile::tempdir().unwrap();
    let (_, id) = long_run(dir.path());
    let results = dir.path().join("results");
    let results = results.to_str().unwrap();

    let cut = into_cut_pipe(&mut keystorm(&["openapi"]), 40);
    assert!(cut.head.starts_with(b"{"), "{:?}", cut.head);
    assert_quiet_sigpipe("openapi", &cut);

    let full = keystorm(&["show", &id, "--json", "--results", results])
        .output()
        .unwrap();
    assert!(
        full.stdout.len() > 2 * 65536,
        "show --json prints {} bytes, not enough to overflow a pipe",
        full.stdout.len()
    );
    let cut = into_cut_pipe(
        &mut keystorm(&["show", &id, "--json", "--results", results]),
        100,
    );
    assert_eq!(cut.head, full.stdout[..100]);
    assert_quiet_sigpipe("show --json", &cut);

    let (_rt, sim) = target_with_keys(20_000);
    let endpoint = sim.endpoint();
    let cut = into_cut_pipe(
        &mut keystorm(&["list", "pipe", "--endpoint", &endpoint, "--keys", "-"]),
        200,
    );
    let first = String::from_utf8_lossy(&cut.head);
    assert!(first.starts_with("{\""), "JSON lines on stdout: {first}");
    assert_quiet_sigpipe("list --keys -", &cut);
}

#[test]
fn every_printing_command_into_a_closed_pipe_ends_like_cat() {
    let dir = tempfile::tempdir().unwrap();
    let (workload, id) = long_run(dir.path());
    let results = dir.path().join("results");
    let results = results.to_str().unwrap();
    let workload = workload.to_str().unwrap();
    let (_rt, sim) = target_with_keys(100);
    let endpoint = sim.endpoint();
    let restore = dir.path().join("restore");
    let upload_from = dir.path().join("up");
    std::fs::create_dir(&upload_from).unwrap();
    std::fs::write(upload_from.join("a.txt"), b"a").unwrap();

    let commands: Vec<Vec<&str>> = vec![
        vec!["show", &id, "--results", results],
        vec!["show", &id, "--json", "--results", results],
        vec!["ls", "--results", results],
        vec!["validate", workload],
        vec!["validate", workload, workload],
        vec!["openapi"],
        vec!["list", "pipe", "--endpoint", &endpoint],
        vec!["list", "pipe", "--endpoint", &endpoint, "--json"],
        vec!["list", "pipe", "--endpoint", &endpoint, "--keys", "-"],
        vec![
            "download",
            "pipe",
            restore.to_str().unwrap(),
            "--endpoint",
            &endpoint,
        ],
        vec![
            "upload",
            upload_from.to_str().unwrap(),
            "pipe",
            "--endpoint",
            &endpoint,
        ],
    ];
    for args in commands {
        let cut = into_cut_pipe(&mut keystorm(&args), 0);
        assert_quiet_sigpipe(&args.join(" "), &cut);
    }

    // `run` prints its table at the end: the run completes and is written all the same.
    let run_results = dir.path().join("more-results");
    let cut = into_cut_pipe(
        keystorm(&["run", workload, "--progress", "quiet", "--results"]).arg(&run_results),
        0,
    );
    assert_quiet_sigpipe("run", &cut);
    let run = std::fs::read_dir(&run_results)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["status"], "completed");

    // Help is printed by the argument parser, which ignores the closed pipe: exit 0.
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["list", "--help"],
    ] {
        let cut = into_cut_pipe(&mut keystorm(&args), 0);
        assert!(!cut.stderr.contains("panicked"), "{}", cut.stderr);
        assert_eq!(cut.status.code(), Some(0), "{args:?}: {:?}", cut.status);
    }
}
