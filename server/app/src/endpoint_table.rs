//! `keystorm show RUN --by endpoint`: each row broken down by the endpoint its requests
//! went to, so that a slow or failing gateway of a cluster stands out. A run that drove
//! one endpoint shows its rows once, under that endpoint.

use keystorm_results::SummaryRow;

use keystorm_console::table::{Table, errors_cell, latency, phase_cell};

/// One line per phase × round × operation × endpoint, the phase labelled with its part
/// (`(interrupted)`, `(resumed; 6 redone)`, `(taken over)`) as in the summary table;
/// `single` names the endpoint of rows that have no breakdown (a run that drove one).
pub fn endpoint_table(rows: &[SummaryRow], single: &str) -> Table {
    let mut t = Table::new(&[
        "phase", "round", "op", "endpoint", "ops", "share", "ops/s", "MiB/s", "p50", "p99",
        "p99.9", "max", "errors",
    ])
    .align_right(4);
    for r in rows {
        let whole = r.stats.ops + r.stats.errors;
        let parts: Vec<(&str, &keystorm_results::metrics::OpSummary)> = if r.endpoints.is_empty() {
            vec![(single, &r.stats)]
        } else {
            r.endpoints
                .iter()
                .map(|e| (e.endpoint.as_str(), &e.stats))
                .collect()
        };
        for (endpoint, s) in parts {
            let l = &s.latency_us;
            let share = if whole > 0 {
                format!("{:.1} %", 100.0 * (s.ops + s.errors) as f64 / whole as f64)
            } else {
                "-".to_string()
            };
            t.row(vec![
                phase_cell(r),
                r.round.map(|n| n.to_string()).unwrap_or_else(|| "-".into()),
                r.op.to_string(),
                endpoint.to_string(),
                s.ops.to_string(),
                share,
                format!("{:.1}", s.ops_per_sec),
                format!("{:.2}", s.mib_per_sec),
                latency(l.p50),
                latency(l.p99),
                latency(l.p999),
                latency(l.max),
                errors_cell(s),
            ]);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use keystorm_results::metrics::OpSummary;
    use keystorm_results::{EndpointRow, Section, SummaryRow};

    fn part(interrupted: bool, resumed: bool, redone: u64) -> SummaryRow {
        let stats = |ops| OpSummary {
            ops,
            ..Default::default()
        };
        SummaryRow {
            section: Section::Round,
            round: Some(1),
            phase: "write".into(),
            op: keystorm_types::OpKind::Put,
            objects_at_start: 0,
            started_at: "2026-11-29T00:00:00Z".into(),
            duration_s: 1.0,
            client_cpu_s: 0.0,
            stats: stats(30),
            index_at_start: Vec::new(),
            index_at_end: Vec::new(),
            interrupted,
            resumed,
            redone,
            taken_over: false,
            wall_s: None,
            open_loop: None,
            sweep: None,
            endpoints: ["http://a:1", "http://b:2"]
                .into_iter()
                .zip([10, 20])
                .map(|(e, n)| EndpointRow {
                    endpoint: e.into(),
                    stats: stats(n),
                })
                .collect(),
        }
    }

    #[test]
    fn the_parts_of_a_phase_keep_their_labels_on_every_endpoint_line() {
        let text = super::endpoint_table(&[part(true, false, 0), part(false, true, 6)], "unused")
            .to_string();
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines.len(), 4, "{text}");
        for l in &lines[..2] {
            assert!(l.starts_with("write (interrupted) "), "{text}");
        }
        for l in &lines[2..] {
            assert!(l.starts_with("write (resumed; 6 redone) "), "{text}");
        }
    }
}
