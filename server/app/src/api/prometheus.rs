//! `/metrics` in the Prometheus text format, for Grafana users: counters of the run
//! the server drives (or drove last), per phase, round and operation, and the latency
//! quantiles of the last interval, and what each listing audit found. State is one
//! entry per phase × round × operation, and per audited bucket.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

use keystorm_engine::executor::RunEvent;

#[derive(Default, Clone)]
struct Series {
    ops: u64,
    bytes: u64,
    errors: BTreeMap<String, u64>,
    retries: u64,
    /// (quantile, microseconds) of the last interval with operations.
    quantiles: Vec<(&'static str, u64)>,
}

#[derive(Default)]
struct State0 {
    run: Option<String>,
    running: bool,
    /// (section, round, phase, op) → counters.
    series: BTreeMap<(String, String, String, String), Series>,
    /// bucket → (index shards, objects, resharding) as last polled.
    index: BTreeMap<String, (u32, u64, bool)>,
    reshards: u64,
    stalls: u64,
    /// (section, round, phase, bucket) → what its audit found.
    audits: BTreeMap<(String, String, String, String), keystorm_engine::results::AuditCounts>,
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
                    s.index.clear();
                    s.audits.clear();
                    s.reshards = 0;
                    s.stalls = 0;
                }
                s.run = Some(run_id.clone());
                s.running = true;
            }
            RunEvent::Reshard(_) => s.reshards += 1,
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
                    let e = s.series.entry(key).or_default();
                    e.ops += o.ops;
                    e.bytes += o.bytes;
                    e.retries += o.retries;
                    for (class, n) in &o.error_classes {
                        *e.errors.entry(class.clone()).or_insert(0) += n;
                    }
                    if o.ops > 0 {
                        let l = &o.latency_us;
                        e.quantiles = vec![
                            ("0.5", l.p50),
                            ("0.9", l.p90),
                            ("0.99", l.p99),
                            ("0.999", l.p999),
                            ("1", l.max),
                        ];
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
        let labels = |(section, round, phase, op): &(String, String, String, String)| {
            format!(
                "run=\"{}\",section=\"{}\",round=\"{}\",phase=\"{}\",op=\"{}\"",
                escape(&run),
                escape(section),
                escape(round),
                escape(phase),
                escape(op)
            )
        };
        out.push_str("# HELP keystorm_ops_total Successful operations (LIST: pages).\n# TYPE keystorm_ops_total counter\n");
        for (k, v) in &s.series {
            let _ = writeln!(out, "keystorm_ops_total{{{}}} {}", labels(k), v.ops);
        }
        out.push_str("# HELP keystorm_bytes_total Payload bytes sent or received.\n# TYPE keystorm_bytes_total counter\n");
        for (k, v) in &s.series {
            let _ = writeln!(out, "keystorm_bytes_total{{{}}} {}", labels(k), v.bytes);
        }
        out.push_str("# HELP keystorm_errors_total Failed operations by class.\n# TYPE keystorm_errors_total counter\n");
        for (k, v) in &s.series {
            for (class, n) in &v.errors {
                let _ = writeln!(
                    out,
                    "keystorm_errors_total{{{},class=\"{}\"}} {n}",
                    labels(k),
                    escape(class)
                );
            }
        }
        out.push_str("# HELP keystorm_retries_total Attempts after a failed one (retried operations are counted once in ops or errors).\n# TYPE keystorm_retries_total counter\n");
        for (k, v) in &s.series {
            let _ = writeln!(out, "keystorm_retries_total{{{}}} {}", labels(k), v.retries);
        }
        out.push_str("# HELP keystorm_latency_us Latency quantiles of the last interval, microseconds.\n# TYPE keystorm_latency_us gauge\n");
        for (k, v) in &s.series {
            for (q, value) in &v.quantiles {
                let _ = writeln!(
                    out,
                    "keystorm_latency_us{{{},quantile=\"{q}\"}} {value}",
                    labels(k)
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

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
