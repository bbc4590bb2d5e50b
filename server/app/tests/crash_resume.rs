//! Process-level behaviour against a target in its own process: a fill killed with
//! SIGKILL shows as killed and resumes to exactly N objects (and cannot be resumed
//! while it still runs), and SIGINT stops a run cleanly (exit 130,
//! results written, resumable). Waiting is on the run's own progress output.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};

use keystorm_engine::s3::{
    ClientConfig, ClientKind, Credentials, ListRequest, S3Client, TlsConfig,
};

const BIN: &str = env!("CARGO_BIN_EXE_keystorm");

struct Sim {
    child: Child,
    endpoint: String,
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `keystorm sim --port 0`, waiting for the line that says where it listens.
fn start_sim() -> Sim {
    let mut child = Command::new(BIN)
        .args(["sim", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let endpoint = line
        .trim()
        .strip_prefix("keystorm sim listening on ")
        .unwrap_or_else(|| panic!("unexpected sim output {line:?}"))
        .to_string();
    Sim { child, endpoint }
}

fn workload(dir: &Path, endpoint: &str, objects: u64, rate: u64) -> std::path::PathBuf {
    let text = format!(
        "name: crash\ntarget: {{ endpoint: \"{endpoint}\" }}\nbuckets: {{ names: [crash] }}\nobjects: {{ size: 6B }}\nbefore:\n  - {{ name: fill, op: put, concurrency: 8, rate: {rate}, until_objects: {objects} }}\n"
    );
    let p = dir.join("crash.yaml");
    std::fs::write(&p, text).unwrap();
    p
}

fn keystorm(args: &[&str], results: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .arg("--results")
        .arg(results)
        .env("AWS_ACCESS_KEY_ID", "any")
        .env("AWS_SECRET_ACCESS_KEY", "any");
    c
}

/// Reads progress lines until one reports live objects; returns the run id.
fn wait_for_progress(stderr: ChildStderr) -> (String, BufReader<ChildStderr>) {
    let mut reader = BufReader::new(stderr);
    let mut run_id = None;
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).unwrap();
        assert!(n > 0, "run ended before reporting progress");
        if let Some(rest) = line.strip_prefix("run ") {
            run_id = rest.split_whitespace().next().map(str::to_string);
        }
        if let Some(objects) = line.trim().rsplit("objects ").next()
            && line.contains("| objects ")
            && objects.parse::<u64>().is_ok_and(|n| n > 0)
        {
            return (run_id.expect("run id printed first"), reader);
        }
    }
}

async fn count_objects(endpoint: &str, bucket: &str) -> u64 {
    let client = S3Client::connect(&ClientConfig {
        kind: ClientKind::Fast,
        endpoint: endpoint.to_string(),
        region: "us-east-1".into(),
        path_style: true,
        credentials: Credentials {
            access_key_id: "any".into(),
            secret_access_key: "any".into(),
            session_token: None,
        },
        tls: TlsConfig::default(),
        timeout: None,
        retries: 0,
        pool_size: 1,
        checksums: false,
        payload_signing: false,
    })
    .await
    .unwrap();
    let mut n = 0;
    let mut req = ListRequest::default();
    loop {
        let page = client.list_objects_v2(bucket, &req).await.unwrap();
        n += page.entries.len() as u64;
        match page.next_continuation_token.filter(|_| page.is_truncated) {
            Some(t) => req.continuation_token = Some(t),
            None => return n,
        }
    }
}

#[tokio::test]
async fn a_fill_killed_with_sigkill_resumes_to_exactly_n() {
    let sim = start_sim();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let wl = workload(dir.path(), &sim.endpoint, 15000, 3000);
    let mut run = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "plain"],
        &results,
    )
    .stderr(Stdio::piped())
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    let (run_id, _reader) = wait_for_progress(run.stderr.take().unwrap());
    // A run still going cannot be resumed a second time.
    let twice = keystorm(
        &["run", "--resume", &run_id, "--progress", "quiet"],
        &results,
    )
    .output()
    .unwrap();
    assert!(!twice.status.success());
    let why = String::from_utf8_lossy(&twice.stderr);
    assert!(
        why.contains(&format!("is still going (process {}", run.id())),
        "{why}"
    );
    run.kill().unwrap(); // SIGKILL: no chance to write anything more
    run.wait().unwrap();
    let partial = count_objects(&sim.endpoint, "crash").await;
    assert!(partial > 0 && partial < 15000, "killed mid-fill: {partial}");
    let manifest = std::fs::read_to_string(results.join(&run_id).join("manifest.json")).unwrap();
    assert!(
        manifest.contains("\"running\""),
        "a killed run's manifest still says running"
    );
    // ... but its process is gone, and that is what is shown.
    for command in [&["ls"][..], &["show", run_id.as_str()][..]] {
        let out = keystorm(command, &results).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("killed") && !text.contains("running"),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let out = keystorm(
        &["run", "--resume", &run_id, "--progress", "quiet"],
        &results,
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(count_objects(&sim.endpoint, "crash").await, 15000);
    let manifest = std::fs::read_to_string(results.join(&run_id).join("manifest.json")).unwrap();
    assert!(manifest.contains("\"completed\""));
}

#[tokio::test]
async fn sigint_stops_cleanly_with_results_and_exit_130() {
    let sim = start_sim();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let wl = workload(dir.path(), &sim.endpoint, 1_000_000, 2000);
    let mut run = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "plain"],
        &results,
    )
    .stderr(Stdio::piped())
    .stdout(Stdio::piped())
    .spawn()
    .unwrap();
    let (run_id, mut reader) = wait_for_progress(run.stderr.take().unwrap());
    // SAFETY: plain FFI call sending a signal to our own child process.
    unsafe {
        libc::kill(run.id() as libc::pid_t, libc::SIGINT);
    }
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut reader, &mut rest).unwrap();
    let status = run.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(rest.contains(&format!("--resume {run_id}")), "{rest}");
    let run_dir = results.join(&run_id);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["status"], "interrupted");
    assert!(manifest["ended_at"].is_string());
    let intervals = std::fs::read_to_string(run_dir.join("intervals.jsonl")).unwrap();
    assert!(intervals.lines().count() >= 1);
    let checkpoint: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("checkpoint.json")).unwrap())
            .unwrap();
    let head = checkpoint["window"]["head"].as_u64().unwrap();
    assert_eq!(
        head,
        count_objects(&sim.endpoint, "crash").await,
        "checkpoint matches the target"
    );
}
