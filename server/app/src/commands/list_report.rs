//! The report of `keystorm list`: what `--json` prints, and the same as text for a
//! person (counts, rates, latency, client CPU, what was written, the HEAD scan's
//! metadata and the space report's tables).

use std::fmt::Write as _;

use keystorm_results::ListOutcome;
use keystorm_results::MetadataSummary;
use keystorm_results::metrics::Percentiles;
use serde::Serialize;

/// What `--json` prints.
#[derive(Serialize)]
pub(super) struct ListReport {
    #[serde(flatten)]
    pub outcome: ListOutcome,
    pub keys_per_sec: f64,
    /// Client CPU seconds (user + system) the listing took.
    pub client_cpu_s: f64,
    /// Client CPU microseconds per 1000 keys listed.
    pub client_cpu_us_per_1000_keys: f64,
    /// Latency of the ListObjectsV2 requests, microseconds.
    pub page_latency_us: Percentiles,
    /// With --head: the HEAD scan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<HeadReport>,
    /// With --keys FILE.keys: the key file written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_file: Option<KeyFileReport>,
    /// With --keys FILE.parquet or FILE.csv: the inventory written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inventory: Option<InventoryReport>,
}

#[derive(Serialize)]
pub(super) struct InventoryReport {
    pub path: String,
    pub format: &'static str,
    pub rows: u64,
    pub bytes: u64,
}

#[derive(Serialize)]
pub(super) struct KeyFileReport {
    pub path: String,
    pub keys: u64,
    pub bytes: u64,
    pub bytes_per_key: f64,
    /// Keys the listing returned more than once, kept once.
    pub repeated: u64,
}

#[derive(Serialize)]
pub(super) struct HeadReport {
    pub heads: u64,
    pub errors: u64,
    pub missing: u64,
    /// HEAD workers (HEAD requests in flight at most).
    pub head_workers: u32,
    /// Deprecated: `head_workers` under its name before, printed while old names are
    /// taken (`keystorm_types::old_names`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    pub heads_per_sec: f64,
    pub latency_us: Percentiles,
    pub metadata: MetadataSummary,
}

/// The report as text, for a person.
pub(super) fn human(r: &ListReport) -> String {
    let mut out = String::new();
    let o = &r.outcome;
    let state = if o.complete {
        "listed"
    } else {
        "stopped after"
    };
    let _ = writeln!(
        out,
        "{state} {} keys, {} ({} bytes) in s3://{}/{} — {:.2} s, {:.0} keys/s",
        o.keys,
        human_bytes(o.bytes),
        o.bytes,
        o.bucket,
        o.prefix,
        o.seconds,
        r.keys_per_sec
    );
    let _ = writeln!(
        out,
        "mode {} with {} lister(s): {} requests ({} failed), {} ranges ({} cut while listing)",
        o.mode.name(),
        o.listers,
        o.requests,
        o.errors,
        o.ranges,
        o.cuts
    );
    let l = &r.page_latency_us;
    let _ = writeln!(
        out,
        "page latency p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; client CPU {:.2} s ({:.0} µs per 1000 keys)",
        l.p50 as f64 / 1000.0,
        l.p99 as f64 / 1000.0,
        l.max as f64 / 1000.0,
        r.client_cpu_s,
        r.client_cpu_us_per_1000_keys
    );
    if let Some(k) = &r.key_file {
        let _ = writeln!(
            out,
            "key file {}: {} keys, {} ({:.1} bytes per key){}",
            k.path,
            k.keys,
            human_bytes(k.bytes),
            k.bytes_per_key,
            if k.repeated > 0 {
                format!("; {} keys listed twice kept once", k.repeated)
            } else {
                String::new()
            }
        );
    }
    if let Some(i) = &r.inventory {
        let _ = writeln!(
            out,
            "inventory {} ({}): {} rows, {}",
            i.path,
            i.format,
            i.rows,
            human_bytes(i.bytes)
        );
    }
    if let Some(h) = &r.head {
        let _ = writeln!(
            out,
            "HEAD: {} objects ({} failed, {} gone since listed) with {} HEAD workers — {:.0} HEAD/s, p50 {:.1} ms, p99 {:.1} ms",
            h.heads,
            h.errors,
            h.missing,
            h.head_workers,
            h.heads_per_sec,
            h.latency_us.p50 as f64 / 1000.0,
            h.latency_us.p99 as f64 / 1000.0
        );
        let m = &h.metadata;
        let _ = writeln!(
            out,
            "metadata: {} names over {} objects ({} without metadata)",
            m.names.len(),
            m.objects,
            m.without_metadata
        );
        for (name, n) in &m.names {
            let shown: Vec<String> = n
                .top_values(5)
                .iter()
                .map(|(v, c)| format!("{v:?} {c}"))
                .collect();
            let more = n.values.len().saturating_sub(5) as u64 + u64::from(n.other_values > 0);
            let _ = writeln!(
                out,
                "  {name:<24} {:>12} objects: {}{}",
                n.objects,
                shown.join(", "),
                if more > 0 { ", ..." } else { "" }
            );
        }
    }
    if let Some(report) = &o.report {
        for (title, table) in [
            ("by prefix", &report.by_prefix),
            ("by age", &report.by_age),
            ("by suffix", &report.by_suffix),
            ("by size", &report.by_size),
        ] {
            let _ = writeln!(out, "\n{title}:");
            for (name, t) in table {
                let _ = writeln!(
                    out,
                    "  {:<24} {:>14} objects {:>12}",
                    if name.is_empty() { "(empty)" } else { name },
                    t.objects,
                    human_bytes(t.bytes)
                );
            }
        }
    }
    out
}

fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{b} B")
    } else {
        format!("{v:.2} {}", UNITS[unit])
    }
}
