//! `keystorm sim --max-memory` against a real run: a fill past the budget gets 507s that
//! keystorm counts as `http_507` and explains once, with the target's message, on the
//! run's output; the sim keeps serving what it holds (reads of everything written, then
//! deletes), and the deletes make room for writes again.

mod process_support;

use process_support::{keystorm, last_event, start_sim, summary_rows, the_run, write_workload};

#[test]
fn a_full_sim_refuses_writes_that_keystorm_counts_and_explains() {
    let sim = start_sim(&["--max-memory", "2MiB"]);
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    // 3000 objects of 1 KiB cannot fit in 2 MiB; the reads and the deletes work on what
    // did, and the last writes fit in the room the deletes made.
    let text = format!(
        "name: full\ntarget: {{ endpoint: \"{}\" }}\nbuckets: {{ names: [full] }}\n\
         objects: {{ size: 1KiB }}\n\
         before:\n  - {{ name: fill, op: put, concurrency: 4, operations: 3000 }}\n\
         after:\n  - {{ name: read, op: get, concurrency: 4, operations: 2000 }}\n\
         \x20 - {{ name: free, op: delete, concurrency: 2, operations: 300 }}\n\
         \x20 - {{ name: refill, op: put, concurrency: 2, operations: 100 }}\n",
        sim.endpoint
    );
    let wl = write_workload(dir.path(), "full", &text);
    let out = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "quiet"],
        &results,
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");

    let rows = summary_rows(&the_run(&results));
    let row = |phase: &str| {
        rows.iter()
            .find(|r| r["phase"] == phase)
            .unwrap_or_else(|| panic!("no row for {phase}: {rows:#?}"))
            .clone()
    };
    let fill = row("fill");
    let refused = fill["error_classes"]["http_507"].as_u64().unwrap_or(0);
    let stored = fill["ops"].as_u64().unwrap();
    assert_eq!(
        fill["errors"].as_u64(),
        Some(refused),
        "only 507s: {fill:#?}"
    );
    assert!(refused > 0 && stored + refused == 3000, "{fill:#?}");
    assert!(
        (1000..2000).contains(&stored),
        "about 2 MiB of 1 KiB objects fit: {stored}"
    );
    // The message reaches the person running it, once.
    let shown: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("first http_507 error"))
        .collect();
    assert_eq!(shown.len(), 1, "{stderr}");
    assert!(
        shown[0].contains("phase fill")
            && shown[0].contains("HTTP 507 InsufficientStorage")
            && shown[0].contains("memory budget of 2.0 MiB is full")
            && shown[0].contains("--max-memory"),
        "{stderr}"
    );
    let warning = last_event(&the_run(&results), "warning");
    assert!(
        warning["data"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("InsufficientStorage")),
        "{warning}"
    );
    // Everything held is read back; deletes free room for new writes.
    for (phase, ops) in [("read", 2000), ("free", 300), ("refill", 100)] {
        let r = row(phase);
        assert_eq!(
            (r["ops"].as_u64(), r["errors"].as_u64()),
            (Some(ops), Some(0)),
            "{r:#?}"
        );
    }
}
