//! TLS on the controller and the agent link, with real processes on loopback and
//! certificates made by the test: the API over HTTPS (a run started there); an agent
//! trusting the controller's CA runs its shard of a fill over HTTPS and the merged run
//! is complete; a certificate the client does not trust is refused at start in one
//! line that says what to do; plain http with a token to a controller beyond loopback
//! is refused before any connection; `serve` beyond loopback needs TLS or
//! `--insecure-http`; and SIGHUP swaps the pair for new connections.

mod fleet_support;
mod process_support;
mod tls_support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fleet_support::{
    fill_workload, merged_run, put_ops, start_agent_with, start_serving, start_split_run_with,
};
use process_support::{BIN, count_objects, keystorm, start_sim, wait_for};
use tls_support::{
    TestCa, https_get_json, https_request, https_request_with, presented_certificate, tls_flags,
};

/// A workload that is fine to send to a controller (named otherwise than the test
/// environment's key `any`, which no name may hold).
const ANY_WORKLOAD: &str = "name: unreached\ntarget: { endpoint: \"http://127.0.0.1:9\" }\nbuckets: { names: [unreached] }\n\
                            before:\n  - { op: put, until_objects: 1 }\n";

/// A controller serving HTTPS with a pair `ca` signed, and its results folder.
fn start_tls_controller(ca: &TestCa, dir: &Path, extra: &[&str]) -> fleet_support::Controller {
    let pair = ca.issue(dir, "controller");
    let results = dir.join("controller");
    let mut args: Vec<String> = tls_flags(&pair);
    args.extend(["--results".to_string(), results.display().to_string()]);
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let controller = start_serving(&args);
    assert!(controller.url.starts_with("https://"), "{}", controller.url);
    controller
}

/// Waits (with the deadline) for `child` to end; its exit code and stderr (piped).
fn finished(child: &mut Child) -> (Option<i32>, String) {
    let status = wait_for("the process to end", || child.try_wait().unwrap());
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        std::io::Read::read_to_string(&mut pipe, &mut stderr).unwrap();
    }
    (status.code(), stderr)
}

/// Runs `command`, which should end by itself (killed if it has not by the deadline);
/// its exit code, stdout and stderr.
fn ended(command: &mut Command) -> (Option<i32>, String, String) {
    let mut child = fleet_support::Agent(
        command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let (code, stderr) = finished(&mut child.0);
    let mut stdout = String::new();
    if let Some(mut pipe) = child.0.stdout.take() {
        std::io::Read::read_to_string(&mut pipe, &mut stdout).unwrap();
    }
    (code, stdout, stderr)
}

#[test]
fn the_api_answers_over_https_and_a_run_started_there_completes() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new(dir.path(), "api");
    let controller = start_tls_controller(&ca, dir.path(), &[]);
    let status = https_get_json(&controller.url, &ca.file, "/api/status");
    assert_eq!(status["version"], env!("CARGO_PKG_VERSION"), "{status}");

    let yaml = "name: over-tls\ntarget: { endpoint: embedded, embedded: { storage: size-only } }\n\
                buckets: { names: [over-tls] }\nobjects: { size: 10B }\n\
                before:\n  - { name: fill, op: put, workers: 4, until_objects: 500 }\n";
    let (code, body) = https_request(
        &controller.url,
        &ca.file,
        "POST",
        "/api/runs",
        Some(&serde_json::json!({ "yaml": yaml })),
    );
    assert_eq!(code, 201, "{body}");
    let started: serde_json::Value = serde_json::from_str(&body).unwrap();
    let id = started["run_id"].as_str().unwrap();
    let run = wait_for("the run to complete", || {
        let run = https_get_json(&controller.url, &ca.file, &format!("/api/runs/{id}"));
        (run["manifest"]["status"] == "completed").then_some(run)
    });
    let puts: u64 = run["summary"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ops"].as_u64().unwrap())
        .sum();
    assert_eq!(puts, 500, "{run}");
}

#[tokio::test]
async fn an_agent_trusting_the_controllers_ca_runs_its_shard_over_https() {
    const KEYS: u64 = 3_000;
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new(dir.path(), "fleet");
    let controller = start_tls_controller(&ca, dir.path(), &[]);
    let ca_file = ca.file.to_str().unwrap();
    let _agent = start_agent_with(
        &controller.url,
        "tls-agent",
        &dir.path().join("agent"),
        &["--ca-file", ca_file],
        Stdio::null(),
    );
    let wl = fill_workload(dir.path(), "overtls", &sim.endpoint, 3, KEYS);
    let run = start_split_run_with(
        &wl,
        &controller.url,
        1,
        &dir.path().join("cli"),
        &["--ca-file", ca_file],
    );
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");

    let merged = merged_run(&dir.path().join("controller"));
    let manifest = process_support::read_json(&merged.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "completed");
    assert_eq!(put_ops(&merged), KEYS);
    assert_eq!(count_objects(&sim.endpoint, "overtls").await, KEYS);
}

#[test]
fn a_certificate_the_client_does_not_trust_is_refused_at_start_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new(dir.path(), "right");
    let other = TestCa::new(dir.path(), "other");
    let controller = start_tls_controller(&ca, dir.path(), &[]);
    let other_file = other.file.to_str().unwrap();
    // Another CA given, then none (the system's roots know no test CA).
    let cases = [
        (
            vec!["--ca-file", other_file],
            other_file,
            "give the CA that signed it",
        ),
        (vec![], "unknown issuer", "give --ca-file"),
    ];
    for (extra, says, what_to_do) in cases {
        let mut agent = start_agent_with(
            &controller.url,
            "distrustful",
            &dir.path().join("agent"),
            &extra,
            Stdio::piped(),
        );
        let (code, stderr) = finished(&mut agent.0);
        assert_eq!(code, Some(1), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        for part in [controller.url.as_str(), "not trusted", says, what_to_do] {
            assert!(stderr.contains(part), "{part}: {stderr}");
        }
    }

    let wl = dir.path().join("any.yaml");
    std::fs::write(&wl, ANY_WORKLOAD).unwrap();
    let mut run = start_split_run_with(
        &wl,
        &controller.url,
        1,
        &dir.path().join("cli"),
        &["--ca-file", other_file],
    );
    let (code, stderr) = finished(&mut run);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("not trusted") && stderr.contains(other_file),
        "{stderr}"
    );
}

#[test]
fn an_https_client_of_a_plain_http_controller_is_told_so_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let controller = start_serving(&["--results", dir.path().to_str().unwrap()]);
    let https = controller.url.replacen("http://", "https://", 1);
    let (code, _, stderr) = ended(&mut keystorm(
        &["agent", "--controller", &https, "--name", "a"],
        dir.path(),
    ));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("does not speak TLS"), "{stderr}");
}

#[test]
fn plain_http_with_a_token_beyond_loopback_is_refused_before_any_connection() {
    let dir = tempfile::tempdir().unwrap();
    let wl = dir.path().join("any.yaml");
    std::fs::write(&wl, ANY_WORKLOAD).unwrap();
    // 192.0.2.1 is a documentation address: nothing answers there. A client that
    // dialled it would wait for its connection (or report it unreachable, exit 1);
    // the refusal comes at once, as bad input, before any connection.
    let url = "http://192.0.2.1:7878";
    let commands: [Vec<&str>; 2] = [
        vec!["agent", "--controller", url, "--name", "a"],
        vec![
            "run",
            wl.to_str().unwrap(),
            "--controller",
            url,
            "--agents",
            "1",
        ],
    ];
    for words in commands {
        let start = Instant::now();
        let (code, _, stderr) =
            ended(keystorm(&words, dir.path()).env("KEYSTORM_TOKEN", "0123456789abcdef-token"));
        assert_eq!(code, Some(2), "{words:?}: {stderr}");
        assert!(start.elapsed() < Duration::from_secs(10));
        assert!(
            stderr.contains("in clear")
                && stderr.contains("--tls-cert")
                && stderr.contains("https://192.0.2.1:7878")
                && stderr.contains("--insecure-http"),
            "{stderr}"
        );
    }
}

#[test]
fn serving_beyond_loopback_needs_tls_unless_insecure_http_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().to_str().unwrap();
    let beyond = [
        "--bind",
        "0.0.0.0",
        "--token",
        "0123456789abcdef-token",
        "--results",
        results,
    ];
    let (code, _, stderr) = ended(
        Command::new(BIN)
            .args(["serve", "--port", "0"])
            .args(beyond),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--tls-cert")
            && stderr.contains("openssl req -x509")
            && stderr.contains("--insecure-http"),
        "{stderr}"
    );

    // Allowed with --insecure-http, with a warning; it serves (reached on loopback).
    let mut child = Command::new(BIN)
        .args(["serve", "--port", "0"])
        .args(beyond)
        .arg("--insecure-http")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    assert!(
        line.starts_with("keystorm serving http://0.0.0.0:"),
        "{line}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning") && stderr.contains("in clear"),
        "{stderr}"
    );

    // With a certificate it serves HTTPS there.
    let ca = TestCa::new(dir.path(), "beyond");
    let pair = ca.issue(dir.path(), "beyond");
    let mut args: Vec<String> = beyond.iter().map(|a| a.to_string()).collect();
    args.extend(tls_flags(&pair));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let controller = start_serving(&args);
    assert!(
        controller.url.starts_with("https://0.0.0.0:"),
        "{}",
        controller.url
    );
    let port = controller.url.rsplit(':').next().unwrap();
    let (code, body) = https_request_with(
        &format!("https://127.0.0.1:{port}"),
        &ca.file,
        Some("0123456789abcdef-token"),
        "GET",
        "/api/status",
        None,
    );
    assert_eq!(code, 200, "{body}");
    let status: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(status["token_required"], true);
}

#[test]
fn a_pair_that_cannot_be_served_stops_serve_at_start_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new(dir.path(), "pairs");
    let one = ca.issue(dir.path(), "one");
    let two = ca.issue(dir.path(), "two");
    let missing = dir.path().join("missing.crt");
    let cases = [
        (missing.as_path(), one.key.as_path(), "cannot read it"),
        (
            one.cert.as_path(),
            two.key.as_path(),
            "is not the key of the certificate",
        ),
        (one.key.as_path(), one.key.as_path(), "no PEM certificate"),
        (one.cert.as_path(), one.cert.as_path(), "no PEM private key"),
    ];
    for (cert, key, says) in cases {
        let (code, stdout, stderr) = ended(
            Command::new(BIN)
                .args(["serve", "--port", "0", "--tls-cert"])
                .arg(cert)
                .arg("--tls-key")
                .arg(key)
                .arg("--results")
                .arg(dir.path()),
        );
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains(says), "{says}: {stderr}");
        let named = if says.contains("key") && !says.contains("certificate") {
            key
        } else {
            cert
        };
        assert!(stderr.contains(&named.display().to_string()), "{stderr}");
        assert!(stdout.is_empty(), "{stdout}");
    }
    // Both or neither.
    let out = Command::new(BIN)
        .args(["serve", "--port", "0", "--tls-cert"])
        .arg(&one.cert)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tls-key"));
}

#[test]
fn sighup_serves_the_new_pair_to_new_connections_and_keeps_the_old_if_the_new_is_bad() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new(dir.path(), "reload");
    let first = ca.issue(dir.path(), "controller");
    let log = dir.path().join("serve.log");
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--port", "0", "--results"])
        .arg(dir.path().join("results"))
        .args(tls_flags(&first))
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap());
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let controller = fleet_support::Controller {
        child,
        url: line
            .trim()
            .strip_prefix("keystorm serving ")
            .unwrap()
            .to_string(),
    };
    let hangup = || {
        // SAFETY: plain FFI call sending a signal to our own child process.
        unsafe {
            libc::kill(controller.child.id() as libc::pid_t, libc::SIGHUP);
        }
    };
    assert_eq!(presented_certificate(&controller.url, &ca.file), first.der);

    let second = ca.issue_into(&first.cert, &first.key);
    assert_ne!(second.der, first.der);
    hangup();
    wait_for("a new connection to get the new certificate", || {
        (presented_certificate(&controller.url, &ca.file) == second.der).then_some(())
    });

    // A key that is not the certificate's: the pair in use stays, and stderr says why.
    let third = ca.issue(dir.path(), "third");
    std::fs::copy(&third.key, &first.key).unwrap();
    hangup();
    let said = wait_for("the server to say it keeps its pair", || {
        let text = std::fs::read_to_string(&log).unwrap();
        text.contains("keeping").then_some(text)
    });
    assert!(said.contains("is not the key of the certificate"), "{said}");
    assert_eq!(presented_certificate(&controller.url, &ca.file), second.der);
    let status = https_get_json(&controller.url, &ca.file, "/api/status");
    assert_eq!(status["version"], env!("CARGO_PKG_VERSION"));
}

/// Runs in a network namespace of its own (root only: `unshare -n`), where 198.51.100.7
/// is an address of the namespace's loopback interface: a controller beyond loopback
/// that no traffic leaves the namespace to reach. Arguments: keystorm, a folder, the
/// workload.
const PLAIN_BEYOND_LOOPBACK: &str = r#"
set -euo pipefail
ip link set lo up
ip addr add 198.51.100.7/32 dev lo
bin=$1; dir=$2; wl=$3
export KEYSTORM_TOKEN=0123456789abcdef-token AWS_ACCESS_KEY_ID=any AWS_SECRET_ACCESS_KEY=any
trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT
# The rest of the first line of file $1 once it starts with $2 (a server saying where
# it listens), looked for every 50 ms for up to 60 s.
announced() {
  for _ in $(seq 1 1200); do
    line=$(head -n1 "$1" 2>/dev/null || true)
    case $line in "$2"*) echo "${line#"$2"}"; return;; esac
    sleep 0.05
  done
  echo "gave up waiting for $2 in $1" >&2; return 1
}
"$bin" sim --port 0 --storage size-only >"$dir/sim.out" &
"$bin" serve --bind 198.51.100.7 --port 0 --insecure-http --results "$dir/controller" \
  >"$dir/serve.out" 2>"$dir/serve.err" &
sim=$(announced "$dir/sim.out" "keystorm sim listening on ")
controller=$(announced "$dir/serve.out" "keystorm serving ")
"$bin" agent --controller "$controller" --insecure-http --name plain --progress quiet \
  --results "$dir/agent" >/dev/null 2>"$dir/agent.err" &
timeout 100 "$bin" run "$wl" --controller "$controller" --insecure-http --agents 1 \
  --endpoint "$sim" --results "$dir/cli" >"$dir/run.out" 2>"$dir/run.err"
"#;

#[test]
fn plain_http_beyond_loopback_with_insecure_http_warns_and_the_runs_say_so() {
    const KEYS: u64 = 2_000;
    let dir = tempfile::tempdir().unwrap();
    let wl = fill_workload(dir.path(), "plain", "http://127.0.0.1:1", 5, KEYS);
    let out = Command::new("unshare")
        .args(["-n", "bash", "-c", PLAIN_BEYOND_LOOPBACK, "bash", BIN])
        .arg(dir.path())
        .arg(&wl)
        .output()
        .unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap_or_default();
    assert!(
        out.status.success(),
        "{}\nrun: {}\nagent: {}\nserve: {}",
        String::from_utf8_lossy(&out.stderr),
        read("run.err"),
        read("agent.err"),
        read("serve.err")
    );
    let said = "the link to the controller http://198.51.100.7:";
    for (who, stderr) in [("run", read("run.err")), ("agent", read("agent.err"))] {
        assert!(
            stderr.contains(&format!("warning: {said}")) && stderr.contains("not encrypted"),
            "{who}: {stderr}"
        );
    }
    assert!(read("serve.err").contains("serving plain HTTP on 198.51.100.7"));

    let warnings = |run: &Path| -> Vec<String> {
        std::fs::read_to_string(run.join("events.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|e| e["event"] == "warning")
            .map(|e| e["data"]["message"].as_str().unwrap().to_string())
            .collect()
    };
    // The shard's own run, on the agent, and the controller's merged run.
    let shard = process_support::the_run(&dir.path().join("agent"));
    assert!(
        warnings(&shard).iter().any(|w| w.starts_with(said)),
        "{:?}",
        warnings(&shard)
    );
    let merged = merged_run(&dir.path().join("controller"));
    assert!(
        warnings(&merged)
            .iter()
            .any(|w| w.starts_with(&format!("shard 0/1: {said}"))),
        "{:?}",
        warnings(&merged)
    );
    assert_eq!(put_ops(&merged), KEYS);
}

#[test]
fn ctrl_c_on_an_https_server_lets_the_run_going_write_its_results() {
    let dir = tempfile::tempdir().unwrap();
    let workloads = dir.path().join("workloads");
    std::fs::create_dir(&workloads).unwrap();
    std::fs::write(
        workloads.join("long.yaml"),
        "name: long\ntarget: { endpoint: embedded, embedded: { storage: size-only } }\n\
         buckets: { names: [long] }\nobjects: { size: 6B }\n\
         before:\n  - { name: write, op: put, concurrency: 2, duration: 10m }\n",
    )
    .unwrap();
    let ca = TestCa::new(dir.path(), "stop");
    let workloads = workloads.display().to_string();
    let mut controller = start_tls_controller(
        &ca,
        dir.path(),
        &["--workloads", &workloads, "--start", "long"],
    );
    let results = dir.path().join("controller");
    let run = wait_for("the run's first interval", || {
        let run = process_support::the_run(&results);
        let intervals = std::fs::read_to_string(run.join("intervals.jsonl")).ok()?;
        (!intervals.is_empty()).then_some(run)
    });
    process_support::interrupt(&controller.child);
    let status = wait_for("the server to stop", || {
        controller.child.try_wait().unwrap()
    });
    assert_eq!(status.code(), Some(0));
    let manifest = process_support::read_json(&run.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "interrupted", "{manifest}");
}

#[test]
fn the_self_signed_pair_of_the_one_liner_serve_gives_is_trusted_by_its_clients() {
    let dir = tempfile::tempdir().unwrap();
    // The one-liner as `serve` gives it when it refuses plain HTTP beyond loopback.
    let (_, _, refusal) = ended(
        Command::new(BIN)
            .args(["serve", "--port", "0", "--bind", "0.0.0.0", "--token"])
            .arg("0123456789abcdef-token"),
    );
    let one_liner = refusal
        .split('`')
        .nth(1)
        .unwrap_or_else(|| panic!("{refusal}"));
    let made = Command::new("sh")
        .args(["-c", one_liner])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let results = dir.path().join("results");
    let controller = start_serving(&[
        "--tls-cert",
        dir.path().join("tls.crt").to_str().unwrap(),
        "--tls-key",
        dir.path().join("tls.key").to_str().unwrap(),
        "--results",
        results.to_str().unwrap(),
    ]);
    let port = controller.url.rsplit(':').next().unwrap();
    let ca = dir.path().join("tls.crt");
    for host in ["127.0.0.1", "localhost"] {
        let status = https_get_json(&format!("https://{host}:{port}"), &ca, "/api/status");
        assert_eq!(status["version"], env!("CARGO_PKG_VERSION"));
    }
    // keystorm's own client too: the run reaches the controller (and waits for agents).
    std::fs::write(dir.path().join("any.yaml"), ANY_WORKLOAD).unwrap();
    let (code, _, stderr) = ended(
        keystorm(
            &[
                "run",
                "any.yaml",
                "--controller",
                &format!("https://localhost:{port}"),
                "--ca-file",
                ca.to_str().unwrap(),
                "--agents",
                "1",
                "--wait-agents",
                "1s",
            ],
            &results,
        )
        .current_dir(dir.path()),
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("agent"), "{stderr}");
    assert!(!stderr.contains("certificate"), "{stderr}");
}
