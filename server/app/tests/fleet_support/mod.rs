//! What the tests of a controller and its agents share: `keystorm serve` and `keystorm
//! agent` as processes killed when dropped, a split run started in the background, the
//! fill workload they run, the merged run it leaves, the controller's view of its agents
//! and its copies of their run folders, and agents stood in for by the test
//! ([`stand_in`]).

#![allow(dead_code)]

pub mod stand_in;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::process_support::{
    BIN, keystorm, read_json, spawn_announcing, summary_rows, workload, write_workload,
};

/// `keystorm serve` as a controller, killed when dropped.
pub struct Controller {
    pub child: Child,
    pub url: String,
}

impl Drop for Controller {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn start_controller(results: &Path) -> Controller {
    start_serving(&["--results", results.to_str().unwrap()])
}

/// `keystorm serve --port 0 ARGS...`, once it says where it serves.
pub fn start_serving(args: &[&str]) -> Controller {
    let mut command = Command::new(BIN);
    command.args(["serve", "--port", "0"]).args(args);
    let (child, url) = spawn_announcing(&mut command, "keystorm serving ");
    Controller { child, url }
}

/// An agent process, killed when dropped.
pub struct Agent(pub Child);

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A workload `name` whose one phase fills `keys` keys into bucket `name`, written in
/// `dir`.
pub fn fill_workload(dir: &Path, name: &str, endpoint: &str, seed: u32, keys: u64) -> PathBuf {
    let text = workload(
        name,
        endpoint,
        "size: 6B",
        &format!(
            "keyspace: {{ seed: {seed}, prefix: {name}/ }}\n\
             before:\n  - {{ name: fill, op: put, workers: 16, until_objects: {keys} }}\n"
        ),
    );
    write_workload(dir, name, &text)
}

/// The PUTs of a run's summary rows, added up.
pub fn put_ops(run: &Path) -> u64 {
    summary_rows(run)
        .iter()
        .filter(|r| r["op"] == "put")
        .map(|r| r["ops"].as_u64().unwrap())
        .sum()
}

/// The merged run's folder in the controller's results (or the only run folder of any
/// results folder, such as an agent's).
pub fn merged_run(results: &Path) -> PathBuf {
    let runs: Vec<PathBuf> = std::fs::read_dir(results)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("manifest.json").is_file())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs.into_iter().next().unwrap()
}

/// The merged row of a fill whose shard was taken over: its PUTs and the writes it
/// redid. It must say it was taken over.
pub fn taken_over_fill(merged: &Path) -> (u64, u64) {
    let rows: Vec<serde_json::Value> = summary_rows(merged)
        .into_iter()
        .filter(|r| r["op"] == "put")
        .collect();
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["taken_over"], true, "{:#}", rows[0]);
    let counted = rows[0]["ops"].as_u64().unwrap();
    (counted, rows[0]["redone"].as_u64().unwrap_or(0))
}

/// The PUTs of the first stretch of a taken-over shard's part: what the lost agent
/// measured and sent the controller.
pub fn lost_agents_puts(part: &Path) -> u64 {
    summary_rows(part)
        .iter()
        .filter(|r| r["op"] == "put" && r["interrupted"] == true && r["resumed"] != true)
        .map(|r| r["ops"].as_u64().unwrap())
        .sum()
}

/// The PUTs of each interval a run folder recorded.
pub fn puts_per_interval(run: &Path) -> Vec<u64> {
    super::process_support::intervals(run)
        .iter()
        .map(|r| r["ops"]["put"]["ops"].as_u64().unwrap_or(0))
        .collect()
}

/// `keystorm agent --controller CONTROLLER --name NAME EXTRA...`, its terminal output
/// going to `stderr`.
pub fn start_agent_with(
    controller: &str,
    name: &str,
    results: &Path,
    extra: &[&str],
    stderr: Stdio,
) -> Agent {
    Agent(
        keystorm(
            &[
                "agent",
                "--controller",
                controller,
                "--name",
                name,
                "--progress",
                "quiet",
            ],
            results,
        )
        .args(extra)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap(),
    )
}

/// An agent named `name` of `controller`, its results under `results`, its terminal
/// output dropped.
pub fn start_agent(controller: &str, name: &str, results: &Path) -> Agent {
    start_agent_with(controller, name, results, &[], Stdio::null())
}

/// `n` agents, `agent-0` … , each with its results under `dir`.
pub fn start_agents(controller: &str, dir: &Path, n: usize) -> Vec<Agent> {
    (0..n)
        .map(|i| {
            start_agent(
                controller,
                &format!("agent-{i}"),
                &dir.join(format!("agent-{i}")),
            )
        })
        .collect()
}

/// `keystorm run W --controller URL --agents N` started in the background.
pub fn start_split_run(wl: &Path, controller: &str, agents: u32, results: &Path) -> Child {
    start_split_run_with(wl, controller, agents, results, &[])
}

/// `keystorm run W --controller URL --agents N EXTRA...` started in the background.
pub fn start_split_run_with(
    wl: &Path,
    controller: &str,
    agents: u32,
    results: &Path,
    extra: &[&str],
) -> Child {
    keystorm(
        &[
            "run",
            wl.to_str().unwrap(),
            "--controller",
            controller,
            "--agents",
            &agents.to_string(),
        ],
        results,
    )
    .args(extra)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap()
}

/// GET `path` of the controller as JSON.
pub fn get_json(url: &str, path: &str) -> serde_json::Value {
    let addr = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(
        head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"),
        "{head}"
    );
    serde_json::from_str(body).unwrap()
}

/// The controller's copy of shard `index`'s run folder, once the agent sent it.
pub fn controller_copy(results: &Path, index: u64) -> Option<PathBuf> {
    let incoming = std::fs::read_dir(results.join(".incoming")).ok()?;
    for run in incoming.filter_map(|e| e.ok()) {
        for part in std::fs::read_dir(run.path().join("parts"))
            .ok()?
            .filter_map(|e| e.ok())
        {
            let manifest = read_json(&part.path().join("manifest.json"));
            if manifest.is_some_and(|m| m["overrides"]["shard"]["index"] == index) {
                return Some(part.path());
            }
        }
    }
    None
}
