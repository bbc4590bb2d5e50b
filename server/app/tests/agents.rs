//! Agents under a controller, each a process of its own, against `keystorm sim` in a
//! process of its own: a run split over four agents writes exactly the keys it names
//! and its merged latency counts every request once; an agent killed with SIGKILL in
//! the middle of its fill is marked lost, and started again it resumes its shard so
//! the bucket ends up exact; or a spare agent takes the shard over from the copy of its
//! folder the controller holds; a controller killed with SIGKILL in the middle of a
//! fill and started again picks the run up, and its agents carry on with their shards.

mod fleet_support;
mod process_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use fleet_support::{
    Agent, Controller, controller_copy, fill_workload, get_json, lost_agents_puts, merged_run,
    put_ops, puts_per_interval, start_agent, start_agent_with, start_agents, start_controller,
    start_serving, start_split_run, taken_over_fill,
};
use process_support::{
    BIN, admin_post, count_objects, events_named, intervals, keystorm, kill_9, read_json,
    sim_ports, sim_requests, spawn_announcing, start_sim, summary_rows, wait_for, workload,
    write_workload,
};

/// An agent whose terminal output goes to `stderr`.
fn start_agent_to(controller: &str, name: &str, results: &Path, stderr: Stdio) -> Agent {
    start_agent_with(controller, name, results, &[], stderr)
}

/// The run's live stream (server-sent events) from its start until `finished`: each
/// event's name and data.
fn follow_events(url: &str, run_id: &str) -> Vec<(String, serde_json::Value)> {
    let addr = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET /api/runs/{run_id}/events HTTP/1.0\r\nHost: {addr}\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.contains(" 200 "), "{head}");
    let mut events = Vec::new();
    let mut name = String::new();
    for line in body.lines() {
        if let Some(n) = line.strip_prefix("event: ") {
            name = n.to_string();
        } else if let Some(data) = line.strip_prefix("data: ") {
            events.push((name.clone(), serde_json::from_str(data).unwrap()));
        }
    }
    events
}

/// Requests the histogram log of a run holds, over all its lines.
fn hlog_count(run: &Path) -> u64 {
    let mut n = 0;
    keystorm_results::for_each_hlog_line(
        &run.join("histograms.hlog"),
        |_| true,
        |line| n += line.histogram.len(),
    )
    .unwrap();
    n
}

/// `keystorm list` of the bucket: the keys it counted.
fn listed(endpoint: &str, bucket: &str) -> u64 {
    let out = Command::new(BIN)
        .args(["list", "--endpoint", endpoint, bucket])
        .env("AWS_ACCESS_KEY_ID", "any")
        .env("AWS_SECRET_ACCESS_KEY", "any")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("listed "))
        .unwrap_or_else(|| panic!("{text}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

const FOUR_AGENTS_KEYS: u64 = 400_000;

#[tokio::test]
async fn four_agents_fill_400_000_keys_and_their_merged_run_counts_each_request_once() {
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let controller_results = dir.path().join("controller");
    let controller = start_controller(&controller_results);
    let _agents = start_agents(&controller.url, dir.path(), 4);
    let wl = fill_workload(dir.path(), "fleet", &sim.endpoint, 4, FOUR_AGENTS_KEYS);
    let run = start_split_run(&wl, &controller.url, 4, &dir.path().join("cli"));
    // Watched live as a run of one process is: the controller's stream of the run.
    let run_id: String = wait_for("the run to start on the agents", || {
        let view = get_json(&controller.url, "/api/agents");
        view["run"]["run_id"].as_str().map(String::from)
    });
    let live = {
        let url = controller.url.clone();
        let id = run_id.clone();
        std::thread::spawn(move || follow_events(&url, &id))
    };
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("400000"));

    // The live view merged the four shards' intervals as they came: every PUT once,
    // each second's latency from the added histograms.
    let events = live.join().unwrap();
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"started"), "{names:?}");
    assert_eq!(names.last(), Some(&"finished"), "{names:?}");
    assert_eq!(events.last().unwrap().1["status"], "completed");
    assert_eq!(names.iter().filter(|n| **n == "phase_started").count(), 1);
    let live_puts: u64 = events
        .iter()
        .filter(|(n, _)| n == "interval")
        .map(|(_, d)| d["record"]["ops"]["put"]["ops"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(live_puts, FOUR_AGENTS_KEYS);
    // Intervals are per wall-clock second of the controller: none twice.
    let seconds: Vec<f64> = events
        .iter()
        .filter(|(n, _)| n == "interval")
        .map(|(_, d)| d["record"]["t_s"].as_f64().unwrap())
        .collect();
    assert!(seconds.windows(2).all(|w| w[0] < w[1]), "{seconds:?}");

    assert_eq!(listed(&sim.endpoint, "fleet"), FOUR_AGENTS_KEYS);
    let merged = merged_run(&controller_results);
    assert_eq!(put_ops(&merged), FOUR_AGENTS_KEYS);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["merged_from"].as_array().unwrap().len(), 4);
    let shards: Vec<PathBuf> = std::fs::read_dir(merged.join("shards"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(shards.len(), 4);
    let per_agent: Vec<u64> = shards.iter().map(|s| hlog_count(s)).collect();
    assert!(
        per_agent.iter().all(|&n| n == FOUR_AGENTS_KEYS / 4),
        "{per_agent:?}"
    );
    assert_eq!(hlog_count(&merged), per_agent.iter().sum::<u64>());
    // The agents' folders are the parts, the controller keeps nothing half-received,
    // and the merge took the live folder's place.
    assert!(!controller_results.join(".incoming").exists());
    assert!(!controller_results.join(".merging").exists());
    assert_eq!(merged.file_name().unwrap().to_str().unwrap(), run_id);
}

#[tokio::test]
async fn an_agent_killed_mid_fill_is_lost_and_started_again_resumes_its_shard() {
    const KEYS: u64 = 90_000;
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let controller_results = dir.path().join("controller");
    let controller = start_controller(&controller_results);
    let agent_dir = |i: u32| dir.path().join(format!("agent-{i}"));
    let mut agents = start_agents(&controller.url, dir.path(), 3);
    let wl = fill_workload(dir.path(), "lost", &sim.endpoint, 5, KEYS);
    let run = start_split_run(&wl, &controller.url, 3, &dir.path().join("cli"));
    // Shard 1 (agent-1, by name) well into its fill, under load from all three.
    wait_for("shard 1 to be 5,000 keys into its fill", || {
        let view = get_json(&controller.url, "/api/agents");
        let shard = &view["run"]["shards"][1];
        (shard["operations"].as_u64().unwrap_or(0) >= 5_000).then_some(())
    });
    kill_9(&mut agents[1].0);
    wait_for("the controller to mark shard 1 lost", || {
        let view = get_json(&controller.url, "/api/agents");
        (view["run"]["shards"][1]["state"] == "lost").then_some(())
    });
    let view = get_json(&controller.url, "/api/agents");
    let agent_1 = view["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "agent-1")
        .unwrap();
    assert_eq!(agent_1["state"], "lost");
    assert_eq!(view["run"]["state"], "running");

    agents[1] = start_agent(&controller.url, "agent-1", &agent_dir(1));
    let out = run.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(count_objects(&sim.endpoint, "lost").await, KEYS);
    // Resumed, not begun again: one run folder on agent-1, resumed once.
    let merged = merged_run(&controller_results);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["status"], "completed");
    let local: Vec<PathBuf> = std::fs::read_dir(agent_dir(1))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(local.len(), 1, "{local:?}");
    let shard_manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(local[0].join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(shard_manifest["resumed_at"].as_array().unwrap().len(), 1);
    let puts = put_ops(&merged);
    // Requests in flight at the kill may be sent again: never fewer than the keys.
    assert!(puts >= KEYS, "{puts}");
}

#[tokio::test]
async fn an_agent_killed_mid_fill_is_replaced_by_a_spare_that_resumes_the_controllers_copy() {
    const KEYS: u64 = 90_000;
    const SENT_BEFORE_KILL: u64 = 8_000;
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let controller_results = dir.path().join("controller");
    let controller = start_controller(&controller_results);
    let agent_dir = |i: u32| dir.path().join(format!("agent-{i}"));
    // Three shards for agent-0..2 (by name); agent-3 is a spare.
    let mut agents = start_agents(&controller.url, dir.path(), 4);
    wait_for("four agents", || {
        let view = get_json(&controller.url, "/api/agents");
        (view["agents"].as_array().unwrap().len() == 4).then_some(())
    });
    let wl = fill_workload(dir.path(), "spare", &sim.endpoint, 6, KEYS);
    let run = start_split_run(&wl, &controller.url, 3, &dir.path().join("cli"));
    // Killed once the controller's copy of shard 1 holds a checkpoint well into the
    // fill, while all three shards write.
    let copy = wait_for(
        "the controller's copy of shard 1 well into its fill",
        || {
            let copy = controller_copy(&controller_results, 1)?;
            let checkpoint = read_json(&copy.join("checkpoint.json"))?;
            (checkpoint["window"]["head"].as_u64()? >= SENT_BEFORE_KILL).then_some(copy)
        },
    );
    let killed_at = SystemTime::now();
    kill_9(&mut agents[1].0);
    wait_for("the spare to take shard 1 over", || {
        let view = get_json(&controller.url, "/api/agents");
        (view["run"]["shards"][1]["agent"] == "agent-3").then_some(())
    });
    let out = run.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Nothing skipped: every key is there once.
    assert_eq!(count_objects(&sim.endpoint, "spare").await, KEYS);
    let merged = merged_run(&controller_results);
    let manifest = read_json(&merged.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "completed");
    assert!(
        manifest["merged_from"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["status"] == "completed"),
        "{manifest}"
    );
    // The spare resumed the lost agent's folder, fetched from the controller: one run
    // folder on the spare, resumed once, under the lost agent's run id.
    let local: Vec<PathBuf> = std::fs::read_dir(agent_dir(3))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("manifest.json").is_file())
        .collect();
    assert_eq!(local.len(), 1, "{local:?}");
    assert_eq!(local[0].file_name(), copy.file_name());
    let resumed = read_json(&local[0].join("manifest.json")).unwrap();
    assert_eq!(resumed["resumed_at"].as_array().unwrap().len(), 1);
    // What the lost agent measured before the kill is in the merged run: its part's
    // rows hold the interrupted stretch, built from the intervals it had sent.
    let part = merged.join("shards").join(copy.file_name().unwrap());
    let before_kill: u64 = summary_rows(&part)
        .iter()
        .filter(|r| r["op"] == "put" && r["interrupted"] == true && r["resumed"] != true)
        .map(|r| r["ops"].as_u64().unwrap())
        .sum();
    assert!(before_kill >= SENT_BEFORE_KILL, "{before_kill}");
    counted_once_after_takeover(
        &merged,
        KEYS,
        &sim.endpoint,
        &agent_dir(1).join(copy.file_name().unwrap()),
        &part,
        killed_at,
    );
}

/// After a shard was taken over: the merged row says so and how many writes the new
/// agent did again, and the merged PUTs are the keys plus those, exactly. The target
/// received all of them and at most what the lost agent did that never reached the
/// controller: what its own folder (`lost`) recorded beyond the copy the merge holds of
/// it (`part`), and what it did between its last recorded interval and the kill at
/// `killed_at` (at most its busiest second's rate, per started second and one more, and
/// the 16 requests in flight), which it did not live to record.
fn counted_once_after_takeover(
    merged: &Path,
    keys: u64,
    sim: &str,
    lost: &Path,
    part: &Path,
    killed_at: SystemTime,
) {
    let (counted, redone) = taken_over_fill(merged);
    assert_eq!(counted, keys + redone);
    // What the merge holds of the lost agent, and what it recorded itself.
    let in_copy = lost_agents_puts(part);
    let per_interval = puts_per_interval(lost);
    let recorded: u64 = per_interval.iter().sum();
    let last_second = per_interval.iter().copied().max().unwrap_or(0);
    // The copy's checkpoint was as new as its intervals: only the writes that finished
    // above its watermark (while an older one was in flight) are done again — less than
    // a second of the lost agent's work, not the seconds a checkpoint behind would be.
    assert!(
        redone <= last_second,
        "{redone} redone, the lost agent did at most {last_second} a second"
    );
    assert!(
        recorded >= in_copy,
        "{recorded} recorded, {in_copy} in the copy"
    );
    let received = sim_requests(sim, "PutObject");
    assert!(
        received >= counted,
        "{received} received, {counted} counted"
    );
    // How long the lost agent ran past its last recorded interval: the kill comes at no
    // particular point of an interval, and a loaded machine may record one late. Its
    // rate then is not bounded by its busiest recorded second (a fill speeds up as it
    // goes), so one second more of that rate is allowed: a lost agent's work counted
    // twice would still be its whole recorded part, far above this.
    let unseen_s = unrecorded_seconds(lost, killed_at);
    let unrecorded = last_second * (unseen_s.ceil() as u64 + 1) + 16;
    assert!(
        received - counted <= recorded - in_copy + unrecorded,
        "{received} received, {counted} counted; the lost agent recorded {recorded}, \
         {in_copy} of them reached the controller, at most {last_second} a second, \
         {unseen_s:.2} s unrecorded before the kill"
    );
}

/// Seconds from the end of the last interval the run folder `run` recorded to `at`.
fn unrecorded_seconds(run: &Path, at: SystemTime) -> f64 {
    let manifest = read_json(&run.join("manifest.json")).unwrap();
    let started = humantime::parse_rfc3339(manifest["started_at"].as_str().unwrap()).unwrap();
    let recorded_s = intervals(run).last().map_or(0.0, |r| {
        r["t_s"].as_f64().unwrap() + r["duration_s"].as_f64().unwrap()
    });
    let recorded_until = started + Duration::from_secs_f64(recorded_s);
    at.duration_since(recorded_until)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// POSTs to `path` of the controller with no body; the status line.
fn post_empty(url: &str, path: &str) -> String {
    let addr = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response.lines().next().unwrap_or_default().to_string()
}

#[tokio::test]
async fn a_lost_shard_no_agent_took_over_is_merged_as_far_as_it_was_sent() {
    const KEYS: u64 = 200_000;
    const SENT_BEFORE_KILL: u64 = 5_000;
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let controller_results = dir.path().join("controller");
    let controller = start_controller(&controller_results);
    let mut agents: Vec<Agent> = (0..2)
        .map(|i| {
            let results = dir.path().join(format!("agent-{i}"));
            start_agent(&controller.url, &format!("agent-{i}"), &results)
        })
        .collect();
    let wl = fill_workload(dir.path(), "nospare", &sim.endpoint, 7, KEYS);
    let run = start_split_run(&wl, &controller.url, 2, &dir.path().join("cli"));
    let copy = wait_for("the controller's copy of shard 1 into its fill", || {
        let copy = controller_copy(&controller_results, 1)?;
        let checkpoint = read_json(&copy.join("checkpoint.json"))?;
        (checkpoint["window"]["head"].as_u64()? >= SENT_BEFORE_KILL).then_some(copy)
    });
    kill_9(&mut agents[1].0);
    let run_id = wait_for("shard 1 lost", || {
        let view = get_json(&controller.url, "/api/agents");
        (view["run"]["shards"][1]["state"] == "lost")
            .then(|| view["run"]["run_id"].as_str().unwrap().to_string())
    });
    // No agent to take it over: the user stops the run.
    let status = post_empty(&controller.url, &format!("/api/runs/{run_id}/stop"));
    assert!(status.contains(" 20"), "{status}");
    let _ = run.wait_with_output().unwrap();
    let merged = wait_for("the merged run", || {
        let view = get_json(&controller.url, "/api/agents");
        (view["run"]["state"] == "completed").then(|| {
            let warnings = view["run"]["warnings"].to_string();
            assert!(
                warnings.contains("shard 1: its agent was lost and no agent took it over"),
                "{warnings}"
            );
            controller_results.join(&run_id)
        })
    });
    let manifest = read_json(&merged.join("manifest.json")).unwrap();
    let parts = manifest["merged_from"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "{manifest}");
    let lost = parts
        .iter()
        .find(|p| p["run_id"] == copy.file_name().unwrap().to_str().unwrap())
        .unwrap();
    assert_eq!(lost["status"], "killed");
    // What the lost agent sent is counted in the merged rows: its part's rows were built
    // from its intervals, as a resume builds them.
    let lost_puts = put_ops(&merged.join("shards").join(copy.file_name().unwrap()));
    assert!(lost_puts >= SENT_BEFORE_KILL, "{lost_puts}");
    let other = parts.iter().find(|p| p != &lost).unwrap();
    let other_puts = put_ops(
        &merged
            .join("shards")
            .join(other["run_id"].as_str().unwrap()),
    );
    assert_eq!(put_ops(&merged), other_puts + lost_puts);
}

#[test]
fn an_agent_without_the_controllers_token_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let controller = start_serving(&[
        "--token",
        "0123456789abcdef-token",
        "--results",
        dir.path().to_str().unwrap(),
    ]);
    let out = keystorm(
        &["agent", "--controller", &controller.url, "--name", "a"],
        dir.path(),
    )
    .env_remove("KEYSTORM_TOKEN")
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refused") && stderr.contains("Bearer"),
        "{stderr}"
    );
}

/// `keystorm serve --port PORT --results RESULTS`, once it says where it serves.
fn start_controller_on(port: &str, results: &Path) -> Controller {
    let mut command = Command::new(BIN);
    command.args([
        "serve",
        "--port",
        port,
        "--results",
        results.to_str().unwrap(),
    ]);
    let (child, url) = spawn_announcing(&mut command, "keystorm serving ");
    Controller { child, url }
}

/// An agent whose terminal output goes to the file `log`.
fn start_agent_logging(controller: &str, name: &str, results: &Path, log: &Path) -> Agent {
    start_agent_to(
        controller,
        name,
        results,
        std::fs::File::create(log).unwrap().into(),
    )
}

/// How far the controller's copy of shard `index` got: its checkpoint's window head.
fn copy_head(results: &Path, index: u64) -> Option<u64> {
    let copy = controller_copy(results, index)?;
    read_json(&copy.join("checkpoint.json"))?["window"]["head"].as_u64()
}

#[tokio::test]
async fn a_controller_killed_mid_fill_and_started_again_picks_the_run_up_and_its_agents_carry_on() {
    const KEYS: u64 = 60_000;
    const SENT_BEFORE_KILL: u64 = 5_000;
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let controller_results = dir.path().join("controller");
    let mut controller = start_controller(&controller_results);
    let port = controller.url.rsplit(':').next().unwrap().to_string();
    let agent_dir = |i: u32| dir.path().join(format!("agent-{i}"));
    let log = |i: u32| dir.path().join(format!("agent-{i}.log"));
    let _agents: Vec<Agent> = (0..2)
        .map(|i| {
            start_agent_logging(
                &controller.url,
                &format!("agent-{i}"),
                &agent_dir(i),
                &log(i),
            )
        })
        .collect();
    wait_for("two agents", || {
        let view = get_json(&controller.url, "/api/agents");
        (view["agents"].as_array().unwrap().len() == 2).then_some(())
    });
    // Paced, so the fill is well under way, and far from done, when the controller dies.
    let text = workload(
        "restart",
        &sim.endpoint,
        "size: 6B",
        &format!(
            "keyspace: {{ seed: 8, prefix: restart/ }}\n\
             before:\n  - {{ name: fill, op: put, concurrency: 8, rate: 3000, \
             until_objects: {KEYS} }}\n"
        ),
    );
    let wl = write_workload(dir.path(), "restart", &text);
    let started = Instant::now();
    let run = start_split_run(&wl, &controller.url, 2, &dir.path().join("cli"));
    let run_id = wait_for("the run", || {
        let view = get_json(&controller.url, "/api/agents");
        view["run"]["run_id"].as_str().map(str::to_string)
    });
    // Killed once the controller's copy of each shard holds a checkpoint into the fill.
    let heads = wait_for("the controller's copies well into the fill", || {
        let heads = (
            copy_head(&controller_results, 0)?,
            copy_head(&controller_results, 1)?,
        );
        (heads.0 >= SENT_BEFORE_KILL && heads.1 >= SENT_BEFORE_KILL).then_some(heads)
    });
    kill_9(&mut controller.child);
    let killed = Instant::now();
    assert!(
        heads.0 + heads.1 < KEYS,
        "the fill ended before the kill: {heads:?}"
    );
    // Started again once both agents paused their shards (as a host reboot would be).
    wait_for("the agents to pause their shards", || {
        (0..2)
            .all(|i| {
                std::fs::read_to_string(log(i)).is_ok_and(|said| said.contains("pausing shard"))
            })
            .then_some(())
    });
    // The outage itself: the controller stays down a while with both shards paused.
    std::thread::sleep(Duration::from_secs(3));
    let controller = start_controller_on(&port, &controller_results);
    // The run is known again, as running, and both agents are back under their names
    // with the shards they held.
    wait_for("both agents back with their shards", || {
        let view = get_json(&controller.url, "/api/agents");
        let back = view["agents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["state"] == "running" && a["host"] != "")
            .count();
        (back == 2).then_some(())
    });
    let outage = killed.elapsed();
    let view = get_json(&controller.url, "/api/agents");
    assert_eq!(view["run"]["run_id"], run_id.as_str(), "{view}");
    assert_eq!(view["run"]["state"], "running", "{view}");
    let status = get_json(&controller.url, "/api/status");
    assert_eq!(status["running"], run_id.as_str(), "{status}");
    let out = run.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let took = started.elapsed();
    assert_eq!(count_objects(&sim.endpoint, "restart").await, KEYS);
    let merged = merged_run(&controller_results);
    assert_eq!(merged.file_name().unwrap().to_str().unwrap(), run_id);
    let manifest = read_json(&merged.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "completed", "{manifest}");
    assert!(!controller_results.join(".incoming").join(&run_id).exists());
    // Each shard ran through on its agent, in one run folder: on, if the controller was
    // back before the agent paused it; else paused and resumed once, given back.
    for i in 0..2 {
        let local: Vec<PathBuf> = std::fs::read_dir(agent_dir(i))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("manifest.json").is_file())
            .collect();
        assert_eq!(local.len(), 1, "{local:?}");
        let shard = read_json(&local[0].join("manifest.json")).unwrap();
        assert_eq!(shard["status"], "completed", "{shard}");
        let said = std::fs::read_to_string(log(i)).unwrap();
        let paused = said.contains("pausing shard");
        assert_eq!(
            shard["resumed_at"].as_array().unwrap().len(),
            usize::from(paused),
            "{shard}\n{said}"
        );
        assert_eq!(
            said.contains("gives shard 0 of run") || said.contains("gives shard 1 of run"),
            paused,
            "{said}"
        );
        assert_eq!(
            said.matches("waiting for the controller").count(),
            1,
            "{said}"
        );
        assert_eq!(
            said.matches("the controller answers again").count(),
            1,
            "{said}"
        );
        assert_eq!(
            said.matches(": starting").count(),
            1 + usize::from(paused),
            "{said}"
        );
        assert!(!said.contains("ignoring shard"), "{said}");
        assert_eq!(said.contains("resuming"), paused, "{said}");
        assert!(!said.contains("cannot"), "{said}");
    }
    // A pause stops cleanly: nothing is done twice, and every PUT is counted once.
    let puts = put_ops(&merged);
    assert_eq!(puts, KEYS);
    outage_is_on_the_merged_record(&merged, KEYS);
    // The CLI said so as it happened, from the controller's record of the run.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("controller restart at "), "{stderr}");
    eprintln!(
        "{KEYS} keys; controller killed {:.1} s into the run with its copies at {} + {} keys; \
         agents back with the new controller {:.1} s after the kill; run done in {:.1} s; \
         {puts} PUTs merged",
        (killed - started).as_secs_f64(),
        heads.0,
        heads.1,
        outage.as_secs_f64(),
        took.as_secs_f64()
    );
}

/// The seconds in which some shard of the merged run measured `phase` (each shard's
/// intervals on one clock, from its start): the pauses they all shared left out, a
/// shard's own pause not, while another went on.
fn active_seconds(merged: &Path, phase: &str) -> f64 {
    let mut spans: Vec<(f64, f64)> = std::fs::read_dir(merged.join("shards"))
        .unwrap()
        .flat_map(|e| {
            let dir = e.unwrap().path();
            let started = read_json(&dir.join("manifest.json")).unwrap()["started_at"]
                .as_str()
                .unwrap()
                .to_string();
            let origin = humantime::parse_rfc3339(&started)
                .unwrap()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs_f64();
            intervals(&dir)
                .iter()
                .filter(|r| r["phase"] == phase && r["warmup"] != true)
                .map(|r| {
                    let t = origin + r["t_s"].as_f64().unwrap();
                    (t, t + r["duration_s"].as_f64().unwrap())
                })
                .collect::<Vec<_>>()
        })
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut active = 0.0;
    let mut open: Option<(f64, f64)> = None;
    for (from, to) in spans {
        open = match open {
            Some((a, b)) if from <= b => Some((a, b.max(to))),
            Some((a, b)) => {
                active += b - a;
                Some((from, to))
            }
            None => Some((from, to)),
        };
    }
    active += open.map_or(0.0, |(a, b)| b - a);
    active
}

/// Each shard's pause while its controller was gone is an event of the merged run, on
/// its clock and named by shard; the merged fill's rate divides by the time it ran (the
/// longest shard's measured intervals), its wall time keeps the pause, and no merged
/// second lies where both shards were paused.
fn outage_is_on_the_merged_record(merged: &Path, keys: u64) {
    let pauses = events_named(merged, "pause");
    let mut shards: Vec<&str> = pauses
        .iter()
        .map(|p| p["shard"].as_str().unwrap())
        .collect();
    shards.sort();
    assert_eq!(shards, ["0/2", "1/2"], "{pauses:#?}");
    for p in &pauses {
        assert_eq!(p["reason"], "controller_gone", "{p}");
        assert_eq!(p["phase"]["name"], "fill", "{p}");
    }
    let span = |p: &serde_json::Value| {
        (
            p["from_t_s"].as_f64().unwrap(),
            p["to_t_s"].as_f64().unwrap(),
        )
    };
    let both = (
        pauses.iter().map(|p| span(p).0).fold(0.0, f64::max),
        pauses.iter().map(|p| span(p).1).fold(f64::MAX, f64::min),
    );
    let shortest = pauses
        .iter()
        .map(|p| span(p).1 - span(p).0)
        .fold(f64::MAX, f64::min);
    assert!(shortest > 2.0, "{pauses:#?}");
    let active = active_seconds(merged, "fill");
    let rows = summary_rows(merged);
    let fill = rows.iter().find(|r| r["phase"] == "fill").unwrap();
    let rate = fill["ops_per_sec"].as_f64().unwrap();
    let by_active = keys as f64 / active;
    assert!(
        (rate - by_active).abs() <= 0.02 * by_active,
        "{rate} ops/s against {keys} ops in {active} s measured: {fill:#}"
    );
    let wall = fill["wall_s"].as_f64().unwrap();
    assert!(
        wall >= fill["duration_s"].as_f64().unwrap() + shortest - 1.0,
        "wall {wall} s for a fill paused {shortest} s: {fill:#}"
    );
    // Nothing is drawn where both shards were paused.
    let inside: Vec<f64> = intervals(merged)
        .iter()
        .map(|r| r["t_s"].as_f64().unwrap())
        .filter(|t| *t > both.0 + 0.5 && *t + 1.0 < both.1 - 0.5)
        .collect();
    assert!(
        inside.is_empty(),
        "points at {inside:?} inside the pause {both:?}"
    );
    // The controller's restart is an event of the run, at the time it came back: after
    // the first shard paused for it and before the last went on; and each agent's
    // return after it, with the shard it held.
    let fleet = events_named(merged, "fleet");
    let restarts: Vec<f64> = fleet
        .iter()
        .filter(|e| e["kind"] == "controller_restart")
        .map(|e| e["t_s"].as_f64().unwrap())
        .collect();
    assert_eq!(restarts.len(), 1, "{fleet:#?}");
    let latest_resume = pauses.iter().map(|p| span(p).1).fold(0.0, f64::max);
    let first_pause = pauses.iter().map(|p| span(p).0).fold(f64::MAX, f64::min);
    assert!(
        restarts[0] > first_pause && restarts[0] < latest_resume,
        "restart at {} s; pauses {pauses:#?}",
        restarts[0]
    );
    let mut back: Vec<(String, String)> = fleet
        .iter()
        .filter(|e| e["kind"] == "agent_back")
        .map(|e| {
            assert!(e["t_s"].as_f64().unwrap() >= restarts[0], "{e}");
            (e["agent"].to_string(), e["shard"].to_string())
        })
        .collect();
    back.sort();
    assert_eq!(
        back,
        [
            ("\"agent-0\"".into(), "\"0/2\"".into()),
            ("\"agent-1\"".into(), "\"1/2\"".into())
        ],
        "{fleet:#?}"
    );
}

#[tokio::test]
async fn without_a_spare_the_first_agent_whose_shard_ends_takes_a_lost_one_over_and_says_how_long_it_waited()
 {
    const KEYS: u64 = 60_000;
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let controller_results = dir.path().join("controller");
    let controller = start_controller(&controller_results);
    let agent_dir = |i: u32| dir.path().join(format!("agent-{i}"));
    let mut agents = start_agents(&controller.url, dir.path(), 2);
    // Paced, so agent-0 is still busy with its own shard when agent-1 is found lost; the
    // workload's own checkpoint_every left at its default (5 s): an agent saves one with
    // every interval all the same.
    let text = workload(
        "nospare",
        &sim.endpoint,
        "size: 6B",
        &format!(
            "keyspace: {{ seed: 7, prefix: nospare/ }}\n\
             before:\n  - {{ name: fill, op: put, concurrency: 16, rate: 3000, until_objects: {KEYS} }}\n"
        ),
    );
    let wl = write_workload(
        dir.path(),
        "nospare",
        &text.replace("checkpoint_every: 1s\n", ""),
    );
    let run = start_split_run(&wl, &controller.url, 2, &dir.path().join("cli"));
    let copy = wait_for("the controller's copy of shard 1 into its fill", || {
        let copy = controller_copy(&controller_results, 1)?;
        let checkpoint = read_json(&copy.join("checkpoint.json"))?;
        (checkpoint["window"]["head"].as_u64()? >= 3_000).then_some(copy)
    });
    // Three seconds more of the shard's intervals in the copy, the kill coming at no
    // particular point of the workload's (default, 5 s) checkpoint period.
    let intervals_held = |copy: &Path| {
        std::fs::read_to_string(copy.join("intervals.jsonl")).map_or(0, |t| t.lines().count())
    };
    let held = intervals_held(&copy);
    wait_for("three more seconds of the copy", || {
        (intervals_held(&copy) >= held + 3).then_some(())
    });
    let killed_at = SystemTime::now();
    kill_9(&mut agents[1].0);
    let waiting = wait_for("shard 1 to wait, lost, for an agent", || {
        let view = get_json(&controller.url, "/api/agents");
        let shard = &view["run"]["shards"][1];
        (shard["state"] == "lost").then(|| shard["waiting_s"].as_f64())?
    });
    assert!(waiting >= 0.0);
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("waiting for an idle agent to take it over"),
        "{stderr}"
    );
    let view = get_json(&controller.url, "/api/agents");
    let shard = &view["run"]["shards"][1];
    assert_eq!(shard["agent"], "agent-0", "{view:#}");
    assert_eq!(shard["taken_over_from"], "agent-1", "{view:#}");
    let waited = shard["waited_s"].as_f64().unwrap();
    assert!(waited >= 1.0, "{view:#}");
    assert!(
        stderr.contains(&format!(
            "(taken over from agent-1 after the shard waited {waited:.1} s for an idle agent)"
        )),
        "{stderr}"
    );
    assert_eq!(count_objects(&sim.endpoint, "nospare").await, KEYS);
    let merged = merged_run(&controller_results);
    let part = merged.join("shards").join(copy.file_name().unwrap());
    counted_once_after_takeover(
        &merged,
        KEYS,
        &sim.endpoint,
        &agent_dir(1).join(copy.file_name().unwrap()),
        &part,
        killed_at,
    );
    // The merged run says who lost the shard, who took it over, how long it waited, and
    // when the shard did not run.
    let pauses = events_named(&merged, "pause");
    let taken: Vec<&serde_json::Value> = pauses
        .iter()
        .filter(|p| p["reason"] == "taken_over")
        .collect();
    assert_eq!(taken.len(), 1, "{pauses:#?}");
    assert_eq!(taken[0]["shard"], "1/2");
    let detail = taken[0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!(
            "agent-1 was lost; agent-0 took shard 1 over after it waited {waited:.1} s; taken over on "
        )),
        "{detail}"
    );
    let stopped = taken[0]["to_t_s"].as_f64().unwrap() - taken[0]["from_t_s"].as_f64().unwrap();
    // The controller's own record says when agent-1 was found lost and when agent-0
    // took its shard, both inside the shard's pause, in that order; the CLI printed both.
    let fleet = events_named(&merged, "fleet");
    let at = |kind: &str| {
        let found: Vec<&serde_json::Value> = fleet.iter().filter(|e| e["kind"] == kind).collect();
        assert_eq!(found.len(), 1, "{kind}: {fleet:#?}");
        found[0].clone()
    };
    let (lost, takeover) = (at("agent_lost"), at("takeover"));
    assert_eq!(lost["agent"], "agent-1", "{lost}");
    assert_eq!(lost["shard"], "1/2", "{lost}");
    assert_eq!(takeover["agent"], "agent-0", "{takeover}");
    assert_eq!(takeover["shard"], "1/2", "{takeover}");
    let (lost_t, takeover_t) = (
        lost["t_s"].as_f64().unwrap(),
        takeover["t_s"].as_f64().unwrap(),
    );
    let (from, to) = (
        taken[0]["from_t_s"].as_f64().unwrap(),
        taken[0]["to_t_s"].as_f64().unwrap(),
    );
    assert!(
        from < lost_t && lost_t <= takeover_t && takeover_t < to,
        "lost at {lost_t} s, taken over at {takeover_t} s, paused {from}-{to} s"
    );
    assert!(stderr.contains("agent lost at "), "{stderr}");
    // The rate asked, second by second, is that of the shards that ran in it: both at
    // the start, shard 0's alone while shard 1 waited.
    let asked_at = |t: f64| {
        intervals(&merged)
            .into_iter()
            .find(|r| r["phase"] == "fill" && r["t_s"].as_f64().unwrap() >= t)
            .map(|r| r["asked_per_sec"].as_f64().unwrap())
            .unwrap()
    };
    assert_eq!(asked_at(0.0), 3000.0);
    assert_eq!(asked_at((from + to) / 2.0), 1500.0);
    assert!(
        stopped >= waited,
        "paused {stopped} s, waited {waited} s: {detail}"
    );
    // Shard 0 went on while shard 1 waited: the fill ran all that time, and its rate
    // divides by it.
    let rows = summary_rows(&merged);
    let fill = rows.iter().find(|r| r["phase"] == "fill").unwrap();
    let by_active = KEYS as f64 / active_seconds(&merged, "fill");
    let rate = fill["ops_per_sec"].as_f64().unwrap();
    assert!(
        (rate - by_active).abs() <= 0.02 * by_active,
        "{rate} ops/s against {by_active} over the time some shard ran: {fill:#}"
    );
    // The run's headline (its totals) says the same as its one phase.
    let totals = read_json(&merged.join("summary.json")).unwrap()["totals"].clone();
    let headline = totals[0]["ops_per_sec"].as_f64().unwrap();
    assert!((headline - rate).abs() <= 0.001 * rate, "{totals:#}");
    // Each shard kept its schedule while it ran: what the merged row says it sent is
    // each shard's requests over that shard's own measured time, added up (not all the
    // requests over the time any shard ran, which would call the wait falling behind).
    let shards_sent: f64 = std::fs::read_dir(merged.join("shards"))
        .unwrap()
        .map(|e| {
            let rows = summary_rows(&e.unwrap().path());
            let fill = rows.iter().filter(|r| r["phase"] == "fill");
            let (requests, seconds) = fill.fold((0.0, 0.0), |(n, s), r| {
                let n_r = r["ops"].as_f64().unwrap() + r["errors"].as_f64().unwrap();
                (n + n_r, s + r["duration_s"].as_f64().unwrap())
            });
            requests / seconds
        })
        .sum();
    let sent = fill["open_loop"]["sent_per_sec"].as_f64().unwrap();
    assert!(
        (sent - shards_sent).abs() <= 0.01 * shards_sent,
        "sent {sent}/s against the shards' {shards_sent}/s: {fill:#}"
    );
}

#[tokio::test]
async fn a_shard_that_waits_at_a_barrier_for_a_slower_one_has_the_wait_on_the_merged_record() {
    // Shard 1's agent writes through a port of the target whose every PUT stalls 50 ms:
    // its half of the first phase lasts seconds after shard 0's, which waits for it at
    // the next barrier.
    let sim = sim_ports(2);
    let (fast, slow) = (&sim.1[0], &sim.1[1]);
    let slow_port = slow.rsplit(':').next().unwrap();
    let (status, body) = admin_post(
        fast,
        &format!("/admin/keystorm/ports/{slow_port}/faults?stall=1&ops=put&stall_time=50ms"),
    );
    assert!(status.contains(" 200 "), "{status} {body}");
    let dir = tempfile::tempdir().unwrap();
    let controller_results = dir.path().join("controller");
    let controller = start_controller(&controller_results);
    let _agents = [
        start_agent(&controller.url, "agent-0", &dir.path().join("agent-0")),
        start_agent_with(
            &controller.url,
            "agent-1",
            &dir.path().join("agent-1"),
            &["--endpoint", slow],
            Stdio::null(),
        ),
    ];
    wait_for("two agents", || {
        let view = get_json(&controller.url, "/api/agents");
        (view["agents"].as_array().unwrap().len() == 2).then_some(())
    });
    let text = workload(
        "barrier",
        fast,
        "size: 6B",
        "before:\n  - { name: first, op: put, workers: 2, operations: 200 }\n  \
         - { name: second, op: put, workers: 2, operations: 20 }\n",
    );
    let wl = write_workload(dir.path(), "barrier", &text);
    let out = start_split_run(&wl, &controller.url, 2, &dir.path().join("cli"))
        .wait_with_output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = merged_run(&controller_results);
    let waits: Vec<serde_json::Value> = events_named(&merged, "pause")
        .into_iter()
        .filter(|p| p["reason"] == "barrier_wait")
        .collect();
    let of_shard = |shard: &str| waits.iter().filter(|p| p["shard"] == shard).count();
    assert_eq!(of_shard("1/2"), 0, "{waits:#?}");
    let waited: Vec<&serde_json::Value> = waits
        .iter()
        .filter(|p| p["shard"] == "0/2" && p["detail"].as_str().unwrap().contains("before second"))
        .collect();
    assert_eq!(waited.len(), 1, "{waits:#?}");
    let (from, to) = (
        waited[0]["from_t_s"].as_f64().unwrap(),
        waited[0]["to_t_s"].as_f64().unwrap(),
    );
    assert!(to - from >= 1.0, "{waited:#?}");
}
