//! kill -9 in the middle of a phase reading a bucket keystorm did not write — while it
//! reads (an `epochs` phase) and while it lists the bucket for its keys — and a resume
//! that continues it. The target runs in this test's process and counts the GETs it
//! answers per key, so the promise is checked from its side: after the crash and the
//! resume every key was read at least as many times as the epochs ask, only the picks
//! made since the last checkpoint (seconds of work) were read again, and a listing cut
//! short goes on from its checkpoint and puts every key in the key file once.

mod process_support;

use std::process::Stdio;

use process_support::{
    keystorm, kill_9, resume, summary_rows, the_run, wait_for_checkpoint, workload, write_workload,
};

const KEYS: u64 = 3000;
const BUCKET: &str = "epochs";

/// A target that counts GETs per key (and takes `list_latency` per LIST), holding the
/// bucket another program filled (written straight into it).
async fn foreign_bucket(list_latency: Option<std::time::Duration>) -> keystorm_sim::SimHandle {
    let sim = keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        keystorm_sim::SimConfig {
            tally_keys: true,
            latency: keystorm_sim::LatencyConfig {
                list: list_latency.map(keystorm_types::Delay::Fixed),
                ..Default::default()
            },
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
                format!("someone/else's {i:05}").as_bytes(),
                keystorm_sim::Object {
                    size: 100 + i % 7,
                    etag: [7; 16],
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

/// Starts `keystorm run` on `text`; the process, the results root and the run folder.
fn start_run(
    dir: &std::path::Path,
    text: &str,
) -> (std::process::Child, std::path::PathBuf, std::path::PathBuf) {
    let results = dir.join("results");
    let wl = write_workload(dir, "epochs", text);
    let run = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "quiet"],
        &results,
    )
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    let run_dir = the_run(&results);
    (run, results, run_dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_for_keys_killed_mid_way_goes_on_from_its_checkpoint() {
    // 10 keys a page, 40 ms a page, one lister: 300 pages take 12 s.
    let sim = foreign_bucket(Some(std::time::Duration::from_millis(40))).await;
    let text = workload(
        BUCKET,
        &sim.endpoint(),
        "size: 1KiB",
        "before:\n  \
         - { name: read, op: get, concurrency: 8, epochs: 1, page_size: 10, list_concurrency: 1, \
         keys: { from: listing, mode: serial } }\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let (mut run, results, run_dir) = start_run(dir.path(), &text);
    let checkpoint = run_dir.join("keys-0.checkpoint.json");
    let saved = process_support::wait_for("the listing's checkpoint a third of the way", || {
        process_support::read_json(&checkpoint).filter(|c| c["keys"].as_u64() >= Some(1000))
    });
    kill_9(&mut run);
    assert!(gets(&sim).is_empty(), "killed while listing");
    let lists_before = sim.requests(keystorm_sim::Op::ListObjectsV2);

    let out = resume(&run_dir, &results, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The resume listed what the checkpoint had left (and what was listed after it).
    let listed_again = sim.requests(keystorm_sim::Op::ListObjectsV2) - lists_before;
    let pages_saved = saved["requests"].as_u64().unwrap();
    assert!(
        listed_again <= 300 - pages_saved + 2,
        "{listed_again} pages listed after the resume; the checkpoint had {pages_saved}"
    );
    // Every key in the key file once: each read exactly once.
    let counted = gets(&sim);
    assert_eq!(counted.len() as u64, KEYS);
    assert!(counted.values().all(|&n| n == 1), "one GET per key");
    assert!(!run_dir.join("keys-0.keys.runs").exists(), "runs gone");
    assert!(!checkpoint.exists(), "checkpoint gone");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_epochs_phase_killed_mid_epoch_leaves_no_key_out_after_the_resume() {
    let sim = foreign_bucket(None).await;
    // 2 epochs of 3000 picks at 1500 a second: four seconds, checkpoints every second.
    let text = workload(
        BUCKET,
        &sim.endpoint(),
        "size: 1KiB",
        "before:\n  \
         - { name: read, op: get, concurrency: 8, rate: 1500, epochs: 2, keys: { from: listing } }\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let wl = write_workload(dir.path(), "epochs", &text);
    let mut run = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "quiet"],
        &results,
    )
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    let run_dir = the_run(&results);
    // Well into the first epoch, by the checkpoint's own count.
    let saved = wait_for_checkpoint(&run_dir, "the reads under way", |c| {
        c["position"]["next_pick"].as_u64() >= Some(1500)
    });
    kill_9(&mut run);
    let read_when_killed: u64 = gets(&sim).values().sum();
    assert!(
        read_when_killed < 2 * KEYS,
        "killed mid-phase: {read_when_killed} GETs"
    );
    assert!(saved["position"]["next_pick"].as_u64() <= Some(read_when_killed));

    let out = resume(&run_dir, &results, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let counted = gets(&sim);
    assert_eq!(counted.len() as u64, KEYS, "every listed key was read");
    let short: Vec<_> = counted.iter().filter(|(_, n)| **n < 2).collect();
    assert!(short.is_empty(), "read fewer than twice: {short:?}");
    // Read again: only picks made after the last checkpoint the resume started from.
    let total: u64 = counted.values().sum();
    let checkpoint = process_support::read_json(&run_dir.join("checkpoint.json"));
    let extra = total - 2 * KEYS;
    assert!(
        extra <= read_when_killed - saved["position"]["next_pick"].as_u64().unwrap() + 8,
        "{extra} GETs beyond two per key; {read_when_killed} when killed, saved {saved:#}, now {checkpoint:#?}"
    );
    // The run's own count agrees with the target's: every GET it sent is in a row.
    let sent: u64 = summary_rows(&run_dir)
        .iter()
        .filter(|r| r["phase"] == "read" && r["op"] == "get")
        .map(|r| r["ops"].as_u64().unwrap() + r["errors"].as_u64().unwrap())
        .sum();
    assert!(
        sent <= total && sent >= 2 * KEYS,
        "{sent} recorded, {total} answered"
    );
}

/// GETs per key of the bucket, by the target's count.
fn gets(sim: &keystorm_sim::SimHandle) -> std::collections::HashMap<String, u64> {
    sim.key_requests(keystorm_sim::Op::GetObject)
        .into_iter()
        .filter(|((b, _), _)| b == BUCKET)
        .map(|((_, k), n)| (k, n))
        .collect()
}
