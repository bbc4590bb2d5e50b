//! No secret leaves the process that needs it. A distinct secret is planted in every
//! place a workload can hold one — the target's access key, secret key and session
//! token, the RGW admin access and secret key, one quoted again in a comment — and the
//! environment holds the keys of a second workload's run. Both run with `keystorm run`
//! against `keystorm sim` (which verifies the signatures, so the keys are the ones
//! used) and through the API of `keystorm serve`; then every file of both results
//! folders, every answer the API gave and everything the processes printed (their logs
//! at debug level included) is searched for each secret: none may be found.
//!
//! A secret's value anywhere but under `credentials` — a description (directly or as
//! the anchor of a key's alias), a phase name, a bucket, a label, the notes — is refused
//! wherever it comes in (`validate`, `run`, the API's validate, start and edit), at the
//! value, before anything is written and without repeating the value; so is a phase
//! named after an RGW admin key the run reads from its environment, once the run knows
//! it, and an agent whose name or host holds a key of the controller.
//!
//! A resumed run whose stored workload had inline keys says what to give, and signs
//! with the environment's keys when they are given.

mod process_support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use process_support::{
    BIN, Sim, interrupt, spawn_announcing, start_sim, summary_rows, the_run, wait_for,
    wait_for_checkpoint, write_workload,
};

const TARGET_ACCESS: &str = "AKIATARGETACCESS0001";
const TARGET_SECRET: &str = "target-secret-key-0002/xyz";
const TARGET_TOKEN: &str = "target-session-token-0003+abc=";
const ADMIN_ACCESS: &str = "ADMINACCESSKEY0004";
const ADMIN_SECRET: &str = "admin-secret-key-behind-alias-0005";
const ENV_ACCESS: &str = "ENVACCESSKEY0006";
const ENV_SECRET: &str = "env-secret-key-0007";
const ENV_TOKEN: &str = "env-session-token-0008";

const SECRETS: [&str; 8] = [
    TARGET_ACCESS,
    TARGET_SECRET,
    TARGET_TOKEN,
    ADMIN_ACCESS,
    ADMIN_SECRET,
    ENV_ACCESS,
    ENV_SECRET,
    ENV_TOKEN,
];

/// `keystorm sim` verifying signatures made with these keys.
fn signing_sim(access: &str, secret: &str) -> Sim {
    start_sim(&["--access-key", access, "--secret-key", secret])
}

/// Every inline secret of the format, quoted two ways, one a folded block scalar, one in
/// a comment.
fn inline_workload(name: &str, endpoint: &str, phase: &str) -> String {
    format!(
        "# keys rotated from {TARGET_SECRET} last week
name: {name}
description: the inline keys of every kind
target:
  endpoint: \"{endpoint}\"
  credentials:
    access_key: {TARGET_ACCESS}
    secret_key: \"{TARGET_SECRET}\"
    session_token: >-
      {TARGET_TOKEN}
  rgw:
    poll: 200ms
    admin:
      credentials: {{ access_key: {ADMIN_ACCESS}, secret_key: '{ADMIN_SECRET}' }}
buckets: {{ names: [{name}] }}
objects: {{ size: 16B }}
checkpoint_every: 1s
before:
  - {phase}
"
    )
}

/// A workload signing with the environment's keys (a comment quotes them).
fn env_workload(name: &str, endpoint: &str) -> String {
    format!(
        "# signs as {ENV_ACCESS} with {ENV_SECRET} and {ENV_TOKEN}
name: {name}
description: signs with the keys of the environment
target: {{ endpoint: \"{endpoint}\" }}
buckets: {{ names: [{name}] }}
objects: {{ size: 16B }}
before:
  - {{ name: fill, op: put, concurrency: 2, until_objects: 40 }}
"
    )
}

/// A store that refuses every object write and listing and names in its error message
/// the access key the request was signed with, as some S3 services do; a bucket's HEAD
/// succeeds.
fn echoing_store() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer_echoing(stream));
        }
    });
    endpoint
}

fn answer_echoing(mut stream: TcpStream) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let key = head
        .split("Credential=")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_default();
    let request_line = head.lines().next().unwrap_or_default();
    let (status, body) = if request_line.starts_with("PUT ") || request_line.contains('?') {
        (
            "403 Forbidden",
            format!(
                "<?xml version=\"1.0\"?><Error><Code>InvalidAccessKeyId</Code><Message>The \
                 Access Key Id {key} does not exist in our records.</Message></Error>"
            ),
        )
    } else {
        ("200 OK", String::new())
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
}

/// A workload writing to the echoing store with the environment's keys.
fn echo_workload(endpoint: &str) -> String {
    format!(
        "name: secrets-echo
target: {{ endpoint: \"{endpoint}\" }}
buckets: {{ names: [secrets-echo], create: false }}
objects: {{ size: 16B }}
before:
  - {{ name: refused, op: put, concurrency: 1, operations: 10 }}
"
    )
}

/// `keystorm -vv ARGS...` with the environment's keys set (and no other AWS settings).
fn keystorm(args: &[&str], home: &Path) -> Command {
    let mut command = Command::new(BIN);
    command
        .arg("-vv")
        .args(args)
        .env("AWS_ACCESS_KEY_ID", ENV_ACCESS)
        .env("AWS_SECRET_ACCESS_KEY", ENV_SECRET)
        .env("AWS_SESSION_TOKEN", ENV_TOKEN)
        .env_remove("AWS_PROFILE")
        .env_remove("KEYSTORM_TOKEN")
        .env("HOME", home)
        .env("AWS_CONFIG_FILE", home.join("no-config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", home.join("no-credentials"));
    command
}

/// What a command printed, labelled, after checking it ended with `code`.
fn printed(label: &str, out: &Output, code: i32) -> (String, String) {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(code), "{label}: {text}");
    (label.to_string(), text)
}

/// One HTTP/1.0 exchange with the server at `addr`: the status and the whole answer
/// (head and body).
fn http(addr: &str, method: &str, path: &str, body: Option<&serde_json::Value>) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

fn json_body(answer: &str) -> serde_json::Value {
    let (_, body) = answer.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// `keystorm serve` with its log written to a file; killed when dropped.
struct Server {
    child: Child,
    addr: String,
    answers: Vec<(String, String)>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `keystorm serve` of these folders with the environment's keys, its standard error
    /// to `stderr`.
    fn start(home: &Path, workloads: &Path, results: &Path, stderr: Stdio) -> Server {
        let mut command = keystorm(
            &[
                "serve",
                "--port",
                "0",
                "--workloads",
                workloads.to_str().unwrap(),
                "--results",
                results.to_str().unwrap(),
            ],
            home,
        );
        command.stderr(stderr);
        let (child, url) = spawn_announcing(&mut command, "keystorm serving ");
        Server {
            child,
            addr: url.trim_start_matches("http://").to_string(),
            answers: Vec::new(),
        }
    }

    /// Sends a request, keeps its answer for the search, and returns it.
    fn call(&mut self, method: &str, path: &str, body: Option<serde_json::Value>) -> (u16, String) {
        let (status, answer) = http(&self.addr, method, path, body.as_ref());
        self.answers
            .push((format!("{method} {path}"), answer.clone()));
        (status, answer)
    }

    /// Starts workload `name` and reads everything the API has to say of its run.
    fn run_and_read(&mut self, name: &str) {
        let (status, answer) = self.call(
            "POST",
            "/api/runs",
            Some(serde_json::json!({ "workload": name })),
        );
        assert_eq!(status, 201, "{answer}");
        let id = json_body(&answer)["run_id"].as_str().unwrap().to_string();
        // The live stream, from the start to the run's end.
        let (status, events) = self.call("GET", &format!("/api/runs/{id}/events"), None);
        assert_eq!(status, 200, "{events}");
        assert!(events.contains("event: finished"), "{events}");
        let detail = wait_for("the run to end", || {
            let (_, answer) = http(&self.addr, "GET", &format!("/api/runs/{id}"), None);
            let detail = json_body(&answer);
            (detail["manifest"]["status"] != "running").then_some(detail)
        });
        assert_eq!(detail["manifest"]["status"], "completed", "{detail}");
        for path in [
            format!("/api/runs/{id}"),
            "/api/runs".to_string(),
            format!("/api/runs/{id}/events"),
            format!("/api/runs/{id}/intervals"),
            format!("/api/runs/{id}/index"),
            format!("/api/runs/{id}/listings"),
            format!("/api/runs/{id}/export/summary.csv"),
            format!("/api/runs/{id}/export/intervals.csv"),
            format!("/api/runs/{id}/export/histograms.hlog"),
            "/api/status".to_string(),
        ] {
            let (status, answer) = self.call("GET", &path, None);
            assert_eq!(status, 200, "{path}: {answer}");
        }
        // The offline report is there when the web UI was built into this binary.
        let (status, answer) =
            self.call("GET", &format!("/api/runs/{id}/export/report.html"), None);
        assert!(
            status == 200 || (status == 404 && answer.contains("report_not_built")),
            "{answer}"
        );
    }
}

/// Every file under `dir`, read as text.
fn files_under(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.push((
                    path.display().to_string(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                ));
            }
        }
    }
    out
}

/// Fails naming every place that holds a secret.
fn assert_no_secret_in(texts: &[(String, String)]) {
    let leaks: Vec<String> = texts
        .iter()
        .flat_map(|(place, text)| {
            SECRETS
                .iter()
                .filter(|s| text.contains(**s))
                .map(move |s| format!("{s} in {place}"))
        })
        .collect();
    assert!(leaks.is_empty(), "secrets found:\n{}", leaks.join("\n"));
}

#[test]
fn no_secret_reaches_results_answers_or_logs() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let inline_sim = signing_sim(TARGET_ACCESS, TARGET_SECRET);
    let env_sim = signing_sim(ENV_ACCESS, ENV_SECRET);
    let fill = "{ name: fill, op: put, concurrency: 2, until_objects: 40 }";
    let inline_text = inline_workload("secrets-inline", &inline_sim.endpoint, fill);
    let env_text = env_workload("secrets-env", &env_sim.endpoint);
    let echo_text = echo_workload(&echoing_store());
    let workloads = home.join("workloads");
    std::fs::create_dir_all(&workloads).unwrap();
    let mut texts = Vec::new();

    // The command line.
    let cli_results = home.join("cli-results");
    let results = cli_results.to_str().unwrap();
    for (name, text) in [
        ("inline", &inline_text),
        ("env", &env_text),
        ("echo", &echo_text),
    ] {
        let file = write_workload(home, name, text);
        let out = keystorm(&["run", file.to_str().unwrap(), "--results", results], home)
            .output()
            .unwrap();
        texts.push(printed(&format!("keystorm run {name}"), &out, 0));
    }
    // The target verified every request: the keys were the ones planted.
    for name in ["secrets-inline", "secrets-env"] {
        let rows = summary_rows(&the_run_named(&cli_results, name));
        assert_eq!(
            (rows[0]["ops"].as_u64(), rows[0]["errors"].as_u64()),
            (Some(40), Some(0))
        );
    }
    let inline_run = the_run_named(&cli_results, "secrets-inline");
    let inline_id = inline_run.file_name().unwrap().to_str().unwrap();
    for args in [
        vec!["ls", "--results", results],
        vec!["show", inline_id, "--results", results],
    ] {
        let out = keystorm(&args, home).output().unwrap();
        texts.push(printed(&format!("keystorm {}", args[0]), &out, 0));
    }
    // A command that talks to a bucket itself, refused by the store.
    let out = keystorm(
        &[
            "list",
            "secrets-echo",
            "--endpoint",
            echo_text.split('"').nth(1).unwrap(),
        ],
        home,
    )
    .output()
    .unwrap();
    let refused = printed("keystorm list", &out, 1);
    assert!(refused.1.contains("<redacted>"), "{}", refused.1);
    texts.push(refused);
    // A run on agents is refused before the text leaves the machine.
    let out = keystorm(
        &[
            "run",
            home.join("inline.yaml").to_str().unwrap(),
            "--controller",
            "http://127.0.0.1:9",
            "--agents",
            "1",
        ],
        home,
    )
    .output()
    .unwrap();
    let refused = printed("keystorm run --controller", &out, 2);
    assert!(refused.1.contains("sends no keys"), "{}", refused.1);
    texts.push(refused);

    // The API.
    let serve_results = home.join("serve-results");
    let log = std::fs::File::create(home.join("serve.log")).unwrap();
    let mut server = Server::start(home, &workloads, &serve_results, Stdio::from(log));
    for (name, text) in [
        ("secrets-inline", &inline_text),
        ("secrets-env", &env_text),
        ("secrets-echo", &echo_text),
    ] {
        let (status, answer) = server.call(
            "PUT",
            &format!("/api/workloads/{name}"),
            Some(serde_json::json!({ "text": text })),
        );
        assert_eq!(status, 201, "{answer}");
        server.call("GET", &format!("/api/workloads/{name}"), None);
        let (status, answer) = server.call(
            "POST",
            "/api/workloads/validate",
            Some(serde_json::json!({ "text": text })),
        );
        assert_eq!(status, 200, "{answer}");
    }
    server.call("GET", "/api/workloads", None);
    // An error that quotes a value of the text: the bucket name is a key.
    let bad = inline_text.replace(
        "names: [secrets-inline]",
        &format!("names: [{TARGET_ACCESS}]"),
    );
    let (_, answer) = server.call(
        "POST",
        "/api/workloads/validate",
        Some(serde_json::json!({ "text": bad })),
    );
    assert!(answer.contains("bad bucket name"), "{answer}");
    let (status, _) = server.call(
        "POST",
        "/api/runs",
        Some(serde_json::json!({ "yaml": bad })),
    );
    assert_eq!(status, 422);
    // Runs on agents: inline target keys and inline admin keys are refused.
    let (status, answer) = server.call(
        "POST",
        "/api/runs",
        Some(serde_json::json!({ "yaml": inline_text, "agents": 1 })),
    );
    assert_eq!(status, 422, "{answer}");
    let admin_only = env_text.replace(
        "target: {",
        &format!(
            "target: {{ rgw: {{ admin: {{ credentials: {{ access_key: {ADMIN_ACCESS}, \
             secret_key: {ADMIN_SECRET} }} }} }},"
        ),
    );
    let (status, answer) = server.call(
        "POST",
        "/api/runs",
        Some(serde_json::json!({ "yaml": admin_only, "agents": 1 })),
    );
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer.contains("RGW admin keys inline") && answer.contains("shard 0"),
        "{answer}"
    );
    server.run_and_read("secrets-inline");
    server.run_and_read("secrets-env");
    server.run_and_read("secrets-echo");
    let answers = std::mem::take(&mut server.answers);
    drop(server);

    texts.extend(files_under(&cli_results));
    texts.extend(files_under(&serve_results));
    texts.extend(answers);
    let server_log = std::fs::read_to_string(home.join("serve.log")).unwrap();
    assert!(
        server_log.contains("DEBUG"),
        "the server logged at debug level: {server_log}"
    );
    texts.push(("the server's log".to_string(), server_log));
    assert_no_secret_in(&texts);
    // The store's refusals were told, the key they named redacted.
    let echo_events =
        std::fs::read_to_string(the_run_named(&serve_results, "secrets-echo").join("events.jsonl"))
            .unwrap();
    assert!(
        echo_events.contains("The Access Key Id <redacted> does not exist"),
        "{echo_events}"
    );
    // The stored workload says where the secrets were.
    let inline_run = the_run_named(&serve_results, "secrets-inline");
    let stored = std::fs::read_to_string(inline_run.join("workload.yaml")).unwrap();
    assert!(
        stored.contains("# keys rotated from <redacted> last week")
            && stored.contains("access_key: <redacted>"),
        "{stored}"
    );
}

/// A workload with `secret` planted out of place by `plant`: each is refused with exit
/// code 2 by `validate` and `run`, at the value, and nothing is written.
fn refused_by_the_command_line(
    home: &Path,
    label: &str,
    text: &str,
    at: &str,
) -> Vec<(String, String)> {
    let file = write_workload(home, label, text);
    let results = home.join(format!("{label}-results"));
    let mut said = Vec::new();
    for args in [
        vec!["validate", file.to_str().unwrap()],
        vec![
            "run",
            file.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ],
    ] {
        let out = keystorm(&args, home).output().unwrap();
        let (place, text) = printed(&format!("keystorm {} {label}", args[0]), &out, 2);
        assert!(
            text.contains(&format!("{}:{at}", file.display()))
                && text.contains("holds the value of a secret"),
            "{place}: {text}"
        );
        said.push((place, text));
    }
    assert!(!results.exists(), "{label}: nothing is written");
    said
}

#[test]
fn a_secret_out_of_place_is_refused_wherever_it_comes_in() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sim = start_sim(&[]);
    let endpoint = &sim.endpoint;
    let mut texts = Vec::new();
    let fill = "  - { name: fill, op: put, concurrency: 2, until_objects: 10 }\n";
    let base = |name: &str| {
        format!(
            "name: {name}\ntarget: {{ endpoint: \"{endpoint}\" }}\nbuckets: {{ names: [{name}] }}\n\
             objects: {{ size: 16B }}\n"
        )
    };
    // An inline key anchored in the description and used through an alias.
    let anchored = format!(
        "name: anchored\ndescription: &s {ADMIN_SECRET}\ntarget:\n  endpoint: \"{endpoint}\"\n  \
         credentials: {{ access_key: {ADMIN_ACCESS}, secret_key: *s }}\nbuckets: {{ names: \
         [anchored] }}\nbefore:\n{fill}"
    );
    texts.extend(refused_by_the_command_line(
        home, "anchored", &anchored, "2:17",
    ));
    // The environment's keys as a phase name and inside a bucket name.
    let phase = format!(
        "{}before:\n  - {{ name: {ENV_ACCESS}, op: put, operations: 5 }}\n",
        base("phase")
    );
    texts.extend(refused_by_the_command_line(home, "phase", &phase, "6:13"));
    let bucket = format!("name: bucket\nbuckets: {{ names: [b-{ENV_SECRET}] }}\nbefore:\n{fill}");
    texts.extend(refused_by_the_command_line(home, "bucket", &bucket, "2:20"));
    // A label.
    let plain = write_workload(home, "plain", &format!("{}before:\n{fill}", base("plain")));
    let results = home.join("label-results");
    let out = keystorm(
        &[
            "run",
            plain.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
            "--label",
            &format!("key={ENV_SECRET}"),
        ],
        home,
    )
    .output()
    .unwrap();
    let refusal = printed("keystorm run --label", &out, 2);
    assert!(
        refusal.1.contains("a label holds the value of a secret"),
        "{}",
        refusal.1
    );
    assert!(!results.exists(), "nothing is written");
    texts.push(refusal);
    // An RGW admin key read from the environment, known once the run has it.
    let admin = format!(
        "name: admin\ntarget:\n  endpoint: \"{endpoint}\"\n  rgw:\n    poll: 200ms\n    admin:\n      \
         credentials: {{ env: {{ access_key: KS_ADMIN_ACCESS, secret_key: KS_ADMIN_SECRET }} }}\n\
         buckets: {{ names: [admin] }}\nobjects: {{ size: 16B }}\nbefore:\n  - {{ name: \
         {ADMIN_ACCESS}, op: put, operations: 5 }}\n"
    );
    let file = write_workload(home, "admin", &admin);
    let results = home.join("admin-results");
    let out = keystorm(
        &[
            "run",
            file.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ],
        home,
    )
    .env("KS_ADMIN_ACCESS", ADMIN_ACCESS)
    .env("KS_ADMIN_SECRET", ADMIN_SECRET)
    .output()
    .unwrap();
    let refusal = printed("keystorm run (admin keys of the environment)", &out, 2);
    assert!(
        refusal.1.contains(&format!("{}:11:13", file.display()))
            && refusal
                .1
                .contains("`before[0].name` holds the value of a secret"),
        "{}",
        refusal.1
    );
    assert!(!results.exists(), "nothing is written");
    texts.push(refusal);

    // The API: validate, start, labels and notes of a finished run.
    let serve_results = home.join("serve-results");
    let out = keystorm(
        &[
            "run",
            plain.to_str().unwrap(),
            "--results",
            serve_results.to_str().unwrap(),
        ],
        home,
    )
    .output()
    .unwrap();
    texts.push(printed("keystorm run plain", &out, 0));
    let id = the_run(&serve_results)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let workloads = home.join("workloads");
    std::fs::create_dir_all(&workloads).unwrap();
    let mut server = Server::start(home, &workloads, &serve_results, Stdio::null());
    for text in [&phase, &bucket, &anchored] {
        let (status, answer) = server.call(
            "POST",
            "/api/workloads/validate",
            Some(serde_json::json!({ "text": text })),
        );
        let verdict = json_body(&answer);
        assert_eq!(
            (status, &verdict["valid"]),
            (200, &serde_json::json!(false)),
            "{answer}"
        );
        let message = verdict["errors"][0]["message"].as_str().unwrap_or_default();
        assert!(message.contains("holds the value of a secret"), "{answer}");
        let (status, answer) = server.call(
            "POST",
            "/api/runs",
            Some(serde_json::json!({ "yaml": text })),
        );
        assert_eq!(status, 422, "{answer}");
    }
    let labelled = serde_json::json!({ "workload": null, "yaml": format!("{}before:\n{fill}", base("api")),
        "labels": { "key": ENV_ACCESS } });
    let (status, answer) = server.call("POST", "/api/runs", Some(labelled));
    assert_eq!(status, 400, "{answer}");
    for edit in [
        serde_json::json!({ "notes": format!("signed as {ENV_ACCESS}") }),
        serde_json::json!({ "labels": { "key": ENV_SECRET } }),
        serde_json::json!({ "labels": { "key": "fine" }, "notes": ENV_TOKEN }),
    ] {
        let (status, answer) = server.call("PATCH", &format!("/api/runs/{id}"), Some(edit));
        assert_eq!(status, 400, "{answer}");
        assert!(answer.contains("holds the value of a secret"), "{answer}");
    }
    // An agent named after a key of the controller, or on a host named so.
    for (name, host) in [(ENV_ACCESS, "h"), ("fine-agent", ENV_SECRET)] {
        let registration = serde_json::json!({
            "name": name, "host": host, "version": env!("CARGO_PKG_VERSION"), "cores": 1
        });
        let (status, answer) = server.call("POST", "/api/agents/register", Some(registration));
        assert_eq!(status, 400, "{answer}");
        assert!(answer.contains("holds the value of a secret"), "{answer}");
    }
    let (status, answer) = server.call("GET", "/api/agents", None);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        json_body(&answer)["agents"],
        serde_json::json!([]),
        "{answer}"
    );
    let (status, answer) = server.call("GET", &format!("/api/runs/{id}"), None);
    assert_eq!(status, 200, "{answer}");
    let info = &json_body(&answer)["info"];
    assert_eq!(
        (&info["notes"], &info["labels"]),
        (&serde_json::json!(""), &serde_json::json!({}))
    );
    assert_eq!(
        std::fs::read_dir(&serve_results).unwrap().count(),
        1,
        "no run was started"
    );
    let answers = std::mem::take(&mut server.answers);
    drop(server);
    texts.extend(answers);
    texts.extend(files_under(&serve_results));
    assert_no_secret_in(&texts);
}

/// The folder of the run of workload `name` under `results`.
fn the_run_named(results: &Path, name: &str) -> PathBuf {
    std::fs::read_dir(results)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().contains(name))
        .unwrap_or_else(|| panic!("no run of {name}"))
}

#[test]
fn a_resume_without_the_inline_keys_says_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let sim = signing_sim(TARGET_ACCESS, TARGET_SECRET);
    let text = inline_workload(
        "secrets-resume",
        &sim.endpoint,
        "{ name: trickle, op: put, concurrency: 2, rate: 50, operations: 400 }",
    );
    let file = write_workload(home, "resume", &text);
    let results = home.join("results");
    let mut child = keystorm(
        &[
            "run",
            file.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
            "--progress",
            "quiet",
        ],
        home,
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let run = the_run(&results);
    wait_for_checkpoint(&run, "a checkpoint inside the phase", |c| {
        c["position"]["operations"].as_u64().is_some_and(|n| n > 0)
    });
    interrupt(&child);
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let id = run.file_name().unwrap().to_str().unwrap().to_string();
    let resume = |keys: Option<(&str, &str)>| {
        let mut command = keystorm(
            &[
                "run",
                "--resume",
                &id,
                "--results",
                results.to_str().unwrap(),
                "--progress",
                "quiet",
            ],
            home,
        );
        command
            .env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY")
            .env_remove("AWS_SESSION_TOKEN");
        if let Some((access, secret)) = keys {
            command
                .env("AWS_ACCESS_KEY_ID", access)
                .env("AWS_SECRET_ACCESS_KEY", secret);
        }
        command.output().unwrap()
    };

    // Without keys: bad input, saying where to give them.
    let (_, said) = printed("resume without keys", &resume(None), 2);
    assert!(
        said.contains("`target.credentials` were inline in the run's workload")
            && said.contains("AWS_ACCESS_KEY_ID")
            && said.contains("workload.yaml"),
        "{said}"
    );
    // With the keys in the environment: the run ends, saying how it signed.
    let out = resume(Some((TARGET_ACCESS, TARGET_SECRET)));
    let (_, said) = printed("resume with keys", &out, 0);
    assert!(
        said.contains("signs with the keys of the environment"),
        "{said}"
    );
    let manifest = process_support::read_json(&run.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "completed");
    assert_eq!(manifest["resumed_at"].as_array().unwrap().len(), 1);
    let mut texts = files_under(&results);
    texts.push(("resume".to_string(), said));
    assert_no_secret_in(&texts);
}

#[test]
fn a_short_key_standing_as_a_word_of_a_name_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    // A short key stands as a word of its own in the bucket name.
    let text = "name: short-keys\ntarget:\n  endpoint: embedded\n  credentials: { access_key: ak, \
                secret_key: sk }\nbuckets: { names: [bucket-ak] }\nobjects: { size: 16B }\nbefore:\n  \
                - { name: fill, op: put, concurrency: 2, until_objects: 10 }\n";
    let said = refused_by_the_command_line(home, "short", text, "5:20");
    assert!(
        said.iter().all(|(_, text)| !text.contains("bucket-ak")),
        "{said:?}"
    );
}
