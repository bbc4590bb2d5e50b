//! A read of a bucket keystorm did not write, split over agents: each agent lists the
//! bucket into its own key file and reads its shard's positions of it, so with
//! `epochs: 2` the agents together read every key exactly twice — proven by the
//! target's own count per key (it runs in this test's process) — and the merged run
//! counts each of those GETs once. An agent killed mid-epoch is replaced by a spare
//! that lists the bucket again and goes on from the controller's copy of the shard's
//! checkpoint: no key is left out, and only seconds of picks are read again.

mod fleet_support;
mod process_support;

use std::path::Path;

use fleet_support::{
    Agent, controller_copy, get_json, merged_run, start_agent_with, start_controller,
    start_split_run_with,
};
use process_support::{kill_9, read_json, summary_rows, wait_for, workload, write_workload};

const KEYS: u64 = 2001;
const BUCKET: &str = "theirs";

/// A target counting GETs per key, holding `keys` objects another program wrote.
async fn foreign_bucket(keys: u64) -> keystorm_sim::SimHandle {
    let sim = keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        keystorm_sim::SimConfig {
            tally_keys: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    sim.store().create_bucket(BUCKET);
    let bucket = sim.store().bucket(BUCKET).unwrap();
    for i in 0..keys {
        bucket
            .put(
                format!("made/elsewhere {i:05}").as_bytes(),
                keystorm_sim::Object {
                    size: 10 + i % 3,
                    etag: [1; 16],
                    last_modified_ms: keystorm_sim::now_ms(),
                    content_type: None,
                    metadata: Box::new([]),
                    data: None,
                    parts: 0,
                },
            )
            .unwrap();
    }
    sim
}

/// GETs per key of the bucket, by the target's count.
fn gets(sim: &keystorm_sim::SimHandle) -> Vec<u64> {
    sim.key_requests(keystorm_sim::Op::GetObject)
        .into_iter()
        .filter(|((b, _), _)| b == BUCKET)
        .map(|(_, n)| n)
        .collect()
}

fn start_agent(controller: &str, dir: &Path, i: u32) -> Agent {
    start_agent_with(
        controller,
        &format!("agent-{i}"),
        &dir.join(format!("agent-{i}")),
        &[],
        std::process::Stdio::null(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_read_every_listed_key_exactly_as_often_as_the_epochs_say() {
    let sim = foreign_bucket(KEYS).await;
    let dir = tempfile::tempdir().unwrap();
    let controller_results = dir.path().join("controller");
    let controller = start_controller(&controller_results);
    let _agents: Vec<Agent> = (0..3)
        .map(|i| start_agent(&controller.url, dir.path(), i))
        .collect();
    let text = workload(
        BUCKET,
        &sim.endpoint(),
        "size: 1KiB",
        "before:\n  - { name: read, op: get, concurrency: 8, epochs: 2, keys: { from: listing } }\n",
    );
    let wl = write_workload(dir.path(), "theirs", &text);
    let run = start_split_run_with(&wl, &controller.url, 3, &dir.path().join("cli"), &[]);
    let out = tokio::task::spawn_blocking(move || run.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let counted = gets(&sim);
    assert_eq!(counted.len() as u64, KEYS, "every key read");
    assert!(counted.iter().all(|&n| n == 2), "every key exactly twice");
    let merged = merged_run(&controller_results);
    let gets: u64 = summary_rows(&merged)
        .iter()
        .filter(|r| r["op"] == "get")
        .map(|r| r["ops"].as_u64().unwrap())
        .sum();
    assert_eq!(gets, 2 * KEYS, "the merged run counts each GET once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spare_taking_an_epochs_shard_over_leaves_no_key_out() {
    // Three shards of 2,000 keys, two epochs at 500 picks a second each: 8 s.
    const KEYS: u64 = 6000;
    let sim = foreign_bucket(KEYS).await;
    let dir = tempfile::tempdir().unwrap();
    let controller_results = dir.path().join("controller");
    let controller = start_controller(&controller_results);
    // Three shards for agent-0..2 (by name); agent-3 is a spare.
    let mut agents: Vec<Agent> = (0..4)
        .map(|i| start_agent(&controller.url, dir.path(), i))
        .collect();
    wait_for("four agents", || {
        let view = get_json(&controller.url, "/api/agents");
        (view["agents"].as_array().unwrap().len() == 4).then_some(())
    });
    let text = workload(
        BUCKET,
        &sim.endpoint(),
        "size: 1KiB",
        "before:\n  - { name: read, op: get, concurrency: 8, rate: 1500, epochs: 2, \
         keys: { from: listing } }\n",
    );
    let wl = write_workload(dir.path(), "spare", &text);
    let run = start_split_run_with(&wl, &controller.url, 3, &dir.path().join("cli"), &[]);
    // Killed once the controller's copy of shard 1 holds a checkpoint well into its
    // first epoch.
    let saved = wait_for("the controller's copy of shard 1 mid-epoch", || {
        let copy = controller_copy(&controller_results, 1)?;
        let checkpoint = read_json(&copy.join("checkpoint.json"))?;
        let pick = checkpoint["position"]["next_pick"].as_u64()?;
        (pick >= 1000).then_some(pick)
    });
    kill_9(&mut agents[1].0);
    wait_for("the spare to take shard 1 over", || {
        let view = get_json(&controller.url, "/api/agents");
        (view["run"]["shards"][1]["agent"] == "agent-3").then_some(())
    });
    let out = tokio::task::spawn_blocking(move || run.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let counted = gets(&sim);
    assert_eq!(counted.len() as u64, KEYS, "every key read");
    assert!(
        counted.iter().all(|&n| n >= 2),
        "no key read fewer than twice"
    );
    // Read again: the picks the lost agent made after the copy it sent last (about a
    // second of its 500 a second), not its shard.
    let extra: u64 = counted.iter().map(|n| n - 2).sum();
    assert!(
        extra <= 1500,
        "{extra} GETs beyond two per key; the copy was at pick {saved}"
    );
    let manifest = read_json(&merged_run(&controller_results).join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "completed", "{manifest}");
}
