//! `keystorm sim --ports` as a process: one store answering on every port (written on
//! one, read on another), `--port-latency` slowing only its port (the GET through it
//! takes at least the added 200 ms, and the target's own record shows one delay of the
//! port's kind), `--fault PORT:KIND=RATE` failing only its port's requests, a port
//! taken down and brought back through the admin API of the other, with the requests
//! of each port adding up to the target's, and a `--port-latency` for a port the target
//! does not listen on refused with exit code 2 and a message naming the port. Plain
//! HTTP over loopback sockets; the target runs without credentials, so requests go
//! unsigned.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_keystorm");

/// How long the test waits for the process to answer or end.
const DEADLINE: Duration = Duration::from_secs(120);

/// `keystorm sim ARGS...` without credentials.
fn sim(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.arg("sim")
        .args(args)
        .env_remove("KEYSTORM_SIM_ACCESS_KEY")
        .env_remove("KEYSTORM_SIM_SECRET_KEY");
    c
}

/// The process, killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Two ports free a moment ago (both held at once, so they differ).
fn two_free_ports() -> (u16, u16) {
    let a = TcpListener::bind("127.0.0.1:0").unwrap();
    let b = TcpListener::bind("127.0.0.1:0").unwrap();
    (
        a.local_addr().unwrap().port(),
        b.local_addr().unwrap().port(),
    )
}

/// `keystorm sim --ports A,B --port-latency B:get=200ms --fault B:internal-error=1
/// --fault-ops delete` and the URLs it announced, one line per port. A port taken between finding it free and the target binding it
/// makes the process exit before announcing anything: then it is tried on two others.
fn start_two_ports() -> (Running, u16, u16, Vec<String>) {
    for _ in 0..5 {
        let (fast, slow) = two_free_ports();
        let mut child = Running(
            sim(&[
                "--ports",
                &format!("{fast},{slow}"),
                "--port-latency",
                &format!("{slow}:get=200ms"),
                "--fault",
                &format!("{slow}:internal-error=1"),
                "--fault-ops",
                "delete",
            ])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
        );
        let mut out = BufReader::new(child.0.stdout.take().unwrap());
        let mut urls = Vec::new();
        for _ in 0..2 {
            let mut line = String::new();
            if out.read_line(&mut line).unwrap() == 0 {
                break;
            }
            let url = line
                .trim()
                .strip_prefix("keystorm sim listening on ")
                .unwrap_or_else(|| panic!("expected a listening line, got {line:?}"));
            urls.push(url.to_string());
        }
        if urls.len() == 2 {
            return (child, fast, slow, urls);
        }
        let status = child.0.wait().unwrap();
        assert_eq!(status.code(), Some(1), "only a taken port is retried");
    }
    panic!("keystorm sim never got two free ports");
}

/// One request on a connection of its own: status and body.
fn http(port: u16, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    let end = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a whole response head");
    let head = String::from_utf8_lossy(&answer[..end]);
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    (status, answer[end + 4..].to_vec())
}

#[test]
fn every_port_serves_one_store_and_only_its_port_is_slowed() {
    let (_sim, fast, slow, urls) = start_two_ports();
    assert_eq!(
        urls,
        [
            format!("http://127.0.0.1:{fast}"),
            format!("http://127.0.0.1:{slow}")
        ]
    );

    assert_eq!(http(fast, "PUT", "/two-ports", b"").0, 200);
    assert_eq!(
        http(fast, "PUT", "/two-ports/k", b"written on one port").0,
        200
    );
    let timed = |port| {
        let began = Instant::now();
        let (status, body) = http(port, "GET", "/two-ports/k", b"");
        assert_eq!(
            (status, body.as_slice()),
            (200, &b"written on one port"[..])
        );
        began.elapsed()
    };
    let through_slow = timed(slow);
    let through_fast = timed(fast);
    assert!(
        through_slow >= Duration::from_millis(200),
        "the slow port's GET took {through_slow:?}"
    );
    assert!(
        through_fast < through_slow,
        "fast port {through_fast:?}, slow port {through_slow:?}"
    );
    // The slow port also writes to the same store.
    assert_eq!(http(slow, "PUT", "/two-ports/k2", b"other").0, 200);
    assert_eq!(
        http(fast, "GET", "/two-ports/k2", b""),
        (200, b"other".to_vec())
    );

    // The target's record: one delay of the port's, at least 200 ms, and no other.
    let (status, body) = http(fast, "GET", "/admin/keystorm/delays", b"");
    assert_eq!(status, 200);
    let delays: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let kinds = delays.as_array().expect("a list of delay kinds");
    assert_eq!(kinds.len(), 1, "{delays}");
    assert_eq!(kinds[0]["kind"], "port", "{delays}");
    assert_eq!(kinds[0]["count"], 1, "{delays}");
    assert!(
        kinds[0]["drawn_us"]["min"].as_u64().unwrap() >= 199_000,
        "{delays}"
    );
}

/// The JSON answer of an admin call that succeeds.
fn admin(port: u16, method: &str, path: &str) -> serde_json::Value {
    let (status, body) = http(port, method, path, b"");
    let text = String::from_utf8_lossy(&body);
    assert_eq!(status, 200, "{method} {path}: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"))
}

#[test]
fn a_port_fails_alone_and_is_taken_down_and_back_through_the_admin_api() {
    let (_sim, fast, slow, _) = start_two_ports();
    assert_eq!(http(fast, "PUT", "/gateway", b"").0, 200);
    for key in ["a", "b"] {
        let path = format!("/gateway/{key}");
        assert_eq!(http(slow, "PUT", &path, b"v").0, 200);
    }
    // Only the failing port's deletes fail.
    assert_eq!(http(slow, "DELETE", "/gateway/a", b"").0, 500);
    assert_eq!(http(fast, "DELETE", "/gateway/a", b"").0, 204);

    let closed = admin(fast, "POST", &format!("/admin/keystorm/ports/{slow}/close"));
    assert_eq!(closed["open"], false, "{closed}");
    let refused = TcpStream::connect(("127.0.0.1", slow)).map_err(|e| e.kind());
    assert_eq!(
        refused.err(),
        Some(std::io::ErrorKind::ConnectionRefused),
        "the closed port takes no connection"
    );
    assert_eq!(http(fast, "GET", "/gateway/b", b""), (200, b"v".to_vec()));
    let reopened = admin(
        fast,
        "POST",
        &format!("/admin/keystorm/ports/{slow}/reopen"),
    );
    assert_eq!(reopened["open"], true, "{reopened}");
    assert_eq!(http(slow, "GET", "/gateway/b", b"").0, 200);

    // Each port's requests add up to the target's, and its faults are its own.
    let ports = admin(fast, "GET", "/admin/keystorm/ports");
    let ports = ports.as_array().unwrap();
    let numbers: Vec<u64> = ports.iter().map(|p| p["port"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [u64::from(fast), u64::from(slow)]);
    let all = admin(fast, "GET", "/admin/keystorm/requests");
    for (op, total) in all.as_object().unwrap() {
        let per_port: u64 = ports
            .iter()
            .map(|p| p["requests"][op].as_u64().unwrap())
            .sum();
        assert_eq!(Some(per_port), total.as_u64(), "{op}");
    }
    assert_eq!(ports[1]["requests"]["DeleteObject"], 1);
    assert_eq!(ports[1]["requests_total"], 4);
    assert_eq!(ports[1]["injected"]["internal_error"], 1);
    assert_eq!(ports[0]["injected"]["internal_error"], 0);
    let faults = admin(fast, "GET", "/admin/keystorm/faults");
    assert_eq!(faults["ops"]["delete"]["internal_error"], 1, "{faults}");
}

#[test]
fn a_port_latency_for_a_port_not_listened_on_exits_2_naming_it() {
    let finished = |mut c: Command| {
        let mut child = Running(
            c.stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let began = Instant::now();
        let status = loop {
            if let Some(s) = child.0.try_wait().unwrap() {
                break s;
            }
            assert!(began.elapsed() < DEADLINE, "keystorm sim did not exit");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stdout = String::new();
        let mut stderr = String::new();
        child
            .0
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        child
            .0
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (status.code(), stdout, stderr)
    };

    let (code, stdout, stderr) = finished(sim(&[
        "--ports",
        "19001,19002",
        "--port-latency",
        "19003:get=200ms",
    ]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty(), "nothing listened: {stdout}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("19003") && stderr.contains("--ports 19001,19002"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    let (code, _, stderr) = finished(sim(&["--port", "19001", "--ports", "19002"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--port"), "{stderr}");
}
