//! `keystorm show RUN --by endpoint`: each row broken down by the endpoint its requests
//! went to, so that a slow or failing gateway of a cluster stands out. A run that drove
//! one endpoint shows its rows once, under that endpoint.

use keystorm_results::SummaryRow;

use keystorm_console::table::{Table, errors_cell, latency};

/// One line per phase × round × operation × endpoint; `single` names the endpoint of
/// rows that have no breakdown (a run that drove one).
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
                r.phase.clone(),
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
