//! A phase run in parts — stopped (Ctrl-C, a crash) and resumed, perhaps more than once —
//! has one summary row per part and operation, each saying what that part measured.
//! Charts across rounds want the whole phase: one row per phase × round × operation,
//! the parts' counters added over their measured time, and latency from the merge of
//! all their interval histograms (exact, never an average of the parts' percentiles).

use std::collections::HashMap;
use std::path::Path;

use crate::hlog::{self, HLOG_FILE};
use crate::metrics::Percentiles;
use crate::op_sums::{add_counts, finish_rates};
use crate::summary::{OpenLoop, SummaryRow};

/// One row per phase × round × operation of `rows` (a run's summary rows, in order):
/// a phase of one part as it is, a phase of several as their sum, its latency read
/// from the run's histogram log in `dir`.
pub fn whole_phase_rows(dir: &Path, rows: &[SummaryRow]) -> Vec<SummaryRow> {
    let mut order: Vec<String> = Vec::new();
    let mut wholes: HashMap<String, (SummaryRow, usize)> = HashMap::new();
    // Each part's open-loop outcome and measured time; the part's worst schedule lag.
    let mut open: HashMap<String, Vec<(OpenLoop, f64, usize)>> = HashMap::new();
    let mut lag: HashMap<String, Percentiles> = HashMap::new();
    // Each parted phase's last part: when it started and how long it measured.
    let mut last: HashMap<String, (String, f64)> = HashMap::new();
    for r in rows {
        let tag = r.log_tag();
        if let Some(o) = r.open_loop {
            let parts = open.entry(tag.clone()).or_default();
            let n = parts.len();
            parts.push((o, r.duration_s, n));
        }
        if let Some(l) = r.stats.schedule_lag_us
            && lag.get(&tag).is_none_or(|worst| l.p99 > worst.p99)
        {
            lag.insert(tag.clone(), l);
        }
        match wholes.get_mut(&tag) {
            None => {
                order.push(tag.clone());
                wholes.insert(tag, (r.clone(), 1));
            }
            Some((whole, parts)) => {
                *parts += 1;
                last.insert(tag.clone(), (r.started_at.clone(), r.duration_s));
                add_counts(&mut whole.stats, &r.stats);
                whole.duration_s += r.duration_s;
                whole.client_cpu_s += r.client_cpu_s;
                whole.redone += r.redone;
                whole.resumed |= r.resumed;
                whole.taken_over |= r.taken_over;
                // Whether the phase ended: as its last part did.
                whole.interrupted = r.interrupted;
                for e in &r.endpoints {
                    match whole
                        .endpoints
                        .iter_mut()
                        .find(|w| w.endpoint == e.endpoint)
                    {
                        Some(w) => add_counts(&mut w.stats, &e.stats),
                        None => whole.endpoints.push(e.clone()),
                    }
                }
                if !r.index_at_end.is_empty() {
                    whole.index_at_end = r.index_at_end.clone();
                }
            }
        }
    }
    let parted: Vec<&String> = order.iter().filter(|t| wholes[*t].1 > 1).collect();
    if !parted.is_empty() {
        // The endpoints' lines too (`op@E`, numbered as the manifest lists them).
        let urls = crate::ResultStore::read_manifest(dir)
            .map(|m| m.endpoints)
            .unwrap_or_default();
        let mut tags: std::collections::HashSet<String> =
            parted.iter().map(|t| t.to_string()).collect();
        for t in &parted {
            tags.extend((0..urls.len()).map(|e| crate::endpoint_tag(t, e)));
        }
        let merged = hlog::read_merged_tags(&dir.join(HLOG_FILE), &tags).unwrap_or_default();
        for tag in parted {
            let (whole, _) = wholes.get_mut(tag).expect("a tag of the rows");
            let duration_s = whole.duration_s;
            // The first part's, for the marks its tail was counted at.
            let recorded = whole.stats.latency_us;
            finish_rates(&mut whole.stats, duration_s);
            whole.stats.latency_us = recorded.remeasured(merged.get(tag));
            for e in &mut whole.endpoints {
                finish_rates(&mut e.stats, duration_s);
                let i = urls.iter().position(|u| *u == e.endpoint);
                e.stats.latency_us =
                    recorded.remeasured(i.and_then(|i| merged.get(&crate::endpoint_tag(tag, i))));
            }
            whole.wall_s = last
                .get(tag.as_str())
                .and_then(|(start, seconds)| wall_seconds(&whole.started_at, start, *seconds));
            // Lag histograms are not logged: the worst part's, which says whether the
            // client kept the schedule.
            whole.stats.schedule_lag_us = lag.get(tag.as_str()).copied();
            // One part after another: the rate asked is one part's.
            whole.open_loop = open.get(tag.as_str()).and_then(|parts| {
                let one_after_another: Vec<_> = parts.iter().map(|(o, s, _)| (*o, *s, 0)).collect();
                OpenLoop::combine(&one_after_another, duration_s)
            });
        }
    }
    order
        .into_iter()
        .filter_map(|t| wholes.remove(&t).map(|(row, _)| row))
        .collect()
}

/// When a row that started at `start` and measured `seconds` ended (near enough: its
/// warm-up is not in `seconds`).
pub(crate) fn part_end(start: &str, seconds: f64) -> Option<std::time::SystemTime> {
    let start = humantime::parse_rfc3339(start).ok()?;
    Some(start + std::time::Duration::from_secs_f64(seconds.max(0.0)))
}

/// Seconds in which at least one of `spans` (each a start and measured seconds) ran:
/// their union; `None` when a start cannot be read.
pub(crate) fn union_seconds(spans: &[(String, f64)]) -> Option<f64> {
    let mut at: Vec<(std::time::SystemTime, std::time::SystemTime)> = spans
        .iter()
        .map(|(start, seconds)| {
            let from = humantime::parse_rfc3339(start).ok()?;
            Some((from, part_end(start, *seconds)?))
        })
        .collect::<Option<_>>()?;
    at.sort();
    let mut total = 0.0;
    let mut current: Option<(std::time::SystemTime, std::time::SystemTime)> = None;
    for (from, to) in at {
        current = match current {
            Some((a, b)) if from <= b => Some((a, b.max(to))),
            Some((a, b)) => {
                total += b.duration_since(a).map_or(0.0, |d| d.as_secs_f64());
                Some((from, to))
            }
            None => Some((from, to)),
        };
    }
    if let Some((a, b)) = current {
        total += b.duration_since(a).map_or(0.0, |d| d.as_secs_f64());
    }
    Some(total)
}

/// Seconds from `first_start` to the end of a part that started at `last_start` and
/// measured `last_seconds`: a phase's time with its pauses.
pub(crate) fn wall_seconds(first_start: &str, last_start: &str, last_seconds: f64) -> Option<f64> {
    let first = humantime::parse_rfc3339(first_start).ok()?;
    let last = humantime::parse_rfc3339(last_start).ok()?;
    let between = last.duration_since(first).ok()?.as_secs_f64();
    Some(between + last_seconds)
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

    /// Writes `seconds` intervals of round 1's `read` from `t_s`, each of `ops` GETs of
    /// `latency`; returns the part's row.
    fn part(
        store: &mut ResultStore,
        t_s: f64,
        seconds: u64,
        ops: u64,
        latency: Duration,
    ) -> SummaryRow {
        let mut all = IntervalStats::default();
        for k in 0..seconds {
            let mut stats = IntervalStats::default();
            for _ in 0..ops {
                stats.op_mut(OpKind::Get).record_ok(latency, 100);
            }
            let record = IntervalRecord {
                section: Section::Round,
                round: Some(1),
                phase: "read".into(),
                interval: k,
                t_s: t_s + k as f64,
                duration_s: 1.0,
                warmup: false,
                window: Default::default(),
                ops: stats
                    .active()
                    .map(|(op, s)| (op, s.summarize(Duration::from_secs(1))))
                    .collect(),
                index: Vec::new(),
                merged: 1,
                asked_per_sec: None,
                epoch: None,
                endpoints: Vec::new(),
            };
            store.write_interval(&record, &stats).unwrap();
            all.merge(&stats);
        }
        SummaryRow {
            op: OpKind::Get,
            objects_at_start: 10,
            started_at: "2026-11-26T00:00:00Z".into(),
            duration_s: seconds as f64,
            client_cpu_s: 0.5,
            stats: all.op(OpKind::Get).summarize(Duration::from_secs(seconds)),
            ..SummaryRow::for_test("read")
        }
    }

    #[test]
    fn a_stopped_and_resumed_phase_is_one_row_of_all_it_measured() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ResultStore::open_append(dir.path()).unwrap();
        // Two seconds at 1,000 GETs of 1 ms, stopped; the rest, 1 s of 100 GETs of 50 ms.
        let mut first = part(&mut store, 0.0, 2, 1000, Duration::from_millis(1));
        first.interrupted = true;
        let mut second = part(&mut store, 5.0, 1, 100, Duration::from_millis(50));
        second.resumed = true;
        second.started_at = "2026-11-26T00:00:05Z".into();
        drop(store);

        let whole = whole_phase_rows(dir.path(), &[first.clone(), second.clone()]);
        assert_eq!(whole.len(), 1);
        let w = &whole[0];
        assert_eq!(w.stats.ops, 2100);
        assert_eq!(w.duration_s, 3.0);
        assert!((w.stats.ops_per_sec - 700.0).abs() < 1e-9);
        // Its rate divides by the 3 s it ran; its wall time keeps the 3 s it was stopped.
        assert_eq!(w.wall_s, Some(6.0));
        assert_eq!((w.interrupted, w.resumed), (false, true));
        // 100 of 2,100 took 50 ms: p99 is theirs, p50 the fast ones', as one histogram
        // of both parts says (neither part's p99 alone, nor an average).
        assert!(
            (49_000..=50_100).contains(&w.stats.latency_us.p99),
            "{:?}",
            w.stats.latency_us
        );
        assert!(
            (990..=1_010).contains(&w.stats.latency_us.p50),
            "{:?}",
            w.stats.latency_us
        );
        // A phase of one part is its row.
        assert_eq!(whole_phase_rows(dir.path(), &[first.clone()]), vec![first]);
    }

    #[test]
    fn a_phase_in_parts_counts_its_tail_at_the_marks_its_parts_were_counted_at() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ResultStore::open_append(dir.path()).unwrap();
        let mut first = part(&mut store, 0.0, 2, 30, Duration::from_millis(45));
        let mut second = part(&mut store, 5.0, 1, 20, Duration::from_millis(150));
        drop(store);
        let marks = crate::tail_marks::TailMarks::new(&[40_000, 100_000]).unwrap();
        // The marks are the parts' (their counts aside: the whole's come from the log).
        for p in [&mut first, &mut second] {
            p.stats.latency_us.slower_than =
                crate::tail_counts::slower_than(&crate::metrics::new_histogram(), &marks);
        }
        second.resumed = true;
        let whole = &whole_phase_rows(dir.path(), &[first, second])[0];
        let counts = whole.stats.latency_us.slower_than;
        assert_eq!(counts.at(40_000), Some(80), "both parts' GETs from the log");
        assert_eq!(
            counts.at(100_000),
            Some(20),
            "the second part's 150 ms ones"
        );
    }
}

#[cfg(test)]
mod union_tests {
    use super::union_seconds;

    fn at(s: u32, seconds: f64) -> (String, f64) {
        (format!("2026-11-29T00:00:{s:02}Z"), seconds)
    }

    #[test]
    fn the_time_a_phase_ran_is_when_any_of_its_parts_ran() {
        // Two shards side by side, 0-20 s; one paused 6-21 s and ran again 21-35 s.
        let spans = [at(0, 20.0), at(0, 6.0), at(21, 14.0)];
        assert_eq!(union_seconds(&spans), Some(34.0));
        // Both paused 10-22 s: the pause is not time the phase ran.
        let both = [at(0, 10.0), at(0, 10.0), at(22, 8.0), at(22, 8.0)];
        assert_eq!(union_seconds(&both), Some(18.0));
        assert_eq!(union_seconds(&[("soon".into(), 1.0)]), None);
    }
}
