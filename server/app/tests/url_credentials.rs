//! An endpoint with `user:password@` in it is refused wherever an endpoint comes in —
//! the workload (`validate`, `run`), `run --endpoint`, the API's `endpoint`, an agent's
//! `--endpoint`, `diff`, `list`, `download`, `upload`, `serve --default-endpoint`, and a
//! controller's URL — with the one message that says where keys go, the password never
//! repeated and nothing stored.

mod process_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Stdio;

use process_support::{BIN, keystorm, spawn_announcing, start_sim, write_workload};

const PASSWORD: &str = "secretpw-0009";

/// The one message of every refusal.
const WHERE_KEYS_GO: &str = "keystorm never takes keys from a URL";

fn assert_refused(label: &str, out: &std::process::Output, message: &str) {
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(2), "{label}: {said}");
    assert!(said.contains(message), "{label}: {said}");
    assert!(!said.contains(PASSWORD), "{label}: {said}");
}

#[test]
fn user_info_in_an_endpoint_is_refused_everywhere_in_one_message() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let results = home.join("results");
    let sim = start_sim(&[]);
    let plain = sim.endpoint.clone();
    let with_password = plain.replace("http://", &format!("http://user:{PASSWORD}@"));
    let workload = |endpoint: &str| {
        format!(
            "name: url\ntarget: {{ endpoint: \"{endpoint}\" }}\nbuckets: {{ names: [url] }}\n\
             objects: {{ size: 16B }}\nbefore:\n  - {{ name: fill, op: put, operations: 5 }}\n"
        )
    };
    let in_workload = write_workload(home, "in-workload", &workload(&with_password));
    let fine = write_workload(home, "fine", &workload(&plain));
    let download_to = home.join("download");
    let upload_from = home.join("upload");
    std::fs::create_dir_all(&upload_from).unwrap();
    let commands: Vec<(&str, Vec<String>)> = vec![
        (
            "validate",
            vec!["validate".into(), in_workload.display().to_string()],
        ),
        ("run", vec!["run".into(), in_workload.display().to_string()]),
        (
            "run --endpoint",
            vec![
                "run".into(),
                fine.display().to_string(),
                "--endpoint".into(),
                with_password.clone(),
            ],
        ),
        (
            "list",
            vec![
                "list".into(),
                "url".into(),
                "--endpoint".into(),
                with_password.clone(),
            ],
        ),
        (
            "diff",
            vec![
                "diff".into(),
                "s3://url/".into(),
                "s3://other/".into(),
                "--endpoint".into(),
                with_password.clone(),
            ],
        ),
        (
            "download",
            vec![
                "download".into(),
                "url".into(),
                download_to.display().to_string(),
                "--endpoint".into(),
                with_password.clone(),
            ],
        ),
        (
            "upload",
            vec![
                "upload".into(),
                upload_from.display().to_string(),
                "url".into(),
                "--endpoint".into(),
                with_password.clone(),
            ],
        ),
        (
            "agent --endpoint",
            vec![
                "agent".into(),
                "--controller".into(),
                "http://127.0.0.1:9".into(),
                "--endpoint".into(),
                with_password.clone(),
            ],
        ),
        (
            "serve --default-endpoint",
            vec![
                "serve".into(),
                "--port".into(),
                "0".into(),
                "--default-endpoint".into(),
                with_password.clone(),
            ],
        ),
    ];
    for (label, args) in &commands {
        let mut command = std::process::Command::new(BIN);
        command
            .args(args)
            .env("AWS_ACCESS_KEY_ID", "any")
            .env("AWS_SECRET_ACCESS_KEY", "any");
        if ["run", "agent", "serve"].contains(&args[0].as_str()) {
            command.arg("--results").arg(&results);
        }
        let out = command.output().unwrap();
        assert_refused(label, &out, WHERE_KEYS_GO);
    }
    // A controller's URL: its token goes elsewhere.
    for args in [
        vec!["agent", "--controller"],
        vec![
            "run",
            fine.to_str().unwrap(),
            "--agents",
            "1",
            "--controller",
        ],
    ] {
        let mut args = args;
        let controller = format!("http://user:{PASSWORD}@127.0.0.1:9");
        args.push(&controller);
        let out = keystorm(&args, &results).output().unwrap();
        assert_refused(&args.join(" "), &out, "KEYSTORM_TOKEN or --token-file");
    }
    assert!(!results.exists(), "nothing is stored");

    // The API's `endpoint`.
    let (mut child, url) = spawn_announcing(
        keystorm(&["serve", "--port", "0", "--workloads", "."], &results).stderr(Stdio::null()),
        "keystorm serving ",
    );
    let body = serde_json::json!({
        "yaml": std::fs::read_to_string(&fine).unwrap(),
        "endpoint": with_password,
    })
    .to_string();
    let answer = post(url.trim_start_matches("http://"), "/api/runs", &body);
    let _ = child.kill();
    let _ = child.wait();
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains(WHERE_KEYS_GO), "{answer}");
    assert!(!answer.contains(PASSWORD), "{answer}");
    assert!(no_run_under(&results), "nothing is stored");
}

fn post(addr: &str, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

fn no_run_under(results: &Path) -> bool {
    std::fs::read_dir(results).map_or(true, |entries| {
        entries
            .filter_map(Result::ok)
            .all(|e| e.file_name().to_string_lossy().starts_with('.'))
    })
}
