//! Process-level crash and resume of fills, against `keystorm sim` in a process of its
//! own: a fill killed with SIGKILL in the middle of its phase, under load, resumes from
//! its last checkpoint (not from zero) to exactly N objects; SIGINT stops cleanly and
//! keeps what the stopped phase measured; a resume runs with the endpoint and labels the
//! run began with, and refuses other ones. Waiting is on what the run writes.

mod process_support;

use std::process::Stdio;

use keystorm_s3::ListRequest;
use keystorm_types::ErrorClass;
use process_support::{
    client, count_objects, interrupt, intervals, keystorm, kill_9, read_json, resume, sim_requests,
    start_sim, summary_rows, the_run, wait_for_checkpoint, workload, write_workload,
};

fn fill(endpoint: &str, bucket: &str, objects: u64, rate: u64) -> String {
    workload(
        bucket,
        endpoint,
        "size: 6B",
        &format!(
            "before:\n  - {{ name: fill, op: put, concurrency: 16, rate: {rate}, until_objects: {objects} }}\n"
        ),
    )
}

fn head_of(checkpoint: &serde_json::Value) -> u64 {
    checkpoint["window"]["head"].as_u64().unwrap()
}

#[tokio::test]
async fn a_fill_killed_mid_phase_resumes_from_its_last_checkpoint() {
    const N: u64 = 40_000;
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let wl = write_workload(dir.path(), "crash", &fill(&sim.endpoint, "crash", N, 4000));
    let mut run = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "quiet"],
        &results,
    )
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    let run_dir = the_run(&results);
    // Deep into the phase, with puts in flight: the checkpoint saved during the phase
    // holds the fill's progress.
    let saved = wait_for_checkpoint(&run_dir, "a checkpoint 8,000 objects into the fill", |c| {
        head_of(c) >= 8_000
    });
    assert_eq!(saved["completed"], 0, "{saved:#}");
    assert_eq!(saved["current"]["name"], "fill");

    // A run still going cannot be resumed a second time.
    let twice = resume(&run_dir, &results, &[]);
    assert_eq!(twice.status.code(), Some(2));
    let why = String::from_utf8_lossy(&twice.stderr);
    assert!(
        why.contains(&format!("is still going (process {}", run.id())),
        "{why}"
    );

    kill_9(&mut run);
    let at_kill = count_objects(&sim.endpoint, "crash").await;
    let checkpoint = read_json(&run_dir.join("checkpoint.json")).unwrap();
    let saved_head = head_of(&checkpoint);
    assert!(
        saved_head >= 8_000 && saved_head <= at_kill && at_kill < N,
        "saved {saved_head}, {at_kill} objects at the kill"
    );
    let manifest = read_json(&run_dir.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "running", "a killed run cannot say so");
    // ... but its process is gone, and that is what is shown.
    let id = run_dir.file_name().unwrap().to_str().unwrap();
    for command in [&["ls"][..], &["show", id][..]] {
        let out = keystorm(command, &results).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("killed") && !text.contains("running"),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let out = resume(&run_dir, &results, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(count_objects(&sim.endpoint, "crash").await, N);
    let manifest = read_json(&run_dir.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "completed");
    let findings = manifest["findings"].as_array().unwrap();
    assert!(
        findings.contains(&serde_json::json!({"kind": "resumed", "text": "resumed 1 time"})),
        "{manifest:#}"
    );

    // The killed part's row is built from its intervals; the resumed part wrote only
    // what the checkpoint did not account for.
    let rows = summary_rows(&run_dir);
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_eq!(rows[0]["interrupted"], true);
    assert!(rows[0]["resumed"].is_null());
    // The killed part says what it sent of its rate, as an ended part does: its
    // requests over its measured time (else its requests would count as never sent).
    let sent = rows[0]["open_loop"]["sent_per_sec"].as_f64().unwrap()
        * rows[0]["duration_s"].as_f64().unwrap();
    let requests = (rows[0]["ops"].as_u64().unwrap() + rows[0]["errors"].as_u64().unwrap()) as f64;
    assert!((sent - requests).abs() <= 0.01 * requests, "{:#}", rows[0]);
    assert_eq!(rows[0]["open_loop"]["asked_per_sec"], 4000.0);
    // Every put the checkpoint counts was measured before it was saved.
    let measured_before_kill = rows[0]["ops"].as_u64().unwrap();
    assert!(
        measured_before_kill >= saved_head && measured_before_kill <= at_kill,
        "{measured_before_kill} measured, {saved_head} saved, {at_kill} written"
    );
    assert_eq!(rows[1]["resumed"], true);
    assert_eq!(rows[1]["objects_at_start"].as_u64(), Some(saved_head));
    assert_eq!(rows[1]["ops"].as_u64(), Some(N - saved_head));
    // The puts measured beyond the checkpoint were done again, and the resumed row says
    // how many: the PUTs counted are the keys plus those, exactly.
    assert!(rows[0]["redone"].is_null(), "{:#}", rows[0]);
    let redone = rows[1]["redone"].as_u64().unwrap_or(0);
    assert_eq!(redone, measured_before_kill - saved_head, "{:#}", rows[1]);
    assert_eq!(
        measured_before_kill + rows[1]["ops"].as_u64().unwrap(),
        N + redone
    );
    // The target received those and the puts the killed process did not live to record.
    let received = sim_requests(&sim.endpoint, "PutObject");
    assert!(
        received >= N + redone,
        "{received} received, {N} + {redone} counted"
    );

    // The resumed intervals follow on: their numbers and times after the killed ones.
    let fill: Vec<(u64, f64)> = intervals(&run_dir)
        .iter()
        .map(|r| (r["interval"].as_u64().unwrap(), r["t_s"].as_f64().unwrap()))
        .collect();
    assert!(
        fill.windows(2).all(|w| w[1].0 > w[0].0 && w[1].1 > w[0].1),
        "{fill:?}"
    );
}

#[tokio::test]
async fn sigint_stops_cleanly_keeping_what_the_phase_measured() {
    let sim = start_sim(&[]);
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let wl = write_workload(
        dir.path(),
        "crash",
        &fill(&sim.endpoint, "crash", 1_000_000, 2000),
    );
    let run = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "plain"],
        &results,
    )
    .stderr(Stdio::piped())
    .stdout(Stdio::piped())
    .spawn()
    .unwrap();
    let run_dir = the_run(&results);
    wait_for_checkpoint(&run_dir, "a few objects written", |c| head_of(c) >= 1_000);
    interrupt(&run);
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let id = run_dir.file_name().unwrap().to_str().unwrap();
    assert!(stderr.contains(&format!("--resume {id}")), "{stderr}");
    // Progress says the phase was stopped, not that it is done.
    assert!(
        stderr.contains("before fill: interrupted after "),
        "{stderr}"
    );
    assert!(!stderr.contains("fill: done"), "{stderr}");

    let manifest = read_json(&run_dir.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "interrupted");
    assert!(manifest["ended_at"].is_string());
    let checkpoint = read_json(&run_dir.join("checkpoint.json")).unwrap();
    let head = head_of(&checkpoint);
    assert_eq!(
        head,
        count_objects(&sim.endpoint, "crash").await,
        "a clean stop saves exactly what the target holds"
    );
    // The stopped phase's figures are kept: in the table printed, and in summary.json.
    let rows = summary_rows(&run_dir);
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["interrupted"], true);
    assert_eq!(rows[0]["ops"].as_u64(), Some(head));
    let table = String::from_utf8_lossy(&out.stdout);
    let line = table
        .lines()
        .find(|l| l.starts_with("fill (interrupted)"))
        .unwrap_or_else(|| panic!("no row for the stopped phase:\n{table}"));
    assert!(line.contains(&format!(" {head} ")), "{line}");
}

#[tokio::test]
async fn a_resume_uses_the_endpoint_and_labels_the_run_began_with() {
    let sim = start_sim(&[]);
    let other = start_sim(&[]);
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    // The workload names the embedded target; the command line points it elsewhere.
    let wl = write_workload(
        dir.path(),
        "crash",
        &fill("embedded", "moved", 30_000, 3000),
    );
    let mut run = keystorm(
        &[
            "run",
            wl.to_str().unwrap(),
            "--endpoint",
            &sim.endpoint,
            "--label",
            "host=a",
            "--progress",
            "quiet",
        ],
        &results,
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let run_dir = the_run(&results);
    wait_for_checkpoint(&run_dir, "a checkpoint mid-fill", |c| head_of(c) >= 1_000);
    interrupt(&run);
    assert_eq!(run.wait().unwrap().code(), Some(130));
    let manifest = read_json(&run_dir.join("manifest.json")).unwrap();
    assert_eq!(manifest["overrides"]["endpoint"], sim.endpoint.as_str());

    // Flags given again must agree; nothing is touched when they do not.
    for (flags, says) in [
        (vec!["--endpoint", other.endpoint.as_str()], "--endpoint"),
        (vec!["--label", "host=b"], "--label host=b"),
        (vec!["--client", "sdk"], "--client sdk"),
    ] {
        let out = resume(&run_dir, &results, &flags);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(says) && err.contains("resumed run"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let untouched = client(&other.endpoint)
        .await
        .list_objects_v2("moved", &ListRequest::default())
        .await;
    assert!(
        untouched.is_err_and(|e| e.class == ErrorClass::Http(404)),
        "the other endpoint has no such bucket"
    );

    let out = resume(&run_dir, &results, &["--label", "host=a"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(count_objects(&sim.endpoint, "moved").await, 30_000);
    let manifest = read_json(&run_dir.join("manifest.json")).unwrap();
    assert_eq!(manifest["status"], "completed");
    assert_eq!(manifest["labels"]["host"], "a");
}

#[tokio::test]
async fn a_stopped_run_on_the_embedded_target_offers_no_resume() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let wl = write_workload(
        dir.path(),
        "crash",
        &fill("embedded", "inside", 1_000_000, 2000),
    );
    let run = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "quiet"],
        &results,
    )
    .stderr(Stdio::piped())
    .stdout(Stdio::null())
    .spawn()
    .unwrap();
    let run_dir = the_run(&results);
    wait_for_checkpoint(&run_dir, "a checkpoint mid-fill", |c| head_of(c) >= 500);
    interrupt(&run);
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(!stderr.contains("--resume"), "{stderr}");
    assert!(stderr.contains("cannot be resumed"), "{stderr}");
    // Asked anyway, it says why not.
    let again = resume(&run_dir, &results, &[]);
    let why = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(2), "{why}");
    assert!(why.contains("embedded target"), "{why}");
}
