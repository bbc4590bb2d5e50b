//! Several endpoints from the command line: `keystorm sim --ports` serves one store on
//! three ports; shard 0 of a workload drives two of them (`--endpoint A --endpoint B`),
//! shard 1 the third (`--endpoint C`). `keystorm show --by endpoint` breaks each shard's
//! rows down by endpoint, and `keystorm merge` makes one run whose rows and intervals
//! break down by all three: each endpoint's counts add up to the rows exactly, and the
//! latency of the endpoint a shard drove alone is that shard's, read from the merged
//! histograms.

mod process_support;

use std::path::Path;

use process_support::{keystorm, sim_ports, summary_rows, write_workload};

fn run_ok(args: &[&str], results: &Path) -> String {
    let out = keystorm(args, results).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn the_run(results: &Path) -> std::path::PathBuf {
    process_support::the_run(results)
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

#[test]
fn shards_on_their_own_endpoints_merge_into_one_run_broken_down_by_all_of_them() {
    let ports = sim_ports(3);
    let urls = &ports.1;
    let dir = tempfile::tempdir().unwrap();
    let wl = write_workload(
        dir.path(),
        "spread",
        "name: spread\nbuckets: { names: [spread], create: true }\nobjects: { size: 1KiB }\n\
         before:\n  - { name: fill, op: put, concurrency: 4, until_objects: 1000 }\n\
         rounds:\n  count: 1\n  phases:\n    - { name: read, op: get, concurrency: 4, operations: 1000 }\n",
    );
    let wl = wl.to_str().unwrap();
    let (r0, r1) = (dir.path().join("s0"), dir.path().join("s1"));
    // Shard 0 first (it creates the bucket), then shard 1.
    run_ok(
        &[
            "run",
            wl,
            "--shard",
            "0/2",
            "--endpoint",
            &urls[0],
            "--endpoint",
            &urls[1],
            "--progress",
            "quiet",
        ],
        &r0,
    );
    run_ok(
        &[
            "run",
            wl,
            "--shard",
            "1/2",
            "--endpoint",
            &urls[2],
            "--progress",
            "quiet",
        ],
        &r1,
    );
    let (run0, run1) = (the_run(&r0), the_run(&r1));

    // Each shard shows its own endpoints.
    let shown = run_ok(&["show", run0.to_str().unwrap(), "--by", "endpoint"], &r0);
    // The table's lines (the first names the run and its endpoints).
    let rows_at =
        |shown: &str, url: &str| shown.lines().skip(1).filter(|l| l.contains(url)).count();
    for url in &urls[..2] {
        assert_eq!(rows_at(&shown, url), 2, "fill and read at {url}:\n{shown}");
    }
    assert!(!shown.contains(urls[2].as_str()), "{shown}");
    let shown = run_ok(&["show", run1.to_str().unwrap(), "--by", "endpoint"], &r1);
    assert_eq!(rows_at(&shown, &urls[2]), 2, "{shown}");

    // Merged: every row breaks down by the three endpoints.
    let merged_root = dir.path().join("merged");
    let out = keystorm(
        &[
            "merge",
            run0.to_str().unwrap(),
            run1.to_str().unwrap(),
            "-o",
            merged_root.to_str().unwrap(),
        ],
        dir.path(),
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = the_run(&merged_root);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["endpoints"], serde_json::json!(urls));
    let shard1 = summary_rows(&run1);
    for row in summary_rows(&merged) {
        let endpoints = row["endpoints"].as_array().unwrap();
        assert_eq!(endpoints.len(), 3, "{row}");
        for field in ["ops", "errors", "bytes"] {
            let sum: u64 = endpoints.iter().map(|e| u(&e[field])).sum();
            assert_eq!(sum, u(&row[field]), "{field} of {row}");
        }
        // The endpoint shard 1 drove alone is shard 1's row, latency and all.
        let alone = endpoints
            .iter()
            .find(|e| e["endpoint"] == urls[2].as_str())
            .unwrap();
        let theirs = shard1
            .iter()
            .find(|r| r["phase"] == row["phase"] && r["op"] == row["op"])
            .unwrap();
        assert_eq!(u(&alone["ops"]), u(&theirs["ops"]), "{row}");
        assert_eq!(alone["latency_us"], theirs["latency_us"], "{row}");
    }
    // And so do its intervals.
    let reads: u64 = process_support::intervals(&merged)
        .iter()
        .filter(|r| r["phase"] == "read")
        .flat_map(|r| r["endpoints"].as_array().cloned().unwrap_or_default())
        .map(|e| u(&e["ops"]["get"]["ops"]))
        .sum();
    assert_eq!(reads, 1000);
    let shown = run_ok(
        &["show", merged.to_str().unwrap(), "--by", "endpoint"],
        dir.path(),
    );
    for url in urls {
        assert!(shown.contains(url.as_str()), "{url}:\n{shown}");
    }
    // Tails counted again at other marks: each endpoint's from its own histograms,
    // adding up to the row's.
    let json: serde_json::Value = serde_json::from_str(&run_ok(
        &[
            "show",
            merged.to_str().unwrap(),
            "--json",
            "--tail-marks",
            "1ms,3ms",
        ],
        dir.path(),
    ))
    .unwrap();
    for row in json["rows"].as_array().unwrap() {
        for i in 0..2 {
            let at = |r: &serde_json::Value| r["latency_us"]["slower_than"][i]["count"].clone();
            let parts: u64 = row["endpoints"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| at(e).as_u64().unwrap())
                .sum();
            assert_eq!(Some(parts), at(row).as_u64(), "{row:#}");
        }
    }
}
