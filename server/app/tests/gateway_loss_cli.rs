//! A gateway lost and back, as the command line tells it: a run drives two ports of
//! `keystorm sim --ports`; one is closed mid-phase through the other's admin API and
//! reopened. `keystorm run` prints the `endpoint URL down at …` and `… up at …` lines
//! with the URL and shows the gateways' state on its progress lines, `keystorm show`
//! lists both in its timeline, and `summary.csv` follows each row with a line per
//! endpoint adding up to it.

mod process_support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;

use process_support::{DEADLINE, admin_post, keystorm, sim_ports, the_run, write_workload};

/// The port of `url` (`http://127.0.0.1:PORT`).
fn port(url: &str) -> &str {
    url.rsplit(':').next().unwrap()
}

/// Lines of the run's standard error as they come, until one satisfies `wanted`.
fn wait_for_line(
    lines: &mpsc::Receiver<String>,
    seen: &mut Vec<String>,
    what: &str,
    wanted: impl Fn(&str) -> bool,
) -> String {
    loop {
        let line = lines
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|_| panic!("no {what} line; the run printed:\n{}", seen.join("\n")));
        seen.push(line.clone());
        if wanted(&line) {
            return line;
        }
    }
}

/// A plain progress line: `[   2.0s] before fill: put 300 ops/s … | objects 600 | gw 2/2 up`.
fn is_progress(line: &str) -> bool {
    line.starts_with('[') && line.contains("| objects ")
}

#[test]
fn a_gateway_closed_and_reopened_is_told_live_listed_by_show_and_split_in_the_csv() {
    let ports = sim_ports(2);
    let (a, b) = (&ports.1[0], &ports.1[1]);
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let wl = write_workload(
        dir.path(),
        "gw",
        &format!(
            "name: gw\ntarget:\n  endpoints: [{a}, {b}]\n  \
             endpoint_health: {{ down_after: 3, probe: 200ms, probe_max: 400ms }}\n\
             buckets: {{ names: [gwloss], create: true }}\nobjects: {{ size: 1KiB }}\n\
             before:\n  - {{ name: fill, op: put, concurrency: 4, rate: 300, duration: 12s }}\n"
        ),
    );
    let mut run = keystorm(
        &["run", wl.to_str().unwrap(), "--progress", "plain"],
        &results,
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let (send, lines) = mpsc::channel();
    let stderr = BufReader::new(run.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();

    // Both up while the phase goes.
    let line = wait_for_line(&lines, &mut seen, "progress", is_progress);
    assert!(line.ends_with(" | gw 2/2 up"), "{line}");

    // Port B closed through A: the run says which endpoint went down, and when.
    let (status, body) = admin_post(a, &format!("/admin/keystorm/ports/{}/close", port(b)));
    assert!(status.contains(" 200"), "{status} {body}");
    let down = wait_for_line(&lines, &mut seen, "endpoint down", |l| {
        l.contains(" down at ")
    });
    assert!(
        down.starts_with(&format!("endpoint {b} down at ")),
        "{down}"
    );
    let line = wait_for_line(&lines, &mut seen, "progress while down", is_progress);
    assert!(
        line.ends_with(&format!(" | gw 1/2 up (down: {b})")),
        "{line}"
    );

    // Reopened: it comes back.
    let (status, body) = admin_post(a, &format!("/admin/keystorm/ports/{}/reopen", port(b)));
    assert!(status.contains(" 200"), "{status} {body}");
    let up = wait_for_line(&lines, &mut seen, "endpoint up", |l| l.contains(" up at "));
    assert!(up.starts_with(&format!("endpoint {b} up at ")), "{up}");
    let line = wait_for_line(&lines, &mut seen, "progress once back", is_progress);
    assert!(line.ends_with(" | gw 2/2 up"), "{line}");

    let status = run.wait().unwrap();
    while let Ok(l) = lines.recv_timeout(std::time::Duration::from_secs(5)) {
        seen.push(l);
    }
    assert!(status.success(), "{status}:\n{}", seen.join("\n"));
    let run_dir = the_run(&results);

    // `show` lists both in its timeline.
    let out = keystorm(&["show", run_dir.to_str().unwrap()], &results)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    for state in ["down", "up"] {
        assert!(
            shown
                .lines()
                .any(|l| l.contains(&format!("endpoint {b} {state} at "))),
            "{state}:\n{shown}"
        );
    }

    // summary.csv: the fill's row, then a line per endpoint adding up to it.
    let csv = std::fs::read_to_string(run_dir.join("summary.csv")).unwrap();
    let lines: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    let col = |name: &str| lines[0].iter().position(|h| *h == name).unwrap();
    let (endpoint, ops, errors) = (col("endpoint"), col("ops"), col("errors"));
    assert_eq!(lines.len(), 4, "{csv}");
    assert_eq!(lines[1][endpoint], "", "{csv}");
    assert_eq!(
        [lines[2][endpoint], lines[3][endpoint]],
        [a.as_str(), b.as_str()],
        "{csv}"
    );
    for c in [ops, errors] {
        let sum: u64 = lines[2..]
            .iter()
            .map(|l| l[c].parse::<u64>().unwrap())
            .sum();
        assert_eq!(sum.to_string(), lines[1][c], "{}:\n{csv}", lines[0][c]);
    }
}
