//! kill -9 in the middle of a fill against a real Ceph RGW (`scripts/ceph-up.sh`), then a
//! resume: the run's own complete listing counts exactly N objects, and the resumed part
//! wrote only what the last checkpoint did not account for.
//!
//! Compiled with the `rgw-tests` feature (`scripts/test.sh` brings the cluster up and
//! turns it on); it fails, rather than skips, when the cluster is not configured.

#![cfg(feature = "rgw-tests")]

mod process_support;

use std::process::Stdio;

use process_support::{
    keystorm, kill_9, last_event, read_json, summary_rows, the_run, wait_for_checkpoint,
    write_workload,
};

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: bring a cluster up with scripts/ceph-up.sh and export the \
             variables of the env file it prints (scripts/test.sh does both)"
        )
    })
}

/// `keystorm ARGS...` with the cluster's keys in the environment.
fn with_keys(args: &[&str], results: &std::path::Path) -> std::process::Command {
    let mut c = keystorm(args, results);
    c.env("AWS_ACCESS_KEY_ID", env("KEYSTORM_RGW_ACCESS_KEY"))
        .env("AWS_SECRET_ACCESS_KEY", env("KEYSTORM_RGW_SECRET_KEY"));
    c
}

#[test]
fn a_fill_killed_mid_phase_on_rgw_resumes_to_exactly_n() {
    const N: u64 = 6_000;
    let bucket = format!("ks-crash-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let text = format!(
        "name: rgw-crash\ntarget: {{ endpoint: \"{}\" }}\nbuckets: {{ names: [{bucket}] }}\n\
         objects: {{ size: 6B }}\ncheckpoint_every: 1s\nbefore:\n  \
         - {{ name: fill, op: put, concurrency: 16, rate: 400, until_objects: {N} }}\n\
         after:\n  - {{ name: census, op: list, mode: adaptive }}\n\
         cleanup: {{ objects: true, buckets: true }}\n",
        env("KEYSTORM_RGW_ENDPOINT")
    );
    let wl = write_workload(dir.path(), "rgw-crash", &text);
    let mut run = with_keys(
        &["run", wl.to_str().unwrap(), "--progress", "quiet"],
        &results,
    )
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    let run_dir = the_run(&results);
    wait_for_checkpoint(&run_dir, "a checkpoint a third into the fill", |c| {
        c["window"]["head"].as_u64() >= Some(N / 3)
    });
    kill_9(&mut run);
    let saved = read_json(&run_dir.join("checkpoint.json")).unwrap();
    let saved_head = saved["window"]["head"].as_u64().unwrap();
    assert_eq!(saved["completed"], 0, "{saved:#}");

    let id = run_dir.file_name().unwrap().to_str().unwrap();
    let out = with_keys(&["run", "--resume", id, "--progress", "quiet"], &results)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let census = last_event(&run_dir, "listing");
    assert_eq!(census["data"]["outcome"]["complete"], true);
    assert_eq!(
        census["data"]["outcome"]["keys"].as_u64(),
        Some(N),
        "{census:#}"
    );
    let fill: Vec<serde_json::Value> = summary_rows(&run_dir)
        .into_iter()
        .filter(|r| r["phase"] == "fill")
        .collect();
    assert_eq!(fill.len(), 2, "{fill:#?}");
    assert_eq!(fill[0]["interrupted"], true);
    assert_eq!(fill[1]["resumed"], true);
    assert_eq!(fill[1]["ops"].as_u64(), Some(N - saved_head), "{fill:#?}");
    // The run created the bucket before the kill, so its cleanup removes it.
    let manifest = read_json(&run_dir.join("manifest.json")).unwrap();
    assert_eq!(
        manifest["created_buckets"][0],
        bucket.as_str(),
        "{manifest:#}"
    );
    assert_eq!(
        manifest["cleanup"]["deleted"].as_u64(),
        Some(N),
        "{manifest:#}"
    );
    assert_eq!(manifest["cleanup"]["buckets_deleted"].as_u64(), Some(1));
}
