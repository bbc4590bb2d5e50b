//! One agent cannot act for another, against `keystorm serve` as a process of its own:
//! two agents (stood in for by the test, so it can make the calls a real agent never
//! would) hold the two shards of a run and send genuine shard folders; each then tries
//! the other's folder under its own id (send a file, a piece of a log, fetch a file,
//! list it), the other's id with its own key, and calls without a key, and is refused
//! every time (403, or 404 for an id the controller does not know). The run merges
//! with each shard's folder as its agent sent it, and nothing the other put there.

mod fleet_support;
mod process_support;

use std::path::{Path, PathBuf};

use fleet_support::merged_run;
use fleet_support::stand_in::{StandIn, call, json, refusal_of};
use fleet_support::{Controller, start_serving};
use process_support::{keystorm, start_sim, wait_for, workload, write_workload};

/// The workload each shard runs, against `endpoint`.
fn scope_workload(endpoint: &str) -> String {
    workload(
        "scope",
        endpoint,
        "size: 1KiB",
        "before:\n  - { name: fill, op: put, workers: 2, until_objects: 40 }\n",
    )
}

/// Shard `index` of 2 of `text`, run by `keystorm run --shard` in `dir`: its run
/// folder, as an agent would have it.
fn shard_folder(dir: &Path, text: &str, index: u32) -> PathBuf {
    let wl = write_workload(dir, "scope", text);
    let results = dir.join(format!("local-{index}"));
    let shard = format!("{index}/2");
    let out = keystorm(
        &[
            "run",
            wl.to_str().unwrap(),
            "--shard",
            &shard,
            "--progress",
            "quiet",
        ],
        &results,
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    merged_run(&results)
}

/// The names of the files of `folder`, sorted.
fn files_of(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The name of `folder` (a run id).
fn name_of(folder: &Path) -> String {
    folder.file_name().unwrap().to_string_lossy().into_owned()
}

/// `agent` sends every file of `folder`, as the copy of its shard of `run`.
fn send_folder(agent: &StandIn, run: &str, folder: &Path) {
    let local = name_of(folder);
    for file in files_of(folder) {
        let bytes = std::fs::read(folder.join(&file)).unwrap();
        let path = agent.part(run, &format!("{local}/{file}"));
        let (status, text) = agent.call("PUT", &path, &bytes);
        assert_eq!(status, 204, "{path}: {text}");
    }
}

/// Asserts `answer` is the refusal `status` `code`, and that it names neither `other`'s
/// name nor its key (nor, refusing a folder, its id: only a call naming that id does).
fn assert_refused(answer: (u16, String), status: u16, code: &str, other: &StandIn, name: &str) {
    let (got, error, detail) = refusal_of(answer);
    assert_eq!((got, error.as_str()), (status, code), "{detail}");
    assert!(
        !detail.contains(name) && !detail.contains(&other.key),
        "{detail}"
    );
    if code == "not_shard_folder" {
        assert!(!detail.contains(&other.id), "{detail}");
    }
}

/// `me`, holding shard `mine` of `run`, tries `other`'s folder `theirs` (`other` is
/// named `other_name`) every way it could: under its own id with its own key, under
/// `other`'s id with its own key, and without a key. Each is refused.
fn try_the_others_folder(
    (me, mine): (&StandIn, u32),
    (other, other_name): (&StandIn, &str),
    run: &str,
    theirs: &str,
) {
    let stray = format!("owned-by-{}", me.id);
    let refused = |answer, status, code| assert_refused(answer, status, code, other, other_name);
    // Its own id and key, the other's folder.
    for (method, rest) in [
        ("PUT", format!("{theirs}/{stray}")),
        ("PUT", format!("{theirs}/events.jsonl?offset=0")),
        ("GET", format!("{theirs}/summary.json")),
        ("GET", theirs.to_string()),
    ] {
        let answer = me.call(method, &me.part(run, &rest), b"{}");
        refused(answer, 403, "not_shard_folder");
    }
    // The other's id, with its own key.
    let parts = |rest: &str| other.part(run, rest);
    let calls = |rest: &str| format!("/api/agents/{}/{rest}", other.id);
    let beat = r#"{"sent_ms": 1}"#.to_string();
    let barrier = format!(r#"{{"run_id": "{run}", "phase": 0}}"#);
    let done = format!(r#"{{"run_id": "{run}"}}"#);
    for (method, path, body) in [
        ("PUT", parts(&format!("{theirs}/{stray}")), "{}"),
        ("GET", parts(&format!("{theirs}/summary.json")), ""),
        ("GET", parts(theirs), ""),
        ("POST", calls("heartbeat"), &beat),
        ("POST", calls("barrier"), &barrier),
        ("POST", calls("done"), &done),
        ("POST", calls("leave"), ""),
    ] {
        let answer = me.call(method, &path, body.as_bytes());
        refused(answer, 403, "wrong_agent_key");
    }
    // No key at all, even for its own calls.
    let own = format!("/api/agents/{}/heartbeat", me.id);
    let without = |method, path: &str, body: &str| call(&me.url, method, path, body.as_bytes());
    refused(without("POST", &own, &beat), 403, "agent_key_required");
    let path = parts(&format!("{theirs}/{stray}"));
    refused(without("PUT", &path, "{}"), 403, "agent_key_required");
    // An id the controller never gave is unknown, whatever key comes with it.
    let unknown = format!("/api/agents/agent-0-999/parts/{run}/{theirs}");
    refused(me.call("GET", &unknown, b""), 404, "unknown_agent");
    // A heartbeat naming the other's folder as its own is taken, and changes nothing.
    let report = serde_json::json!({
        "sent_ms": 1,
        "shard": { "run_id": run, "index": mine, "local_run_id": theirs, "operations": 0 }
    });
    assert_eq!(me.heartbeat(report).0, 200);
}

fn serve(results: &Path) -> Controller {
    start_serving(&["--results", results.to_str().unwrap()])
}

#[test]
fn an_agent_reaches_neither_another_agents_calls_nor_its_shards_folder() {
    let sim = start_sim(&["--storage", "size-only"]);
    let text = scope_workload(&sim.endpoint);
    let dir = tempfile::tempdir().unwrap();
    let folders = [
        shard_folder(dir.path(), &text, 0),
        shard_folder(dir.path(), &text, 1),
    ];
    let locals = [name_of(&folders[0]), name_of(&folders[1])];
    let results = dir.path().join("controller");
    let controller = serve(&results);
    let url = controller.url.as_str();
    let alpha = StandIn::register(url, "alpha");
    let beta = StandIn::register(url, "beta");
    for agent in [&alpha, &beta] {
        assert_eq!(agent.heartbeat(serde_json::json!({ "sent_ms": 1 })).0, 200);
    }
    let (status, started) = json(
        url,
        "POST",
        "/api/runs",
        serde_json::json!({ "yaml": text, "agents": 2 }),
    );
    assert_eq!(status, 201, "{started}");
    let run = started["run_id"].as_str().unwrap().to_string();
    // By name, alpha holds shard 0 and beta shard 1; each sends its folder.
    send_folder(&alpha, &run, &folders[0]);
    send_folder(&beta, &run, &folders[1]);
    try_the_others_folder((&alpha, 0), (&beta, "beta"), &run, &locals[1]);
    try_the_others_folder((&beta, 1), (&alpha, "alpha"), &run, &locals[0]);
    // Each copy is as its agent sent it, and each shard's folder its own.
    for (agent, (folder, local)) in [&alpha, &beta].into_iter().zip(folders.iter().zip(&locals)) {
        let held: Vec<String> = agent
            .listing(&run, local)
            .into_iter()
            .map(|f| f.0)
            .collect();
        assert_eq!(held, files_of(folder));
    }
    let (_, view) = json(url, "GET", "/api/agents", serde_json::Value::Null);
    for (index, local) in locals.iter().enumerate() {
        assert_eq!(view["run"]["shards"][index]["local_run_id"], local.as_str());
    }
    // The keys are the agents' own: never shown.
    let shown = view.to_string();
    assert!(!shown.contains(&alpha.key) && !shown.contains(&beta.key));
    // Both shards end; the merge holds each shard's folder as sent, and nothing else.
    for (agent, local) in [&alpha, &beta].into_iter().zip(&locals) {
        let done = serde_json::json!({ "run_id": run, "local_run_id": local });
        let path = format!("/api/agents/{}/done", agent.id);
        let (status, text) = agent.call("POST", &path, done.to_string().as_bytes());
        assert_eq!(status, 204, "{text}");
    }
    wait_for("the merge", || {
        let (_, view) = json(url, "GET", "/api/agents", serde_json::Value::Null);
        (view["run"]["state"] == "completed").then_some(())
    });
    let merged = results.join(&run);
    for (folder, local) in folders.iter().zip(&locals) {
        assert_eq!(
            files_of(&merged.join("shards").join(local)),
            files_of(folder)
        );
    }
    let mut shards = files_or_folders(&merged.join("shards"));
    shards.sort();
    let mut expected = locals.to_vec();
    expected.sort();
    assert_eq!(shards, expected);
    assert!(!any_file_named_like(&merged, "owned-by-"));
}

/// The names of the entries of `dir`.
fn files_or_folders(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// Whether a file under `dir`, at any depth, has `part` in its name.
fn any_file_named_like(dir: &Path, part: &str) -> bool {
    std::fs::read_dir(dir).unwrap().any(|e| {
        let e = e.unwrap();
        e.file_name().to_string_lossy().contains(part)
            || (e.file_type().unwrap().is_dir() && any_file_named_like(&e.path(), part))
    })
}
