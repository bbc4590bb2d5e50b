//! Ctrl-C on `keystorm serve`: with no run going the server just stops, and says
//! nothing about results; with a run going it names the run, lets it write its results
//! (marked interrupted) and then stops.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

mod process_support;

use process_support::{BIN, DEADLINE, interrupt, read_json, wait_for};

/// `keystorm serve` on a free port with these workloads and results folders, once it
/// says where it serves.
fn serve(workloads: &std::path::Path, results: &std::path::Path, extra: &[&str]) -> Child {
    let mut child = Command::new(BIN)
        .args(["serve", "--port", "0", "--workloads"])
        .arg(workloads)
        .arg("--results")
        .arg(results)
        .args(extra)
        .env_remove("KEYSTORM_TOKEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("keystorm serving http://"), "{line:?}");
    child
}

/// Waits (with the deadline) for the process to end; its exit code and stderr.
fn ended(mut child: Child) -> (Option<i32>, String) {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("the server did not stop after Ctrl-C");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn ctrl_c_with_no_run_going_just_stops() {
    let dir = tempfile::tempdir().unwrap();
    let child = serve(dir.path(), &dir.path().join("results"), &[]);
    interrupt(&child);
    let (code, stderr) = ended(child);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("results"), "{stderr}");
    assert!(stderr.contains("no run in progress"), "{stderr}");
}

#[test]
fn ctrl_c_with_a_run_going_lets_it_write_its_results() {
    let dir = tempfile::tempdir().unwrap();
    let workloads = dir.path().join("workloads");
    std::fs::create_dir(&workloads).unwrap();
    std::fs::write(
        workloads.join("long.yaml"),
        "name: long
target: { endpoint: embedded, embedded: { storage: size-only } }
buckets: { names: [long] }
objects: { size: 6B }
before:
  - { name: write, op: put, concurrency: 2, duration: 10m }
",
    )
    .unwrap();
    let results = dir.path().join("results");
    let child = serve(&workloads, &results, &["--start", "long"]);
    // The run is going once it has measured its first interval.
    let run = wait_for("the run's first interval", || {
        let run = std::fs::read_dir(&results)
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| p.join("manifest.json").is_file())?;
        let intervals = std::fs::read_to_string(run.join("intervals.jsonl")).ok()?;
        (!intervals.is_empty()).then_some(run)
    });
    interrupt(&child);
    let (code, stderr) = ended(child);
    assert_eq!(code, Some(0), "{stderr}");
    let id = run.file_name().unwrap().to_str().unwrap();
    assert!(
        stderr.contains(&format!("stopping: letting run {id} write its results")),
        "{stderr}"
    );
    let manifest = read_json(&run.join("manifest.json")).expect("manifest");
    assert_eq!(manifest["status"], "interrupted", "{manifest}");
    // The run says what started it.
    assert_eq!(
        manifest["command_line"],
        serde_json::json!(["keystorm", "serve", "--start", "long"]),
        "{manifest}"
    );
}
