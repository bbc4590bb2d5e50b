//! `summary.csv`: a row of a run that drove several endpoints is followed by a line per
//! endpoint, adding up to it.

use super::*;
use crate::EndpointRow;
use crate::metrics::OpSummary;

fn stats(ops: u64, errors: u64, bytes: u64) -> OpSummary {
    OpSummary {
        ops,
        errors,
        bytes,
        ..Default::default()
    }
}

fn row(endpoints: Vec<EndpointRow>) -> SummaryRow {
    SummaryRow {
        section: Section::Round,
        round: Some(1),
        phase: "write".into(),
        op: OpKind::Put,
        objects_at_start: 7,
        started_at: "2026-11-29T00:00:00Z".into(),
        duration_s: 10.0,
        client_cpu_s: 0.5,
        stats: stats(300, 3, 3000),
        index_at_start: Vec::new(),
        index_at_end: Vec::new(),
        interrupted: true,
        resumed: false,
        redone: 4,
        taken_over: false,
        wall_s: None,
        open_loop: None,
        sweep: None,
        endpoints,
    }
}

fn csv(rows: &[SummaryRow]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    write_csv(rows, &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn column(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap()
}

#[test]
fn each_endpoint_gets_a_line_after_its_row_adding_up_to_it() {
    let lines = csv(&[row(vec![
        EndpointRow {
            endpoint: "http://127.0.0.1:9001".into(),
            stats: stats(200, 1, 2000),
        },
        EndpointRow {
            endpoint: "http://127.0.0.1:9002".into(),
            stats: stats(100, 2, 1000),
        },
    ])]);
    let header = &lines[0];
    assert_eq!(header.last().map(String::as_str), Some("endpoint"));
    assert_eq!(header[..4], ["section", "round", "phase", "op"]);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines.iter().all(|l| l.len() == header.len()), "{lines:?}");
    let (ep, ops, errors, bytes) = (
        column(header, "endpoint"),
        column(header, "ops"),
        column(header, "errors"),
        column(header, "bytes"),
    );
    assert_eq!(lines[1][ep], "");
    assert_eq!(lines[2][ep], "http://127.0.0.1:9001");
    assert_eq!(lines[3][ep], "http://127.0.0.1:9002");
    for c in [ops, errors, bytes] {
        let parts: u64 = lines[2..]
            .iter()
            .map(|l| l[c].parse::<u64>().unwrap())
            .sum();
        assert_eq!(parts.to_string(), lines[1][c], "column {}", header[c]);
    }
    // Each line says which row it is a part of; what belongs to the whole row is on
    // the row's own line only.
    for l in &lines[2..] {
        assert_eq!(l[..4], lines[1][..4]);
        assert_eq!(l[column(header, "part")], "interrupted");
        assert_eq!(l[column(header, "client_cpu_s")], "");
        assert_eq!(l[column(header, "redone")], "");
    }
    assert_eq!(lines[1][column(header, "redone")], "4");
}

#[test]
fn a_run_on_one_endpoint_keeps_one_line_per_row() {
    let lines = csv(&[row(Vec::new())]);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1].last().map(String::as_str), Some(""));
}

#[test]
fn each_tail_mark_has_a_column_before_endpoint() {
    let marks: crate::tail_marks::TailMarks = "500ms,1s".parse().unwrap();
    let mut h = crate::metrics::new_histogram();
    for us in [1_000, 600_000, 1_200_000, 3_000_000] {
        h.record(us).unwrap();
    }
    let mut counted = row(vec![EndpointRow {
        endpoint: "http://127.0.0.1:9001".into(),
        stats: stats(300, 3, 3000),
    }]);
    counted.stats.latency_us = crate::metrics::Percentiles::with_tails(&h, &marks);
    let lines = csv(&[counted, row(Vec::new())]);
    let header = &lines[0];
    let n = header.len();
    assert_eq!(header[n - 3..], ["over_500ms", "over_1s", "endpoint"]);
    assert!(lines.iter().all(|l| l.len() == n), "{lines:?}");
    assert_eq!(lines[1][n - 3..n - 1], ["3", "2"], "the row's counts");
    assert_eq!(
        lines[2][n - 3..n - 1],
        ["", ""],
        "an endpoint's line counted at none"
    );
    assert_eq!(lines[3][n - 3..n - 1], ["", ""], "a row with none counted");
    // A run with no counts has no tail columns.
    let plain = csv(&[row(Vec::new())]);
    assert!(
        !plain[0].iter().any(|h| h.starts_with("over_")),
        "{plain:?}"
    );
}
