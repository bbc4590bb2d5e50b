//! A run's tails counted again at other marks (`keystorm show --tail-marks 100ms,1s`,
//! a comparison at marks of its own): each phase's latency histogram is kept in
//! `histograms.hlog`, so the counts at any marks are as exact as those counted while
//! it ran. One pass over the log; memory holds one histogram per row.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::error::ResultsError;
use crate::hlog::{HLOG_FILE, read_merged_tags};
use crate::summary::SummaryRow;
use crate::tail_counts::{TailCounts, slower_than};
use crate::tail_marks::TailMarks;

/// Sets each row's `latency_us.slower_than`, and each of its endpoints', to the counts
/// at `marks`, from the run's histogram log in `dir`. Meant for whole-phase rows
/// ([`crate::whole_phase_rows`]): rows of a phase run in parts share the phase's
/// histogram, which cannot be split back into parts, so they are left with no counts;
/// so is a row with operations and no histogram in the log.
pub fn recount_tails(
    dir: &Path,
    rows: &mut [SummaryRow],
    marks: &TailMarks,
) -> Result<(), ResultsError> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in rows.iter() {
        *seen.entry(r.log_tag()).or_default() += 1;
    }
    // An endpoint's lines are tagged by its place in the manifest's list (`op@E`).
    let urls = crate::ResultStore::read_manifest(dir)
        .map(|m| m.endpoints)
        .unwrap_or_default();
    let whole: HashSet<String> = seen
        .into_iter()
        .filter(|(_, n)| *n == 1)
        .map(|(t, _)| t)
        .collect();
    let tags: HashSet<String> = whole
        .iter()
        .flat_map(|t| (0..urls.len()).map(|e| crate::endpoint_tag(t, e)))
        .chain(whole.iter().cloned())
        .collect();
    let path = dir.join(HLOG_FILE);
    let merged = read_merged_tags(&path, &tags).map_err(|source| ResultsError::Io {
        path: path.clone(),
        source,
    })?;
    let counts = |tag: Option<String>, ops: u64| match tag.map(|t| (merged.get(&t), t)) {
        Some((Some(h), _)) => slower_than(h, marks),
        Some((None, _)) if ops == 0 => slower_than(&crate::metrics::new_histogram(), marks),
        _ => TailCounts::default(),
    };
    for r in rows.iter_mut() {
        let tag = Some(r.log_tag()).filter(|t| whole.contains(t));
        r.stats.latency_us.slower_than = counts(tag.clone(), r.stats.ops);
        for e in &mut r.endpoints {
            let place = urls.iter().position(|u| *u == e.endpoint);
            let their = tag
                .as_ref()
                .zip(place)
                .map(|(t, i)| crate::endpoint_tag(t, i));
            e.stats.latency_us.slower_than = counts(their, e.stats.ops);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::ResultStore;
    use crate::metrics::IntervalStats;
    use crate::phase_ref::Section;
    use crate::summary::IntervalRecord;
    use keystorm_types::OpKind;

    /// One interval of `phase` with a GET of each of `latencies_ms`; the phase's row.
    fn phase(store: &mut ResultStore, phase: &str, t_s: f64, latencies_ms: &[u64]) -> SummaryRow {
        let mut stats = IntervalStats::default();
        for ms in latencies_ms {
            stats
                .op_mut(OpKind::Get)
                .record_ok(Duration::from_millis(*ms), 0);
        }
        let second = Duration::from_secs(1);
        let record = IntervalRecord {
            section: Section::Before,
            round: None,
            phase: phase.into(),
            interval: 0,
            t_s,
            duration_s: 1.0,
            warmup: false,
            window: Default::default(),
            ops: stats
                .active()
                .map(|(op, s)| (op, s.summarize(second)))
                .collect(),
            index: Vec::new(),
            merged: 1,
            epoch: None,
            endpoints: Vec::new(),
            asked_per_sec: None,
        };
        store.write_interval(&record, &stats).unwrap();
        serde_json::from_value(serde_json::json!({
            "section": "before", "round": null, "phase": phase, "op": "get",
            "objects_at_start": 0, "started_at": "2026-11-29T00:00:00Z", "duration_s": 1.0,
            "client_cpu_s": 0.0, "ops": latencies_ms.len(), "errors": 0, "error_rate": 0.0,
            "error_classes": {}, "ops_per_sec": 0.0, "bytes": 0, "mib_per_sec": 0.0, "keys": 0,
            "keys_per_sec": 0.0,
            "latency_us": {"min": 0, "mean": 0.0, "p50": 0, "p90": 0, "p99": 0, "p999": 0, "max": 0,
                "over_1s": 9}
        }))
        .unwrap()
    }

    #[test]
    fn each_row_is_counted_again_at_new_marks_from_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ResultStore::open_append(dir.path()).unwrap();
        let mut rows = vec![
            phase(&mut store, "slow", 0.0, &[5, 99, 100, 250, 2_000]),
            phase(&mut store, "fast", 1.0, &[1, 2]),
        ];
        drop(store);
        let marks: TailMarks = "100ms,1s".parse().unwrap();
        recount_tails(dir.path(), &mut rows, &marks).unwrap();
        let counts = |r: &SummaryRow| {
            let c = r.stats.latency_us.slower_than;
            (c.at(100_000), c.at(1_000_000), c.at(10_000_000))
        };
        assert_eq!(counts(&rows[0]), (Some(3), Some(1), None));
        assert_eq!(counts(&rows[1]), (Some(0), Some(0), None));
    }

    #[test]
    fn parts_of_one_phase_are_left_uncounted_and_a_missing_log_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ResultStore::open_append(dir.path()).unwrap();
        let first = phase(&mut store, "read", 0.0, &[2_000]);
        let second = phase(&mut store, "read", 5.0, &[3_000]);
        drop(store);
        let mut rows = vec![first, second];
        recount_tails(dir.path(), &mut rows, &TailMarks::default()).unwrap();
        assert!(
            rows.iter()
                .all(|r| r.stats.latency_us.slower_than.is_empty())
        );

        let empty = tempfile::tempdir().unwrap();
        let err = recount_tails(empty.path(), &mut rows, &TailMarks::default()).unwrap_err();
        assert!(err.to_string().contains(HLOG_FILE), "{err}");
    }
}
