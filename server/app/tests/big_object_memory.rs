//! Big objects move in bounded memory: the client's memory does not grow with the size
//! of the objects it moves. The same run — objects written and read in single
//! requests and in parts, parts and ranges in parallel — against a target in its own
//! process, with objects of 24 MiB and then of 96 MiB, peaks at the same resident set
//! (the kernel's own count, from the finished process's resource usage) within a
//! fraction of one object. Bodies are sent as slices of a 16 MiB content buffer and
//! read bodies are dropped as they stream, so nothing is held per object or per part.

mod process_support;

use std::io::Read;
use std::process::Stdio;

use process_support::{keystorm, start_sim, summary_rows, the_run, write_workload};

#[test]
fn memory_does_not_grow_with_the_size_of_the_objects() {
    let sim = start_sim(&["--storage", "size-only"]);
    let smaller = peak_rss_mib(&sim.endpoint, 24);
    let larger = peak_rss_mib(&sim.endpoint, 96);
    // Holding one object whole, or a buffer the size of one, would add 72 MiB (an
    // uncapped content buffer measured 186 against 112). Bounded, the two differ by
    // 4-15 MiB on an idle machine and by up to 26 MiB with both cores kept busy (more
    // of the parts' data in flight at once): half an object's 72 MiB tells them apart.
    assert!(
        larger < smaller + 36,
        "peak RSS {smaller} MiB with objects of 24 MiB, {larger} MiB with 96 MiB"
    );
}

/// Runs the workload with objects of `object_mib` MiB (a bucket of their own); checks
/// every phase moved what it should and returns the client's peak RSS in MiB.
fn peak_rss_mib(endpoint: &str, object_mib: u64) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let single = "parts_above: 1GiB";
    let parted = "part_size: 16MiB, parts_in_flight: 4";
    let text = format!(
        "name: bigmem\ntarget: {{ endpoint: \"{endpoint}\" }}\nbuckets: {{ names: [big{object_mib}] }}\n\
         objects: {{ size: {object_mib}MiB, content: random }}\n\
         before:\n  - {{ name: put-one, op: put, concurrency: 2, until_objects: 2, {single} }}\n\
         after:\n  - {{ name: get-one, op: get, concurrency: 2, operations: 2, {single} }}\n\
         \x20 - {{ name: get-ranges, op: get, concurrency: 2, operations: 2, {parted} }}\n\
         \x20 - {{ name: put-parts, op: put, concurrency: 2, operations: 2, {parted} }}\n"
    );
    let wl = write_workload(dir.path(), "bigmem", &text);
    #[expect(
        clippy::zombie_processes,
        reason = "reaped by wait4, which also gives its resource usage"
    )]
    let mut child = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "quiet"],
        &results,
    )
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stderr_pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        stderr_pipe.read_to_string(&mut s).unwrap();
        s
    });
    let (status, peak_kib) = wait_with_peak_rss(child.id());
    let stderr = reader.join().unwrap();
    assert!(status == 0, "exit {status}: {stderr}");

    let rows = summary_rows(&the_run(&results));
    for phase in ["put-one", "get-one", "get-ranges", "put-parts"] {
        let row = rows
            .iter()
            .find(|r| r["phase"] == phase)
            .unwrap_or_else(|| panic!("no row for {phase}: {rows:#?}"));
        assert_eq!(
            (row["ops"].as_u64(), row["errors"].as_u64()),
            (Some(2), Some(0)),
            "{row:#?}"
        );
        assert_eq!(
            row["bytes"].as_u64(),
            Some((2 * object_mib) << 20),
            "{phase}"
        );
    }
    peak_kib / 1024
}

/// Waits for process `pid` (a child of this one); its exit code and its peak resident
/// set in KiB, as the kernel counted it.
fn wait_with_peak_rss(pid: u32) -> (i32, u64) {
    let mut status = 0;
    // SAFETY: rusage is plain data the kernel fills in; zeroed is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into the two locals above.
    let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(r, pid as libc::pid_t, "wait4");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (code, usage.ru_maxrss as u64)
}
