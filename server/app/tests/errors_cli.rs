//! Errors a person can act on, from every command that meets them: a missing bucket is
//! named with its endpoint (and a download that never got going leaves no folder), a
//! workload's bad flow-map value is explained at its line and column with the forms
//! the field takes (no serde internals), and `validate` checks many files at once.
//! `validate` runs in-process; the commands that read credentials from the
//! environment run the binary, whose environment the test sets. A key file a workload
//! reads is checked before a run, and one endpoint spelled two ways is one endpoint.

use std::path::Path;
use std::process::{Command, Output};

mod in_process;
mod process_support;

use process_support::{BIN, start_sim};

fn keystorm(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("AWS_ACCESS_KEY_ID", "any")
        .env("AWS_SECRET_ACCESS_KEY", "any")
        .env_remove("KEYSTORM_ENDPOINT")
        .output()
        .unwrap()
}

/// `keystorm run WORKLOAD --progress quiet --results RESULTS` and `more`.
fn run_quietly(workload: &str, results: &str, more: &[&str]) -> Output {
    let mut args = vec!["run", workload, "--progress", "quiet", "--results", results];
    args.extend_from_slice(more);
    keystorm(&args)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn a_missing_bucket_is_named_with_its_endpoint_by_every_command() {
    let sim = start_sim(&[]);
    let endpoint = sim.endpoint.as_str();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let expected = format!("bucket \"absent\" does not exist at {endpoint}");
    let restore = d.join("restore/deeper");
    let up = d.join("up");
    std::fs::create_dir(&up).unwrap();
    std::fs::write(up.join("a"), b"a").unwrap();

    let workload = write(
        d,
        "absent.yaml",
        &format!(
            "name: absent\ntarget: {{ endpoint: \"{endpoint}\" }}\n\
             buckets: {{ names: [absent], create: false }}\nobjects: {{ size: 6B }}\n\
             before:\n  - {{ name: fill, op: put, concurrency: 2, until_objects: 10 }}\n"
        ),
    );
    let results = d.join("results");
    let commands: Vec<Vec<&str>> = vec![
        vec![
            "run",
            &workload,
            "--progress",
            "quiet",
            "--results",
            results.to_str().unwrap(),
        ],
        vec!["list", "absent", "--endpoint", endpoint],
        vec!["list", "absent", "--endpoint", endpoint, "--mode", "serial"],
        vec![
            "download",
            "absent",
            restore.to_str().unwrap(),
            "--endpoint",
            endpoint,
        ],
        vec![
            "upload",
            up.to_str().unwrap(),
            "absent",
            "--endpoint",
            endpoint,
        ],
    ];
    for args in commands {
        let out = keystorm(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(&expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        // A failed run prints no empty table.
        assert!(out.stdout.is_empty(), "{args:?}: {:?}", out.stdout);
    }
    assert!(
        !d.join("restore").exists(),
        "the download created its folder for a bucket that is not there"
    );
}

#[test]
fn a_download_whose_listing_fails_leaves_no_folder_behind() {
    // Every LIST fails (500); the bucket itself is there, so the download gets going.
    let sim = start_sim(&["--fault", "internal-error=1", "--fault-ops", "list"]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = process_support::client(&sim.endpoint).await;
        client.create_bucket("present").await.unwrap();
    });
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("kept");
    std::fs::create_dir(&keep).unwrap();
    let target = dir.path().join("new/deeper");
    let out = keystorm(&[
        "download",
        "present",
        target.to_str().unwrap(),
        "--endpoint",
        &sim.endpoint,
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("listing stopped"), "{err}");
    assert!(!dir.path().join("new").exists(), "left behind: {err}");

    // A folder that was there before stays, even empty.
    let out = keystorm(&[
        "download",
        "present",
        keep.to_str().unwrap(),
        "--endpoint",
        &sim.endpoint,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(keep.is_dir());
}

const WORKLOAD: &str = "name: flow
target: { endpoint: embedded, embedded: EMBEDDED }
buckets: { names: [flow] }
objects: OBJECTS
before:
  - PHASE
";

/// `validate` of WORKLOAD with its parts replaced; the one line it prints on stderr.
fn validate_error(dir: &Path, embedded: &str, objects: &str, phase: &str) -> String {
    let text = WORKLOAD
        .replace("EMBEDDED", embedded)
        .replace("OBJECTS", objects)
        .replace("PHASE", phase);
    let f = write(dir, "flow.yaml", &text);
    let err = in_process::keystorm()
        .args(["validate", &f])
        .code(2)
        .stderr();
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for internal in [
        "Option<",
        "deserialize",
        "untagged",
        "RawSize",
        "i64",
        "scalar",
    ] {
        assert!(!err.contains(internal), "leaks {internal:?}: {err}");
    }
    err
}

#[test]
fn a_comma_cut_flow_map_value_is_explained_with_the_accepted_forms() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fill = "{ name: fill, op: put, concurrency: 2, until_objects: 20 }";

    // The case that leaked "cannot deserialize null into string; use Option<String>".
    let err = validate_error(
        d,
        "{ latency: { put: lognormal:1ms,10ms } }",
        "{ size: 1KiB }",
        fill,
    );
    assert!(err.contains("flow.yaml:2:"), "{err}");
    assert!(err.contains("`put: lognormal:1ms,10ms`"), "{err}");
    assert!(err.contains("a key `10ms` without a value"), "{err}");
    assert!(
        err.contains("quote it: `put: \"lognormal:1ms,10ms\"`"),
        "{err}"
    );
    assert!(
        err.contains("`1ms..3ms`") && err.contains("`exp:2ms`"),
        "{err}"
    );

    // Quoted as advised, it is valid.
    let text = WORKLOAD
        .replace("EMBEDDED", "{ latency: { put: \"lognormal:1ms,10ms\" } }")
        .replace("OBJECTS", "{ size: 1KiB }")
        .replace("PHASE", fill);
    in_process::keystorm()
        .args(["validate", &write(d, "quoted.yaml", &text)])
        .success();

    let cases = [
        // sizes, durations, mixes: cut by a comma, or of the wrong kind
        (
            "{ storage: memory }",
            "{ size: 1KiB,4KiB }",
            fill,
            "a range `1KiB-4KiB`",
        ),
        (
            "{ storage: memory }",
            "{ size: { 1KiB: 70,30 } }",
            fill,
            "weights `{4KiB: 70, 1MiB: 30}`",
        ),
        (
            "{ storage: memory }",
            "{ size: [1KiB] }",
            fill,
            "a range `1KiB-4KiB`",
        ),
        (
            "{ storage: memory }",
            "{ size: 1KiB }",
            "{ name: d, op: put, duration: 1m,30s }",
            "`2m30s`",
        ),
        (
            "{ storage: memory }",
            "{ size: 1KiB }",
            "{ name: d, op: put, duration: [10s] }",
            "`2m30s`",
        ),
        (
            "{ storage: memory }",
            "{ size: 1KiB }",
            "{ name: m, mix: { get: 70, put: 20,10 }, operations: 20 }",
            "`{get: 70, put: 20, list: 5, delete: 5}`",
        ),
        (
            "{ storage: memory }",
            "{ size: 1KiB }",
            "{ name: m, mix: { get: 70%, put: 30 }, operations: 20 }",
            "`70%` is not a whole number",
        ),
        (
            "{ storage: memory }",
            "{ size: 1KiB }",
            "{ name: m, mix: { get: 70, put: }, operations: 20 }",
            "`put` needs a whole number",
        ),
        (
            "{ latency: { put: } }",
            "{ size: 1KiB }",
            fill,
            "`put` has no value",
        ),
        (
            "{ faults: { slow_down: 1% } }",
            "{ size: 1KiB }",
            fill,
            "a fraction of requests",
        ),
        (
            "{ storage: memory }",
            "{ size: 1KiB, metadata: { team: team-{i%3} } }",
            fill,
            "quote values that hold",
        ),
        (
            "{ storage: memory }",
            "{ size: 1KiB }",
            "{ name: d, op: get, select: { zipf: }, duration: 1s }",
            "`uniform` or `{zipf: 1.1}`",
        ),
    ];
    for (embedded, objects, phase, expected) in cases {
        let err = validate_error(d, embedded, objects, phase);
        assert!(
            err.contains(expected),
            "{embedded} {objects} {phase}: {err}"
        );
        assert!(err.contains("flow.yaml:"), "{err}");
    }
}

#[test]
fn validate_checks_every_file_given_and_exits_2_if_any_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = WORKLOAD
        .replace("EMBEDDED", "{ storage: memory }")
        .replace("OBJECTS", "{ size: 1KiB }")
        .replace(
            "PHASE",
            "{ name: fill, op: put, workers: 2, until_objects: 20 }",
        );
    let a = write(d, "a.yaml", &good);
    let b = write(
        d,
        "b.yaml",
        &good.replace("size: 1KiB", "size: 1KiB, colour: red"),
    );
    let c = write(d, "c.yaml", &good.replace("name: flow", "name: other"));
    let missing = d.join("missing.yaml");
    let missing = missing.to_str().unwrap();

    let stdout = in_process::keystorm()
        .args(["validate", &a, &c])
        .success()
        .stdout();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with(&format!("{a}: ok")), "{stdout}");
    assert!(lines[1].starts_with(&format!("{c}: ok")), "{stdout}");
    assert!(lines[1].contains("\"other\""), "{stdout}");

    // Each file is checked even after one failed; the exit code says some did.
    let out = in_process::keystorm()
        .args(["validate", &b, &a, missing, &c])
        .code(2);
    let (stdout, err) = (out.stdout(), out.stderr());
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    let errors: Vec<&str> = err.lines().collect();
    assert_eq!(errors.len(), 2, "{err}");
    assert!(
        errors[0].starts_with(&format!("error: {b}:4:")) && errors[0].contains("colour"),
        "{err}"
    );
    assert!(errors[1].contains(missing), "{err}");

    // No file at all is a usage error.
    in_process::keystorm().arg("validate").code(2);
}

#[test]
fn small_mistakes_get_errors_that_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    // Keys the target refuses: the bucket and endpoint named, and why.
    let sim = start_sim(&["--access-key", "right", "--secret-key", "right-secret"]);
    let out = keystorm(&["list", "locked", "--endpoint", &sim.endpoint]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "bucket \"locked\" at {}: access denied (HTTP 403)",
            sim.endpoint
        )),
        "{err}"
    );

    // An endpoint that is not a URL is bad input for a run as for the other commands.
    let workload = write(
        d,
        "tiny.yaml",
        "name: tiny\ntarget: { endpoint: embedded }\nbuckets: { names: [tiny] }\n\
         objects: { size: 6B }\nbefore:\n  - { name: fill, op: put, concurrency: 2, until_objects: 10 }\n",
    );
    let results = d.join("results");
    let results = results.to_str().unwrap();
    let out = keystorm(&[
        "run",
        &workload,
        "--endpoint",
        "127.0.0.1:9000",
        "--results",
        results,
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("must start with http://"));

    // A download into a file is refused before anything is fetched; the file stays.
    let file = write(d, "notes.txt", "keep me");
    let out = keystorm(&["download", "b", &file, "--endpoint", &sim.endpoint]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("is not a folder"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");

    // A run id prefix that fits two runs says so instead of "no run".
    for _ in 0..2 {
        let out = run_quietly(&workload, results, &[]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = keystorm(&["show", "2", "--results", results]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("2 runs start with \"2\""), "{err}");
    let out = keystorm(&["show", "nothing-like-it", "--results", results]);
    assert!(
        stderr(&out).contains("`keystorm ls` lists them"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_key_file_that_is_missing_empty_or_of_another_kind_is_refused_before_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let empty = d.join("empty.keys");
    std::fs::write(&empty, b"").unwrap();
    let parquet = d.join("inventory.parquet");
    std::fs::write(&parquet, [b"PAR1".as_slice(), &[7; 100], b"PAR1"].concat()).unwrap();
    let missing = d.join("missing.keys");
    let results = d.join("results");
    for (file, says) in [
        (&empty, "empty.keys is not a keystorm key file (too short"),
        (
            &parquet,
            "inventory.parquet is not a keystorm key file (no keystorm key file header",
        ),
        (&missing, "missing.keys: No such file"),
    ] {
        let workload = write(
            d,
            "reads.yaml",
            &format!(
                "name: reads\ntarget: {{ endpoint: embedded }}\nbuckets: {{ names: [reads] }}\n\
                 before:\n  - name: get\n    op: get\n    operations: 10\n    keys: {{ file: {:?} }}\n",
                file.to_str().unwrap()
            ),
        );
        // At the line and column of `keys`, by `validate` and by `run` alike.
        let at = format!("{workload}:8:11: phase \"get\" reads `keys: {{file}}`: ");
        let err = in_process::keystorm()
            .args(["validate", &workload])
            .code(2)
            .stderr();
        assert!(err.starts_with(&format!("error: {at}")), "{err}");
        assert!(err.contains(says), "{err}");
        let out = run_quietly(&workload, results.to_str().unwrap(), &[]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&at) && err.contains(says), "{err}");
        // Refused before a run folder was made.
        let runs = std::fs::read_dir(&results).map_or(0, |r| r.count());
        assert_eq!(runs, 0, "{err}");
    }
}

#[test]
fn one_endpoint_is_one_however_its_url_is_spelled() {
    let sim = start_sim(&[]);
    let endpoint = sim.endpoint.as_str();
    let shouted = endpoint.replacen("http://", "HTTP://", 1);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let results = d.join("results");
    let results = results.to_str().unwrap();
    let workload = write(
        d,
        "tiny.yaml",
        "name: tiny\ntarget: { endpoint: embedded }\nbuckets: { names: [tiny], create: true }\n\
         objects: { size: 6B }\nbefore:\n  - { name: fill, op: put, workers: 2, until_objects: 10 }\n",
    );
    // Named twice on the command line: refused before anything runs.
    for twice in [
        format!("{endpoint},{endpoint}/"),
        format!("{endpoint}, {shouted}"),
    ] {
        let out = keystorm(&["run", &workload, "--endpoint", &twice, "--results", results]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{twice}: {err}");
        assert!(
            err.contains(&format!("--endpoint {endpoint:?} is listed twice")),
            "{err}"
        );
    }
    assert_eq!(std::fs::read_dir(results).map_or(0, |r| r.count()), 0);
    // A scheme in capitals is the same scheme.
    let out = run_quietly(&workload, results, &["--endpoint", &shouted]);
    assert!(out.status.success(), "{}", stderr(&out));
    // And so in a workload: one URL, and one endpoint however it is written.
    let shouting = write(
        d,
        "shouting.yaml",
        &format!(
            "name: shouting\ntarget: {{ endpoint: \"{shouted}/\" }}\nbuckets: {{ names: [tiny] }}\n\
             before:\n  - {{ name: fill, op: put, workers: 2, until_objects: 10 }}\n"
        ),
    );
    let said = in_process::keystorm()
        .args(["validate", &shouting])
        .success()
        .stdout();
    assert!(said.contains(&format!("on {endpoint}")), "{said}");
    let twice = write(
        d,
        "twice.yaml",
        &format!(
            "name: twice\ntarget:\n  endpoints:\n    - {endpoint}\n    - {shouted}/\n\
             buckets: {{ names: [tiny] }}\nbefore:\n  - {{ name: fill, op: put, until_objects: 10 }}\n"
        ),
    );
    let err = in_process::keystorm()
        .args(["validate", &twice])
        .code(2)
        .stderr();
    assert!(
        err.contains(&format!(
            "{twice}:5:7: endpoint {endpoint:?} is listed twice"
        )),
        "{err}"
    );
}
