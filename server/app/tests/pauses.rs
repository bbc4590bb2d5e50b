//! A run stopped with Ctrl-C and resumed later keeps the time it did not run on its
//! record: a `pause` event from where it stopped to where it went on, no interval
//! inside it, a whole-phase rate that divides by the time the phase ran, a wall time
//! that keeps the pause, and `show` listing it. (The controller outage of a run split
//! over agents is checked in `agents.rs`, on the merged run.)

mod process_support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use process_support::{
    events_named, interrupt, intervals, keystorm, resume, start_sim, summary_rows, the_run,
    wait_for_checkpoint, workload, write_workload,
};

/// How long the run stays stopped before it is resumed: the pause the test makes.
const STOPPED: Duration = Duration::from_secs(3);

#[tokio::test]
async fn a_run_stopped_and_resumed_later_records_the_pause_and_its_rates_leave_it_out() {
    const N: u64 = 12_000;
    let sim = start_sim(&["--storage", "size-only"]);
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let text = workload(
        "paused",
        &sim.endpoint,
        "size: 6B",
        &format!(
            "before:\n  - {{ name: fill, op: put, concurrency: 8, rate: 2000, until_objects: {N} }}\n"
        ),
    );
    let wl = write_workload(dir.path(), "paused", &text);
    let run = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "quiet"],
        &results,
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let run_dir = the_run(&results);
    wait_for_checkpoint(&run_dir, "a checkpoint 3,000 objects into the fill", |c| {
        c["window"]["head"].as_u64().unwrap() >= 3_000
    });
    interrupt(&run);
    let stopped = run.wait_with_output().unwrap();
    assert_eq!(stopped.status.code(), Some(130));
    let stopped_at = Instant::now();
    // The pause itself: the run stays stopped a while before it is resumed.
    std::thread::sleep(STOPPED);
    let out = resume(&run_dir, &results, &[]);
    let paused_for = stopped_at.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // One pause, from where the run stopped to where it went on.
    let pauses = events_named(&run_dir, "pause");
    assert_eq!(pauses.len(), 1, "{pauses:#?}");
    let pause = &pauses[0];
    assert_eq!(pause["reason"], "interrupted", "{pause}");
    assert_eq!(pause["phase"]["name"], "fill", "{pause}");
    let (from, to) = (
        pause["from_t_s"].as_f64().unwrap(),
        pause["to_t_s"].as_f64().unwrap(),
    );
    let seconds = to - from;
    assert!(
        seconds >= STOPPED.as_secs_f64() && seconds <= paused_for + 1.0,
        "a pause of {seconds} s for {paused_for} s stopped"
    );
    let detail = pause["detail"].as_str().unwrap();
    assert!(detail.contains("--resume"), "{detail}");

    // No interval lies inside it: the chart has nothing to draw across it.
    let fill: Vec<(f64, f64)> = intervals(&run_dir)
        .iter()
        .filter(|r| r["phase"] == "fill")
        .map(|r| {
            (
                r["t_s"].as_f64().unwrap(),
                r["duration_s"].as_f64().unwrap(),
            )
        })
        .collect();
    let inside: Vec<&(f64, f64)> = fill
        .iter()
        .filter(|(t, d)| *t + d > from + 0.05 && *t < to - 0.05)
        .collect();
    assert!(
        inside.is_empty(),
        "intervals {inside:?} inside the pause {from}-{to}"
    );
    assert!(fill.iter().any(|(t, _)| *t >= to) && fill.iter().any(|(t, _)| *t < from));

    // The phase's rate divides by the time it ran (its intervals), not the wall clock;
    // its wall time keeps the pause.
    let rows = summary_rows(&run_dir);
    let parts: Vec<keystorm_results::SummaryRow> = rows
        .iter()
        .map(|r| serde_json::from_value(r.clone()).unwrap())
        .collect();
    let whole = keystorm_results::whole_phase_rows(&run_dir, &parts);
    let row = whole.iter().find(|r| r.phase == "fill").unwrap();
    let active: f64 = fill.iter().map(|(_, d)| d).sum();
    let by_active = row.stats.ops as f64 / active;
    assert!(
        (row.stats.ops_per_sec - by_active).abs() <= 0.02 * by_active,
        "{} ops/s against {} ops in {active} s measured",
        row.stats.ops_per_sec,
        row.stats.ops
    );
    let wall = row
        .wall_s
        .expect("a phase run in parts keeps its wall time");
    assert!(
        wall >= row.duration_s + seconds - 0.5 && wall <= row.duration_s + seconds + 2.0,
        "wall {wall} s for {} s run and {seconds} s paused",
        row.duration_s
    );

    // `show` lists the pause and says which time the rate divides by.
    let id = run_dir.file_name().unwrap().to_str().unwrap();
    let shown = keystorm(&["show", id], &results).output().unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("timeline (seconds from the run's start):"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("paused {seconds:.1} s (interrupted)")),
        "{shown}"
    );
    assert!(
        shown.contains("before fill: ran ") && shown.contains("its rates divide by the"),
        "{shown}"
    );
}
