//! A read of a bucket keystorm did not write, split over agents: each agent lists the
//! bucket into its own key file and reads its shard's positions of it, so with
//! `epochs: 2` the agents together read every key exactly twice — proven by the
//! target's own count per key (it runs in this test's process) — and the merged run
//! counts each of those GETs once.

mod fleet_support;
mod process_support;

use std::path::Path;

use fleet_support::{Agent, merged_run, start_agent_with, start_controller, start_split_run_with};
use process_support::{summary_rows, workload, write_workload};

const KEYS: u64 = 2001;
const BUCKET: &str = "theirs";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_read_every_listed_key_exactly_as_often_as_the_epochs_say() {
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
    for i in 0..KEYS {
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
    let dir = tempfile::tempdir().unwrap();
    let controller_results = dir.path().join("controller");
    let controller = start_controller(&controller_results);
    let agent = |i: u32| -> Agent {
        let results = dir.path().join(format!("agent-{i}"));
        start_agent_with(
            &controller.url,
            &format!("agent-{i}"),
            Path::new(&results),
            &[],
            std::process::Stdio::null(),
        )
    };
    let _agents: Vec<Agent> = (0..3).map(agent).collect();
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

    let counted: Vec<u64> = sim
        .key_requests(keystorm_sim::Op::GetObject)
        .into_iter()
        .filter(|((b, _), _)| b == BUCKET)
        .map(|(_, n)| n)
        .collect();
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
