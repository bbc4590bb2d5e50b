//! The agent link as a boundary, against `keystorm serve` as a process of its own: the
//! names the controller keeps for its own files are refused with 400 on the part routes
//! (never 500) and a controller killed afterwards still picks its run up; part uploads
//! past the per-file or per-run cap are refused with 413 JSON naming the cap and its
//! flag, writing nothing, the run's total counted again after a restart; agent names
//! and hosts out of bounds (too long, control characters, invisible format characters
//! and line separators) are refused at registration and never shown; and a real agent
//! whose copy passes a cap says so once and reports it at its shard's end.

mod fleet_support;
mod process_support;

use std::path::Path;
use std::process::Stdio;

use fleet_support::stand_in::{StandIn, json, refusal_of, register};
use fleet_support::{Agent, Controller, start_serving};
use process_support::{keystorm, kill_9, read_json, start_sim, wait_for, workload, write_workload};

/// `keystorm serve --port 0 --results RESULTS ARGS...`, once it says where it serves.
fn serve(results: &Path, args: &[&str]) -> Controller {
    let mut all = vec!["--results", results.to_str().unwrap()];
    all.extend_from_slice(args);
    start_serving(&all)
}

/// A run split over stand-ins named `names` (sorted: shard I is the I-th's), which
/// never run it (its target is nowhere): the stand-ins and the run's id.
fn run_on_stand_ins(url: &str, names: &[&str]) -> (Vec<StandIn>, String) {
    assert!(names.is_sorted(), "{names:?}");
    let agents: Vec<StandIn> = names.iter().map(|n| StandIn::register(url, n)).collect();
    // Each heard just now, so the run takes it.
    for agent in &agents {
        assert_eq!(agent.heartbeat(serde_json::json!({ "sent_ms": 1 })).0, 200);
    }
    let yaml = "name: link\ntarget: { endpoint: embedded }\nbuckets: { names: [link] }\n\
                objects: { size: 1KiB }\n\
                before:\n  - { name: fill, op: put, concurrency: 1, until_objects: 10 }\n";
    let (status, started) = json(
        url,
        "POST",
        "/api/runs",
        serde_json::json!({
            "yaml": yaml, "agents": names.len(), "endpoint": "http://127.0.0.1:9"
        }),
    );
    assert_eq!(status, 201, "{started}");
    (agents, started["run_id"].as_str().unwrap().to_string())
}

/// The Agents page's view.
fn agents_view(url: &str) -> serde_json::Value {
    let (status, view) = json(url, "GET", "/api/agents", serde_json::Value::Null);
    assert_eq!(status, 200);
    view
}

/// The controller killed with SIGKILL and started again on `results`, the run picked
/// up; the agents `names` registered again (each gets its shard back): the stand-ins,
/// in the order of `names`.
fn kill_and_start_again(
    controller: &mut Controller,
    results: &Path,
    args: &[&str],
    run: &str,
    names: &[&str],
) -> (Controller, Vec<StandIn>) {
    kill_9(&mut controller.child);
    let again = serve(results, args);
    let view = agents_view(&again.url);
    assert_eq!(view["run"]["run_id"], run, "{view}");
    assert_eq!(view["run"]["state"], "running", "{view}");
    let agents = names
        .iter()
        .map(|n| StandIn::register(&again.url, n))
        .collect();
    (again, agents)
}

#[test]
fn the_controllers_own_names_are_refused_and_a_restarted_controller_picks_the_run_up() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let mut controller = serve(&results, &[]);
    let url = controller.url.clone();
    let (agents, run) = run_on_stand_ins(&url, &["a"]);
    let a = &agents[0];
    let base = a.part(&run, "");
    let refusal = |method: &str, path: &str, body: &[u8]| refusal_of(a.call(method, path, body));
    for place in [
        "fleet-run.json.tmp/x",
        "fleet-run.json/x",
        "fleet-run.json.unreadable/x",
        "parts/x",
        "uploads/x",
        "local-0/fleet-run.json",
        "local-0/fleet-run.json.tmp",
    ] {
        for (method, path) in [
            ("PUT", format!("{base}{place}")),
            ("PUT", format!("{base}{place}?offset=0")),
            ("GET", format!("{base}{place}")),
        ] {
            let (status, code, detail) = refusal(method, &path, b"{}");
            assert_eq!(
                (status, code.as_str()),
                (400, "bad_request"),
                "{path}: {detail}"
            );
            assert!(
                detail.contains("keeps this name for its own files"),
                "{detail}"
            );
        }
    }
    for local in ["fleet-run.json", "parts", "uploads"] {
        assert_eq!(refusal("GET", &format!("{base}{local}"), b"").0, 400);
    }
    for (path, said) in [
        (format!("{base}.hidden/x"), "plain name"),
        (format!("{base}local-0/.x"), "plain name"),
    ] {
        let (status, _, detail) = refusal("PUT", &path, b"{}");
        assert_eq!(status, 400, "{path}");
        assert!(detail.contains(said), "{detail}");
    }
    // What an agent does send is kept, apart from the controller's record.
    let (status, _) = a.call("PUT", &format!("{base}local-0/manifest.json"), b"{}");
    assert_eq!(status, 204);
    // Killed and started again, the controller picks the run up, and the copy is the
    // agent's again.
    let (_again, agents) = kill_and_start_again(&mut controller, &results, &[], &run, &["a"]);
    assert_eq!(
        agents[0].listing(&run, "local-0"),
        [("manifest.json".to_string(), 2)]
    );
}

#[test]
fn part_uploads_past_a_cap_are_refused_with_413_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let caps = [
        "--max-shard-file-size",
        "1000B",
        "--max-run-copy-size",
        "2500B",
    ];
    let mut controller = serve(&results, &caps);
    let names = ["a", "b", "c"];
    let (agents, run) = run_on_stand_ins(&controller.url, &names);
    // File `path` of shard `shard`'s folder `l<shard>`, sent by its agent.
    let put = |agents: &[StandIn], shard: usize, path: &str, bytes: usize| {
        let agent = &agents[shard];
        let (status, text) = agent.call(
            "PUT",
            &agent.part(&run, &format!("l{shard}/{path}")),
            &vec![b'x'; bytes],
        );
        let error = serde_json::from_str::<serde_json::Value>(&text).unwrap_or_default();
        (status, error["error"].to_string(), text)
    };
    // A whole file larger than a file may be.
    let (status, code, said) = put(&agents, 0, "summary.json", 1001);
    assert_eq!(
        (status, code.as_str()),
        (413, "\"file_over_cap\""),
        "{said}"
    );
    assert!(said.contains("--max-shard-file-size"), "{said}");
    // A log's piece that would take it past the cap writes nothing.
    assert_eq!(put(&agents, 0, "events.jsonl?offset=0", 800).0, 204);
    let (status, code, said) = put(&agents, 0, "events.jsonl?offset=800", 201);
    assert_eq!(
        (status, code.as_str()),
        (413, "\"file_over_cap\""),
        "{said}"
    );
    assert_eq!(
        agents[0].listing(&run, "l0"),
        [("events.jsonl".to_string(), 800)]
    );
    assert_eq!(put(&agents, 0, "events.jsonl?offset=800", 200).0, 204);
    // The run's copies together: 1000 + 1000 held, 600 more is past 2500.
    assert_eq!(put(&agents, 1, "events.jsonl", 1000).0, 204);
    let (status, code, said) = put(&agents, 2, "events.jsonl?offset=0", 600);
    assert_eq!((status, code.as_str()), (413, "\"run_over_cap\""), "{said}");
    assert!(said.contains("--max-run-copy-size"), "{said}");
    let (status, code, _) = put(&agents, 2, "summary.json", 600);
    assert_eq!((status, code.as_str()), (413, "\"run_over_cap\""));
    assert!(agents[2].listing(&run, "l2").is_empty());
    // Started again, the controller counts what it holds from disk.
    let (_again, agents) = kill_and_start_again(&mut controller, &results, &caps, &run, &names);
    assert_eq!(put(&agents, 2, "summary.json", 501).0, 413);
    assert_eq!(put(&agents, 2, "summary.json", 500).0, 204);
}

#[test]
fn agent_names_and_hosts_out_of_bounds_are_refused_and_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let controller = serve(&dir.path().join("results"), &[]);
    let url = controller.url.as_str();
    let long = "h".repeat(200_000);
    for (name, host, said) in [
        (".", "h", "not only dots"),
        ("..", "h", "not only dots"),
        ("...", "h", "not only dots"),
        ("a", long.as_str(), "at most 255 characters"),
        ("a", "evil\u{1b}[31m", "control character"),
        ("a", "two\nlines", "control character"),
        // Invisible, they would make the Agents page show what is not there.
        ("a", "exe\u{202e}txt.example", "invisible format character"),
        ("a", "client\u{200b}-a", "invisible format character"),
        ("a", "line\u{2028}separator", "line separator"),
    ] {
        let (status, answer) = register(url, name, host);
        assert_eq!(status, 400, "{answer}");
        assert_eq!(answer["error"], "bad_request");
        let detail = answer["detail"].as_str().unwrap();
        assert!(detail.contains(said) && detail.len() < 400, "{detail}");
        assert!(keystorm_types::text::printable(detail), "{detail:?}");
    }
    assert_eq!(register(url, "a", &"h".repeat(255)).0, 200);
    let view = agents_view(url);
    let agents = view["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 1, "{view}");
    assert_eq!(agents[0]["name"], "a");
    assert_eq!(agents[0]["host"], "h".repeat(255));
    let shown = view.to_string();
    assert!(
        !shown.contains(['\u{202e}', '\u{200b}', '\u{2028}']),
        "{shown:?}"
    );
    // The agent itself says so at start, before dialling.
    for name in ["..", "."] {
        let out = keystorm(&["agent", "--controller", url, "--name", name], dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("not only dots"), "{stderr}");
    }
}

#[tokio::test]
async fn an_agent_past_a_cap_says_so_once_and_its_shards_end_reports_it() {
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let controller = serve(
        &dir.path().join("controller"),
        &["--max-shard-file-size", "4KiB"],
    );
    let log = dir.path().join("agent.log");
    let _agent = Agent(
        keystorm(
            &[
                "agent",
                "--controller",
                &controller.url,
                "--name",
                "a",
                "--progress",
                "quiet",
            ],
            &dir.path().join("agent"),
        )
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap(),
    );
    wait_for("the agent", || {
        (agents_view(&controller.url)["agents"].as_array()?.len() == 1).then_some(())
    });
    // Paced to last several seconds: its logs pass 4 KiB within a few.
    let text = workload(
        "capped",
        &sim.endpoint,
        "size: 6B",
        "before:\n  - { name: fill, op: put, concurrency: 2, rate: 400, until_objects: 3000 }\n",
    );
    let wl = write_workload(dir.path(), "capped", &text);
    let out = keystorm(
        &[
            "run",
            wl.to_str().unwrap(),
            "--controller",
            &controller.url,
            "--agents",
            "1",
        ],
        &dir.path().join("cli"),
    )
    .output()
    .unwrap();
    let view = wait_for("the run to end", || {
        let view = agents_view(&controller.url);
        let state = view["run"]["state"].as_str()?.to_string();
        (state == "completed" || state == "failed").then_some(view)
    });
    let said = std::fs::read_to_string(&log).unwrap();
    // Said once while the shard ran, with the controller's reason, not every second.
    assert_eq!(
        said.matches("the controller takes no more of this shard's run folder")
            .count(),
        1,
        "{said}"
    );
    assert!(said.contains("--max-shard-file-size"), "{said}");
    assert!(!said.contains("trying again every second"), "{said}");
    // The shard's end reports it: the shard failed, and the run says why.
    assert_eq!(view["run"]["shards"][0]["state"], "failed", "{view}");
    let warnings = view["run"]["warnings"].to_string();
    assert!(
        warnings.contains("shard 0: the controller's copy of this shard's results is incomplete")
            && warnings.contains("--max-shard-file-size"),
        "{warnings}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The merge holds what was sent, its part closed as a killed run's (never left
    // saying it runs).
    let run_id = view["run"]["run_id"].as_str().unwrap();
    let merged = read_json(
        &dir.path()
            .join("controller")
            .join(run_id)
            .join("manifest.json"),
    )
    .unwrap();
    assert_eq!(merged["merged_from"][0]["status"], "killed", "{merged}");
    assert_eq!(merged["status"], "killed", "{merged}");
}
