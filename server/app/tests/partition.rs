//! Network partitions, not only kills: the controller, three agents and the target
//! each in a network namespace of their own (`ip netns`, veth pairs), the agents
//! reaching the controller on one link and the store on another, as hosts on a control
//! network and a storage network would. In the middle of a two-shard fill one agent is
//! cut off from the controller for 20 s (its packets dropped, as a failed switch port
//! drops them) and healed; then the controller is cut off from every agent for 20 s.
//! The run completes, the bucket holds exactly its keys, the merged counts are exact —
//! what the cut-off agent did after its last copy reached the controller is the only
//! difference between the target's own request count and the merged one, to the
//! request —, and the agents and the controller say what happened in plain words.
//!
//! Needs root and iproute2: compiled with the `netns-tests` feature (`scripts/test.sh`
//! installs iproute2 and turns it on); it fails, rather than skips, without them.

#![cfg(feature = "netns-tests")]

mod fleet_support;
mod process_support;
mod tls_support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fleet_support::{lost_agents_puts, merged_run, puts_per_interval, taken_over_fill};
use process_support::{BIN, read_json, spawn_announcing, wait_for};
use tls_support::TestCa;

/// The token the controller and its agents share.
const TOKEN: &str = "partition-test-token-0123456789";

/// Runs `ip ARGS...`, failing the test with what it said if it fails.
fn ip(args: &[&str]) {
    let out = Command::new("ip")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `ip` (iproute2): {e}"));
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The hosts of the test, each a network namespace, and the links between them; all
/// removed when dropped.
///
/// Addresses (each link a /30): the test (this process, in the host's own namespace)
/// reaches the controller at 10.231.0.2 and the store at 10.231.1.2; agent `i` reaches
/// the controller at 10.231.1{i}.1 and the store at 10.231.2{i}.1.
struct Hosts {
    prefix: String,
    agents: usize,
}

impl Hosts {
    fn new(agents: usize) -> Hosts {
        remove_stale_hosts();
        let prefix = format!("ks{}", std::process::id() % 100_000);
        let hosts = Hosts { prefix, agents };
        hosts.remove();
        for ns in ["ctl", "s3"]
            .into_iter()
            .map(String::from)
            .chain((0..agents).map(|i| format!("a{i}")))
        {
            let ns = hosts.ns(&ns);
            ip(&["netns", "add", &ns]);
            ip(&["-n", &ns, "link", "set", "lo", "up"]);
        }
        // The test's own way to the controller's API and to the store.
        hosts.link(None, "ctl", "adm", "10.231.0");
        hosts.link(None, "s3", "adm", "10.231.1");
        for i in 0..agents {
            hosts.link(
                Some("ctl"),
                &format!("a{i}"),
                &format!("c{i}"),
                &format!("10.231.1{i}"),
            );
            hosts.link(
                Some("s3"),
                &format!("a{i}"),
                &format!("s{i}"),
                &format!("10.231.2{i}"),
            );
        }
        hosts
    }

    fn ns(&self, name: &str) -> String {
        format!("{}-{name}", self.prefix)
    }

    /// A veth pair `name` between `from` (a namespace, or the host's own) at `.1` and
    /// `to` at `.2` of the /30 `net`.
    fn link(&self, from: Option<&str>, to: &str, name: &str, net: &str) {
        let here = match from {
            Some(_) => name.to_string(),
            None => format!("{}-{to}", self.prefix),
        };
        let to_ns = self.ns(to);
        let mut add = vec![
            "link", "add", &here, "type", "veth", "peer", "name", name, "netns", &to_ns,
        ];
        let from_ns = from.map(|ns| self.ns(ns));
        let mut args: Vec<&str> = Vec::new();
        if let Some(ns) = &from_ns {
            args.extend(["-n", ns.as_str()]);
        }
        args.append(&mut add);
        ip(&args);
        let on = |ns: Option<&str>, args: &[&str]| {
            let mut all: Vec<&str> = Vec::new();
            if let Some(ns) = ns {
                all.extend(["-n", ns]);
            }
            all.extend(args);
            ip(&all);
        };
        let (a, b) = (format!("{net}.1/30"), format!("{net}.2/30"));
        on(from_ns.as_deref(), &["addr", "add", &a, "dev", &here]);
        on(from_ns.as_deref(), &["link", "set", &here, "up"]);
        on(Some(&to_ns), &["addr", "add", &b, "dev", name]);
        on(Some(&to_ns), &["link", "set", name, "up"]);
    }

    /// Cuts agent `i` off the controller (`up: false`) or heals the link: the
    /// controller's end goes down, so the agent's packets are dropped, not refused.
    fn control_link(&self, i: usize, up: bool) {
        ip(&[
            "-n",
            &self.ns("ctl"),
            "link",
            "set",
            &format!("c{i}"),
            if up { "up" } else { "down" },
        ]);
    }

    /// `keystorm ARGS...` in namespace `ns`, with throwaway store keys.
    fn keystorm(&self, ns: &str, args: &[&str]) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.ns(ns), BIN])
            .args(args)
            .env("AWS_ACCESS_KEY_ID", "any")
            .env("AWS_SECRET_ACCESS_KEY", "any");
        c
    }

    /// Removes the namespaces, and with them every link (a veth pair goes with either
    /// end).
    fn remove(&self) {
        for ns in ["ctl", "s3"]
            .into_iter()
            .map(String::from)
            .chain((0..self.agents).map(|i| format!("a{i}")))
        {
            let _ = Command::new("ip")
                .args(["netns", "del", &self.ns(&ns)])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Removes the namespaces a test that was killed (its process gone) left behind, with
/// whatever still runs in them: their links hold the same addresses as this test's, and
/// the host would route to the dead ones.
fn remove_stale_hosts() {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some(ns) = line.split_whitespace().next() else {
            continue;
        };
        let Some(pid) = ns
            .strip_prefix("ks")
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        if let Ok(pids) = Command::new("ip").args(["netns", "pids", ns]).output() {
            for pid in String::from_utf8_lossy(&pids.stdout).split_whitespace() {
                let _ = Command::new("kill").args(["-9", pid]).status();
            }
        }
        let _ = Command::new("ip")
            .args(["netns", "del", ns])
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        self.remove();
    }
}

/// A process killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A process whose standard error goes to `log`.
fn spawn_logging(mut command: Command, log: &Path) -> Process {
    Process(
        command
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap(),
    )
}

/// GET `path` of the controller's API as JSON, through the test's own link, trusting
/// the CA in `ca`; `None` while it does not answer 200.
fn api(url: &str, ca: &Path, path: &str) -> Option<serde_json::Value> {
    let addr = url.strip_prefix("https://")?.parse().ok()?;
    std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()?;
    let (status, body) = tls_support::https_request_with(url, ca, Some(TOKEN), "GET", path, None);
    (status == 200).then_some(())?;
    serde_json::from_str(&body).ok()
}

fn said(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// Waits until the log at `log` says `words`.
fn wait_for_words(log: &Path, words: &str) {
    wait_for(&format!("{} to say {words:?}", log.display()), || {
        said(log).contains(words).then_some(())
    });
}

#[tokio::test]
async fn a_fill_survives_an_agent_and_then_the_controller_cut_off_for_20_s_with_exact_counts() {
    const KEYS: u64 = 160_000;
    const CUT: Duration = Duration::from_secs(20);
    let hosts = Hosts::new(3);
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let log = |name: &str| logs.join(format!("{name}.log"));

    let (sim, sim_port) = spawn_announcing(
        &mut hosts.keystorm(
            "s3",
            &[
                "sim",
                "--bind",
                "0.0.0.0",
                "--port",
                "0",
                "--storage",
                "size-only",
            ],
        ),
        "keystorm sim listening on ",
    );
    let _sim = Process(sim);
    let sim_port = sim_port.rsplit(':').next().unwrap().to_string();
    let store = format!("http://10.231.1.2:{sim_port}");

    // The controller serves HTTPS, its certificate naming each address it is reached at.
    let ca = TestCa::new(dir.path(), "partition");
    let names: Vec<String> = ["10.231.0.2".to_string()]
        .into_iter()
        .chain((0..3).map(|i| format!("10.231.1{i}.1")))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let pair = ca.issue_for(
        &dir.path().join("controller.crt"),
        &dir.path().join("controller.key"),
        &names,
    );
    let controller_results = dir.path().join("controller");
    let (controller, controller_at) = {
        let mut command = hosts.keystorm(
            "ctl",
            &[
                "serve",
                "--bind",
                "0.0.0.0",
                "--port",
                "0",
                "--token",
                TOKEN,
                "--tls-cert",
                pair.cert.to_str().unwrap(),
                "--tls-key",
                pair.key.to_str().unwrap(),
                "--results",
                controller_results.to_str().unwrap(),
            ],
        );
        command.stderr(std::fs::File::create(log("controller")).unwrap());
        let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let at = line
            .trim()
            .strip_prefix("keystorm serving ")
            .unwrap_or_else(|| panic!("{line:?}: {}", said(&log("controller"))))
            .to_string();
        (Process(child), at)
    };
    let port = controller_at.rsplit(':').next().unwrap().to_string();
    let api_url = format!("https://10.231.0.2:{port}");
    let ca_file = ca.file.to_str().unwrap();

    let agent_dir = |i: usize| dir.path().join(format!("agent-{i}"));
    let _agents: Vec<Process> = (0..3)
        .map(|i| {
            spawn_logging(
                hosts.keystorm(
                    &format!("a{i}"),
                    &[
                        "agent",
                        "--controller",
                        &format!("https://10.231.1{i}.1:{port}"),
                        "--ca-file",
                        ca_file,
                        "--token",
                        TOKEN,
                        "--name",
                        &format!("agent-{i}"),
                        "--endpoint",
                        &format!("http://10.231.2{i}.1:{sim_port}"),
                        "--progress",
                        "plain",
                        "--results",
                        agent_dir(i).to_str().unwrap(),
                    ],
                ),
                &log(&format!("agent-{i}")),
            )
        })
        .collect();
    wait_for("three agents", || {
        let view = api(&api_url, &ca.file, "/api/agents")?;
        (view["agents"].as_array()?.len() == 3).then_some(())
    });

    // Two shards for agent-0 and agent-1 (by name); agent-2 is a spare. Paced, so the
    // fill lasts through both partitions.
    let workload = dir.path().join("partition.yaml");
    std::fs::write(
        &workload,
        format!(
            "name: partition\ntarget: {{ endpoint: \"{store}\" }}\n\
             buckets: {{ names: [partition] }}\nobjects: {{ size: 6B }}\n\
             keyspace: {{ seed: 9, prefix: partition/ }}\n\
             before:\n  - {{ name: fill, op: put, concurrency: 16, rate: 1600, \
             until_objects: {KEYS} }}\n"
        ),
    )
    .unwrap();
    let mut cli = Command::new(BIN);
    cli.args([
        "run",
        workload.to_str().unwrap(),
        "--controller",
        &api_url,
        "--ca-file",
        ca_file,
        "--token",
        TOKEN,
        "--agents",
        "2",
        "--results",
        dir.path().join("cli").to_str().unwrap(),
    ]);
    let mut cli = spawn_logging(cli, &log("cli"));
    let copy_head = |shard: u64| -> Option<u64> {
        let incoming = std::fs::read_dir(controller_results.join(".incoming")).ok()?;
        for run in incoming.filter_map(|e| e.ok()) {
            let parts = std::fs::read_dir(run.path().join("parts")).ok()?;
            for part in parts.filter_map(|e| e.ok()) {
                let manifest = read_json(&part.path().join("manifest.json"));
                if manifest.is_some_and(|m| m["overrides"]["shard"]["index"] == shard) {
                    return read_json(&part.path().join("checkpoint.json"))?["window"]["head"]
                        .as_u64();
                }
            }
        }
        None
    };
    wait_for("shard 1 well into its fill", || {
        (copy_head(1)? >= 8_000).then_some(())
    });

    // agent-1 cut off from the controller, not from the store, for 20 s.
    let cut = Instant::now();
    hosts.control_link(1, false);
    wait_for("the spare to take shard 1 over", || {
        let view = api(&api_url, &ca.file, "/api/agents")?;
        (view["run"]["shards"][1]["agent"] == "agent-2").then_some(())
    });
    std::thread::sleep(CUT.saturating_sub(cut.elapsed()));
    hosts.control_link(1, true);
    wait_for_words(&log("agent-1"), "was taken over by another agent");
    let view = api(&api_url, &ca.file, "/api/agents").unwrap();
    assert_eq!(view["run"]["state"], "running", "{view:#}");

    // Then the controller cut off from all three for 20 s.
    for i in 0..3 {
        hosts.control_link(i, false);
    }
    for i in [0, 2] {
        wait_for_words(&log(&format!("agent-{i}")), "pausing shard");
    }
    std::thread::sleep(CUT);
    for i in 0..3 {
        hosts.control_link(i, true);
    }
    let ended = cli.0.wait().unwrap();
    let cli_said = said(&log("cli"));
    assert!(ended.success(), "{cli_said}");
    drop(controller);

    // Exactly the keys, listed through the test's own link to the store.
    assert_eq!(
        process_support::count_objects(&store, "partition").await,
        KEYS
    );
    let merged = merged_run(&controller_results);
    let (counted, redone) = taken_over_fill(&merged);
    assert_eq!(counted, KEYS + redone);
    // agent-1 paused cleanly: its own folder holds every PUT it sent. What of it never
    // reached the controller is all the target received that the merge does not count.
    let lost_folder = merged_run(&agent_dir(1));
    let in_copy = lost_agents_puts(&merged.join("shards").join(lost_folder.file_name().unwrap()));
    let recorded = puts_per_interval(&lost_folder);
    let unsent = recorded.iter().sum::<u64>() - in_copy;
    // It paused its shard soon after it lost the controller: what it did meanwhile is a
    // few seconds of its work, not the 20 s it was cut off.
    let peak = recorded.iter().copied().max().unwrap_or(0);
    assert!(
        unsent <= 5 * peak,
        "agent-1 recorded {unsent} PUTs after its last copy, at most {peak} a second"
    );
    let received = process_support::sim_requests(&store, "PutObject");
    assert_eq!(
        received,
        counted + unsent,
        "{received} received, {counted} counted, {unsent} recorded by agent-1 after its last \
         copy reached the controller"
    );

    // Said in plain words.
    let controller_said = said(&log("controller"));
    for words in [
        "agent agent-1 lost: no heartbeat for 5 s, holding shard 1",
        "agent agent-2 takes the shard over",
        "agent agent-1 is back after",
        "agents are heard again after",
    ] {
        assert!(
            controller_said.contains(words),
            "{words:?} in:\n{controller_said}"
        );
    }
    let agent_said = |i: usize| said(&log(&format!("agent-{i}")));
    for (i, words) in [
        (1, "waiting for the controller"),
        (1, "pausing shard 1/2"),
        (
            1,
            "was taken over by another agent while this agent could not reach the controller",
        ),
        (0, "pausing shard 0/2"),
        (0, "gives shard 0 of run"),
        (2, "taking it over"),
        (2, "pausing shard 1/2"),
        (2, "gives shard 1 of run"),
    ] {
        let text = agent_said(i);
        assert!(text.contains(words), "agent-{i}: {words:?} in:\n{text}");
    }
    assert!(cli_said.contains("(taken over from agent-1"), "{cli_said}");
    eprintln!(
        "{KEYS} keys, {counted} PUTs merged ({redone} redone), {received} received; agent-1 \
         recorded {unsent} after its last copy"
    );
}
