//! What the tests that start keystorm as processes share: `keystorm sim` as a target of
//! its own, the `keystorm` command with throwaway credentials, waiting on what a run
//! writes (its checkpoint, its progress lines) with a deadline, signals, and counting a
//! bucket's objects through S3.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use keystorm_s3::{ClientConfig, ListRequest, S3Client, TlsConfig};

use keystorm_types::{ClientKind, Credentials};

pub const BIN: &str = env!("CARGO_BIN_EXE_keystorm");

/// How long a test waits for something a run should do before it fails.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// `keystorm sim` in a process of its own, killed when dropped.
pub struct Sim {
    child: Child,
    pub endpoint: String,
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A size-only `keystorm sim` with a known knee: 8 PUTs served at once, 20 ms each,
/// so at most 400 a second, whoever sends them.
pub fn start_sim_with_knee_at_400() -> Sim {
    start_sim(&[
        "--storage",
        "size-only",
        "--max-inflight",
        "8",
        "--latency",
        "put=20ms",
    ])
}

/// `keystorm sim --port 0 ARGS...`, once it says where it listens.
pub fn start_sim(args: &[&str]) -> Sim {
    let mut command = Command::new(BIN);
    command.args(["sim", "--port", "0"]).args(args);
    let (child, endpoint) = spawn_announcing(&mut command, "keystorm sim listening on ");
    Sim { child, endpoint }
}

/// Starts `command` and waits for the first line it prints, which must begin with
/// `prefix` (a server saying where it listens); returns the rest of that line. Its
/// standard error goes where `command` says (the test's own by default).
pub fn spawn_announcing(command: &mut Command, prefix: &str) -> (Child, String) {
    let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let rest = line
        .trim()
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("expected {prefix:?}..., got {line:?}"))
        .to_string();
    (child, rest)
}

/// `keystorm ARGS... --results RESULTS` with throwaway keys in the environment.
pub fn keystorm(args: &[&str], results: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .arg("--results")
        .arg(results)
        .env("AWS_ACCESS_KEY_ID", "any")
        .env("AWS_SECRET_ACCESS_KEY", "any");
    c
}

/// A workload `name` writing bucket `name` at `endpoint` and saving its progress every
/// second: `objects` is the inside of its `objects` map, `phases` its phase sections.
pub fn workload(name: &str, endpoint: &str, objects: &str, phases: &str) -> String {
    format!(
        "name: {name}\ntarget: {{ endpoint: \"{endpoint}\" }}\nbuckets: {{ names: [{name}] }}\n\
         objects: {{ {objects} }}\ncheckpoint_every: 1s\n{phases}"
    )
}

/// Writes `text` as `NAME.yaml` in `dir`.
pub fn write_workload(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(format!("{name}.yaml"));
    std::fs::write(&p, text).unwrap();
    p
}

/// The only run folder under `results`, once there is one.
pub fn the_run(results: &Path) -> PathBuf {
    wait_for("the run's folder", || {
        let entries = std::fs::read_dir(results).ok()?;
        entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| p.join("manifest.json").is_file())
    })
}

/// Waits until `check` gives something, looking again every few milliseconds; fails
/// the test after [`DEADLINE`].
pub fn wait_for<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(start.elapsed() < DEADLINE, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A JSON file of the run folder, if it is there and whole.
pub fn read_json(path: &Path) -> Option<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Waits until the run's checkpoint satisfies `ready`; returns it.
pub fn wait_for_checkpoint(
    run: &Path,
    what: &str,
    ready: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    wait_for(what, || {
        read_json(&run.join("checkpoint.json")).filter(|c| ready(c))
    })
}

/// Kills the process with SIGKILL: it gets no chance to write anything more.
pub fn kill_9(child: &mut Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Sends SIGINT, as Ctrl-C does.
pub fn interrupt(child: &Child) {
    // SAFETY: plain FFI call sending a signal to our own child process.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
}

/// `keystorm run --resume RUN` to its end; returns its output.
pub fn resume(run: &Path, results: &Path, extra: &[&str]) -> std::process::Output {
    let id = run.file_name().unwrap().to_str().unwrap();
    keystorm(&["run", "--resume", id, "--progress", "quiet"], results)
        .args(extra)
        .output()
        .unwrap()
}

/// The rows of the run's `summary.json`.
pub fn summary_rows(run: &Path) -> Vec<serde_json::Value> {
    read_json(&run.join("summary.json")).expect("summary.json")["rows"]
        .as_array()
        .unwrap()
        .clone()
}

/// Every line of the run's `intervals.jsonl`.
pub fn intervals(run: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(run.join("intervals.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("whole interval lines"))
        .collect()
}

/// The data of every event named `name` in the run's `events.jsonl`, in order.
pub fn events_named(run: &Path, name: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(run.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("whole event lines"))
        .filter(|e| e["event"] == name)
        .map(|e| e["data"].clone())
        .collect()
}

/// The last event named `name` in the run's `events.jsonl`.
pub fn last_event(run: &Path, name: &str) -> serde_json::Value {
    std::fs::read_to_string(run.join("events.jsonl"))
        .unwrap()
        .lines()
        .rev()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("whole event lines"))
        .find(|e| e["event"] == name)
        .unwrap_or_else(|| panic!("no {name} event"))
}

pub async fn client(endpoint: &str) -> S3Client {
    S3Client::connect(&ClientConfig {
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
    .unwrap()
}

/// Objects in `bucket`, counted by listing it.
pub async fn count_objects(endpoint: &str, bucket: &str) -> u64 {
    let client = client(endpoint).await;
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

/// `GET path` on the target's admin API (the sim checks no signature without keys).
pub fn admin_get(endpoint: &str, path: &str) -> serde_json::Value {
    let (status, body) = admin_call("GET", endpoint, path);
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    serde_json::from_str(&body).unwrap()
}

/// `POST path` on the target's admin API; the answer's status line and body.
pub fn admin_post(endpoint: &str, path: &str) -> (String, String) {
    admin_call("POST", endpoint, path)
}

/// `METHOD path` (no body) on the target's admin API; the status line and body.
fn admin_call(method: &str, endpoint: &str, path: &str) -> (String, String) {
    let addr = endpoint.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (
        head.lines().next().unwrap_or_default().to_string(),
        body.to_string(),
    )
}

/// `keystorm sim --ports 0,0,… --storage size-only`, killed when dropped, and the URLs
/// it announced, one per port.
pub struct SimPorts(Child, pub Vec<String>);

impl Drop for SimPorts {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `keystorm sim` on `n` ports of the system's choosing.
pub fn sim_ports(n: usize) -> SimPorts {
    let ports = vec!["0"; n].join(",");
    let mut child = Command::new(BIN)
        .args(["sim", "--ports", &ports, "--storage", "size-only"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let urls = (0..n)
        .map(|_| {
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            line.trim()
                .strip_prefix("keystorm sim listening on ")
                .unwrap_or_else(|| panic!("expected a listening line, got {line:?}"))
                .to_string()
        })
        .collect();
    SimPorts(child, urls)
}

/// The requests of S3 operation `op` (`PutObject`, ...) the sim at `endpoint` received.
pub fn sim_requests(endpoint: &str, op: &str) -> u64 {
    admin_get(endpoint, "/admin/keystorm/requests")[op]
        .as_u64()
        .unwrap()
}
