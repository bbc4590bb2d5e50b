//! `/metrics` in the Prometheus text format, for Grafana users: counters of the run
//! the server drives (or drove last), per phase, round and operation, and the latency
//! quantiles of the last interval, and what each listing audit found. A run that drives
//! several endpoints also has `keystorm_endpoint_*` series, the same with an `endpoint`
//! label (they add up to the plain ones), and whether each endpoint is up. State is one
//! entry per phase × round × operation (× endpoint), and per audited bucket.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

use keystorm_results::RunEvent;

#[derive(Default, Clone)]
struct Series {
    ops: u64,
    bytes: u64,
    errors: BTreeMap<String, u64>,
    retries: u64,
    /// (quantile, microseconds) of the last interval with operations.
    quantiles: Vec<(&'static str, u64)>,
}

impl Series {
    fn add(&mut self, o: &keystorm_results::metrics::OpSummary) {
        self.ops += o.ops;
        self.bytes += o.bytes;
        self.retries += o.retries;
        for (class, n) in &o.error_classes {
            *self.errors.entry(class.clone()).or_insert(0) += n;
        }
        if o.ops > 0 {
            let l = &o.latency_us;
            self.quantiles = vec![
                ("0.5", l.p50),
                ("0.9", l.p90),
                ("0.99", l.p99),
                ("0.999", l.p999),
                ("1", l.max),
            ];
        }
    }
}

/// (section, round, phase, op).
type SeriesKey = (String, String, String, String);

#[derive(Default)]
struct State0 {
    run: Option<String>,
    running: bool,
    series: BTreeMap<SeriesKey, Series>,
    /// (series, endpoint) → counters, for a run that drives several endpoints.
    endpoints: BTreeMap<(SeriesKey, String), Series>,
    /// endpoint → up, as its last event said (endpoints never down are not listed).
    endpoint_up: BTreeMap<String, bool>,
    /// bucket → (index shards, objects, resharding) as last polled.
    index: BTreeMap<String, (u32, u64, bool)>,
    reshards: u64,
    stalls: u64,
    /// (section, round, phase, bucket) → what its audit found.
    audits: BTreeMap<(String, String, String, String), keystorm_results::AuditCounts>,
    /// (phase, threshold) → (met, the phase's figure): one per threshold of the
    /// workload and phase it was judged on (so far, while the phase runs).
    thresholds: BTreeMap<(String, String), (bool, f64)>,
}

#[derive(Default)]
pub struct LiveMetrics {
    state: Mutex<State0>,
}

impl LiveMetrics {
    pub fn observe(&self, event: &RunEvent) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match event {
            RunEvent::Started { run_id, .. } => {
                if s.run.as_deref() != Some(run_id) {
                    s.series.clear();
                    s.endpoints.clear();
                    s.endpoint_up.clear();
                    s.index.clear();
                    s.audits.clear();
                    s.thresholds.clear();
                    s.reshards = 0;
                    s.stalls = 0;
                }
                s.run = Some(run_id.clone());
                s.running = true;
            }
            RunEvent::Reshard(_) => s.reshards += 1,
            RunEvent::Endpoint(e) => {
                let up = e.state == keystorm_results::EndpointState::Up;
                s.endpoint_up.insert(e.endpoint.clone(), up);
            }
            RunEvent::Audit(a) => {
                let key = (
                    a.phase.section.as_str().to_string(),
                    a.phase.round.map(|r| r.to_string()).unwrap_or_default(),
                    a.phase.name.clone(),
                    a.bucket.clone(),
                );
                s.audits.insert(key, a.counts);
            }
            RunEvent::Stall(_) => s.stalls += 1,
            RunEvent::Threshold(c) => {
                s.thresholds
                    .insert((c.phase.clone(), c.expect.clone()), (c.passed, c.actual));
            }
            RunEvent::ThresholdsSoFar(t) => {
                for c in &t.checks {
                    s.thresholds
                        .insert((c.phase.clone(), c.expect.clone()), (c.passed, c.actual));
                }
            }
            RunEvent::Interval { record, .. } => {
                for b in &record.index {
                    s.index
                        .insert(b.bucket.clone(), (b.shards, b.objects, b.resharding));
                }
                let round = record.round.map(|r| r.to_string()).unwrap_or_default();
                for (op, o) in &record.ops {
                    let key = (
                        record.section.as_str().to_string(),
                        round.clone(),
                        record.phase.clone(),
                        op.as_str().to_string(),
                    );
                    s.series.entry(key).or_default().add(o);
                }
                for e in &record.endpoints {
                    for (op, o) in &e.ops {
                        let key = (
                            record.section.as_str().to_string(),
                            round.clone(),
                            record.phase.clone(),
                            op.as_str().to_string(),
                        );
                        s.endpoints
                            .entry((key, e.endpoint.clone()))
                            .or_default()
                            .add(o);
                    }
                }
            }
            RunEvent::Finished { .. } => s.running = false,
            _ => {}
        }
    }

    pub fn render(&self) -> String {
        let s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        let run = s.run.clone().unwrap_or_default();
        let _ = writeln!(
            out,
            "# HELP keystorm_run_running 1 while a run is going.\n# TYPE keystorm_run_running gauge\nkeystorm_run_running{{run=\"{}\"}} {}",
            escape(&run),
            u8::from(s.running)
        );
        let labels = |(section, round, phase, op): &SeriesKey| {
            format!(
                "run=\"{}\",section=\"{}\",round=\"{}\",phase=\"{}\",op=\"{}\"",
                escape(&run),
                escape(section),
                escape(round),
                escape(phase),
                escape(op)
            )
        };
        let whole: Vec<(String, &Series)> = s.series.iter().map(|(k, v)| (labels(k), v)).collect();
        render_series(&mut out, "keystorm", &whole);
        if !s.endpoints.is_empty() {
            let each: Vec<(String, &Series)> = s
                .endpoints
                .iter()
                .map(|((k, e), v)| (format!("{},endpoint=\"{}\"", labels(k), escape(e)), v))
                .collect();
            render_series(&mut out, "keystorm_endpoint", &each);
        }
        if !s.endpoint_up.is_empty() {
            out.push_str("# HELP keystorm_endpoint_up 1 while the endpoint answers, 0 once it was marked down (consecutive connection failures or timeouts).\n# TYPE keystorm_endpoint_up gauge\n");
            for (e, up) in &s.endpoint_up {
                let _ = writeln!(
                    out,
                    "keystorm_endpoint_up{{run=\"{}\",endpoint=\"{}\"}} {}",
                    escape(&run),
                    escape(e),
                    u8::from(*up)
                );
            }
        }
        type Gauge = fn(&(u32, u64, bool)) -> u64;
        let gauges: [(&str, &str, Gauge); 3] = [
            (
                "keystorm_bucket_index_shards",
                "Index shards of the bucket as last polled.",
                |v| u64::from(v.0),
            ),
            (
                "keystorm_bucket_objects",
                "Objects in the bucket as last polled.",
                |v| v.1,
            ),
            (
                "keystorm_bucket_resharding",
                "1 while the bucket's index is being resharded.",
                |v| u64::from(v.2),
            ),
        ];
        for (name, help, value) in gauges {
            if s.index.is_empty() {
                break;
            }
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
            for (bucket, v) in &s.index {
                let _ = writeln!(
                    out,
                    "{name}{{run=\"{}\",bucket=\"{}\"}} {}",
                    escape(&run),
                    escape(bucket),
                    value(v)
                );
            }
        }
        if !s.audits.is_empty() {
            out.push_str("# HELP keystorm_audit_keys What each listing audit found: keys expected and listed, missing, doubled, extra and of another size.\n# TYPE keystorm_audit_keys gauge\n");
        }
        for ((section, round, phase, bucket), c) in &s.audits {
            for (kind, n) in [
                ("expected", c.expected),
                ("listed", c.listed),
                ("missing", c.missing),
                ("doubled", c.doubled),
                ("extra", c.extra),
                ("size_mismatch", c.size_mismatch),
            ] {
                let _ = writeln!(
                    out,
                    "keystorm_audit_keys{{run=\"{}\",section=\"{}\",round=\"{}\",phase=\"{}\",bucket=\"{}\",kind=\"{kind}\"}} {n}",
                    escape(&run),
                    escape(section),
                    escape(round),
                    escape(phase),
                    escape(bucket)
                );
            }
        }
        if !s.thresholds.is_empty() {
            out.push_str("# HELP keystorm_threshold_met Whether a phase met a threshold of the workload's expect: (1 met, 0 missed; while the phase runs, on what it measured so far; phase run: the workload's integrity: as_written).\n# TYPE keystorm_threshold_met gauge\n# HELP keystorm_threshold_actual The phase's figure a threshold bounds, in the threshold's unit (µs, ops/s, MiB/s, a fraction, a count; integrity: objects found not as written).\n# TYPE keystorm_threshold_actual gauge\n");
        }
        for ((phase, expect), (met, actual)) in &s.thresholds {
            let labels = format!(
                "run=\"{}\",phase=\"{}\",expect=\"{}\"",
                escape(&run),
                escape(phase),
                escape(expect)
            );
            let _ = writeln!(
                out,
                "keystorm_threshold_met{{{labels}}} {}\nkeystorm_threshold_actual{{{labels}}} {}",
                u8::from(*met),
                actual
            );
        }
        let _ = writeln!(
            out,
            "# HELP keystorm_reshards_total Bucket index reshards seen.\n# TYPE keystorm_reshards_total counter\nkeystorm_reshards_total{{run=\"{}\"}} {}\n# HELP keystorm_stalls_total Write stalls detected.\n# TYPE keystorm_stalls_total counter\nkeystorm_stalls_total{{run=\"{}\"}} {}",
            escape(&run),
            s.reshards,
            escape(&run),
            s.stalls
        );
        out
    }
}

/// The operation counters and latency of `series` (labels, counters), named
/// `{prefix}_ops_total` and so on.
fn render_series(out: &mut String, prefix: &str, series: &[(String, &Series)]) {
    let scope = if prefix == "keystorm" {
        ""
    } else {
        " of one endpoint"
    };
    let _ = writeln!(
        out,
        "# HELP {prefix}_ops_total Successful operations{scope} (LIST: pages).\n# TYPE {prefix}_ops_total counter"
    );
    for (l, v) in series {
        let _ = writeln!(out, "{prefix}_ops_total{{{l}}} {}", v.ops);
    }
    let _ = writeln!(
        out,
        "# HELP {prefix}_bytes_total Payload bytes sent or received{scope}.\n# TYPE {prefix}_bytes_total counter"
    );
    for (l, v) in series {
        let _ = writeln!(out, "{prefix}_bytes_total{{{l}}} {}", v.bytes);
    }
    let _ = writeln!(
        out,
        "# HELP {prefix}_errors_total Failed operations{scope} by class.\n# TYPE {prefix}_errors_total counter"
    );
    for (l, v) in series {
        for (class, n) in &v.errors {
            let _ = writeln!(
                out,
                "{prefix}_errors_total{{{l},class=\"{}\"}} {n}",
                escape(class)
            );
        }
    }
    let _ = writeln!(
        out,
        "# HELP {prefix}_retries_total Attempts{scope} after a failed one (retried operations are counted once in ops or errors).\n# TYPE {prefix}_retries_total counter"
    );
    for (l, v) in series {
        let _ = writeln!(out, "{prefix}_retries_total{{{l}}} {}", v.retries);
    }
    let _ = writeln!(
        out,
        "# HELP {prefix}_latency_us Latency quantiles{scope} of the last interval, microseconds.\n# TYPE {prefix}_latency_us gauge"
    );
    for (l, v) in series {
        for (q, value) in &v.quantiles {
            let _ = writeln!(out, "{prefix}_latency_us{{{l},quantile=\"{q}\"}} {value}");
        }
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(json: serde_json::Value) -> RunEvent {
        serde_json::from_value(json).unwrap()
    }

    fn summary(ops: u64, p99: u64) -> serde_json::Value {
        serde_json::json!({"ops": ops, "errors": 0, "error_rate": 0.0, "error_classes": {},
            "ops_per_sec": ops as f64, "bytes": ops * 10, "mib_per_sec": 0.0, "keys": 0,
            "keys_per_sec": 0.0, "latency_us": {"min": 1, "mean": 1.0, "p50": 1, "p90": 1,
            "p99": p99, "p999": p99, "max": p99}})
    }

    #[test]
    fn each_endpoint_has_its_series_and_its_state() {
        let m = LiveMetrics::default();
        m.observe(&event(serde_json::json!({"event": "started",
            "data": {"run_id": "r1", "endpoint": "http://a,http://b", "phases": 1}})));
        let interval = serde_json::json!({"event": "interval", "data": {
            "phase": {"section": "before", "round": null, "index": 0, "name": "fill"},
            "progress": {"elapsed_s": 1.0, "fraction": null, "ops": 10, "errors": 0, "objects": 0},
            "record": {"section": "before", "round": null, "phase": "fill", "interval": 0,
                "t_s": 0.0, "duration_s": 1.0, "warmup": false, "window": {"tail": 0, "head": 0},
                "ops": {"put": summary(10, 900)},
                "endpoints": [
                    {"endpoint": "http://a", "ops": {"put": summary(7, 100)}},
                    {"endpoint": "http://b", "ops": {"put": summary(3, 900)}}]}}});
        m.observe(&event(interval.clone()));
        m.observe(&event(interval));
        m.observe(&event(serde_json::json!({"event": "endpoint", "data": {
            "endpoint": "http://b", "state": "down", "t_s": 1.5, "failures": 3,
            "detail": "connection refused"}})));
        let text = m.render();
        let labels = "run=\"r1\",section=\"before\",round=\"\",phase=\"fill\",op=\"put\"";
        for line in [
            format!("keystorm_ops_total{{{labels}}} 20"),
            format!("keystorm_endpoint_ops_total{{{labels},endpoint=\"http://a\"}} 14"),
            format!("keystorm_endpoint_ops_total{{{labels},endpoint=\"http://b\"}} 6"),
            format!(
                "keystorm_endpoint_latency_us{{{labels},endpoint=\"http://b\",quantile=\"0.99\"}} 900"
            ),
            "keystorm_endpoint_up{run=\"r1\",endpoint=\"http://b\"} 0".to_string(),
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing in\n{text}");
        }
        assert_eq!(
            text.matches("# TYPE keystorm_endpoint_ops_total counter")
                .count(),
            1
        );
    }

    #[test]
    fn a_threshold_shows_its_figure_so_far_until_the_phases_end_replaces_it() {
        let m = LiveMetrics::default();
        m.observe(&event(serde_json::json!({"event": "started",
            "data": {"run_id": "r1", "endpoint": "embedded", "phases": 1}})));
        let check = |actual: f64, passed: bool| {
            serde_json::json!({"phase": "before read", "expect": "get.p99 < 1ms",
                "actual": actual, "actual_text": "", "passed": passed})
        };
        let labels = "run=\"r1\",phase=\"before read\",expect=\"get.p99 < 1ms\"";
        let shows = |met: u8, actual: &str| {
            let text = m.render();
            for line in [
                format!("keystorm_threshold_met{{{labels}}} {met}"),
                format!("keystorm_threshold_actual{{{labels}}} {actual}"),
            ] {
                assert!(text.lines().any(|l| l == line), "{line} missing in\n{text}");
            }
        };
        for (actual, passed) in [(800.0, true), (2400.0, false)] {
            m.observe(&event(
                serde_json::json!({"event": "thresholds_so_far", "data": {
                "phase": {"section": "before", "round": null, "index": 0, "name": "read"},
                "measured_s": 1.0, "checks": [check(actual, passed)]}}),
            ));
        }
        shows(0, "2400");
        m.observe(&event(
            serde_json::json!({"event": "threshold", "data": check(900.0, true)}),
        ));
        shows(1, "900");
    }
}
