//! Reading a real run's intervals back as chart points: merged points add up to the
//! recorded intervals, and their latency percentiles come from the merged histograms —
//! a whole phase merged into one point equals the phase's summary row exactly.

mod common;

use keystorm_results::{IntervalQuery, IntervalRecord, RunStatus, Summary, read_intervals};
use keystorm_types::OpKind;

const WORKLOAD: &str = "name: points-test
target:
  endpoint: embedded
buckets:
  names: [points]
keyspace:
  seed: 5
objects:
  size: 1KiB
before:
  - { name: fill, op: put, concurrency: 4, until_objects: 200 }
rounds:
  count: 1
  phases:
    - { name: mixed, mix: { get: 70, put: 30 }, workers: 4, warmup: 1s, duration: 9s }
";

fn query(max_points: Option<usize>) -> IntervalQuery<'static> {
    IntervalQuery {
        section: Some("round"),
        round: Some(1),
        phase: Some("mixed"),
        max_points,
    }
}

fn ops(r: &IntervalRecord, op: OpKind) -> u64 {
    r.ops.get(&op).map_or(0, |s| s.ops)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_phases_come_back_as_exactly_merged_points() {
    let results = tempfile::tempdir().unwrap();
    let outcome = common::run(WORKLOAD, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let dir = &outcome.dir;

    let all = read_intervals(dir, &query(None));
    let measured: Vec<&IntervalRecord> = all.iter().filter(|r| !r.warmup).collect();
    assert!(all.iter().any(|r| r.warmup), "a warm-up interval");
    // 8 measured seconds: at least 6 intervals even when a loaded machine's ticks come
    // late and some interval runs longer than a second.
    assert!(measured.len() >= 6, "{} measured intervals", measured.len());
    assert!(all.iter().all(|r| r.merged == 1));
    // A duration phase's last interval runs to its end: no sliver of a few in-flight
    // requests finishing, recorded as an interval of its own.
    let shortest = all.iter().map(|r| r.duration_s).fold(f64::MAX, f64::min);
    assert!(shortest >= 0.5, "an interval of {shortest} s");
    // Enough room: every interval as recorded.
    assert_eq!(read_intervals(dir, &query(Some(all.len()))), all);

    // One point for the measured intervals (warm-up is never merged with them): the
    // same numbers as the phase's summary rows, latency percentiles included.
    let one = read_intervals(dir, &query(Some(1)));
    let point = one.iter().find(|r| !r.warmup).unwrap();
    assert_eq!(point.merged, measured.len() as u64);
    assert_eq!(point.t_s, measured[0].t_s);
    let summary: Summary =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    for op in [OpKind::Get, OpKind::Put] {
        let row = summary
            .rows
            .iter()
            .find(|r| r.phase == "mixed" && r.op == op)
            .unwrap();
        let p = &point.ops[&op];
        assert_eq!(p.ops, row.stats.ops, "{op:?}");
        assert_eq!(p.bytes, row.stats.bytes, "{op:?}");
        // The row alone counts its tail (at the run's marks); a chart point does not.
        let mut latency = row.stats.latency_us;
        latency.slower_than = Default::default();
        assert_eq!(p.latency_us, latency, "{op:?}");
        assert!(p.ttfb_us.is_none());
        let seconds: f64 = measured.iter().map(|r| r.duration_s).sum();
        assert!((p.ops_per_sec - p.ops as f64 / seconds).abs() < 1e-6);
    }

    // Three points at most per phase: runs of consecutive intervals, adding up to all
    // of them, each point's median between its intervals' medians and its extremes
    // their extremes.
    let three = read_intervals(dir, &query(Some(3)));
    assert!(three.len() <= 4, "{} points", three.len());
    assert_eq!(
        three.iter().map(|p| p.merged).sum::<u64>(),
        all.len() as u64
    );
    let mut next = 0;
    for p in &three {
        let parts = &all[next..next + p.merged as usize];
        next += p.merged as usize;
        assert_eq!(p.t_s, parts[0].t_s);
        assert!(parts.iter().all(|r| r.warmup == p.warmup));
        for op in [OpKind::Get, OpKind::Put] {
            assert_eq!(
                ops(p, op),
                parts.iter().map(|r| ops(r, op)).sum::<u64>(),
                "{op:?}"
            );
            let with_op: Vec<_> = parts
                .iter()
                .filter(|r| ops(r, op) > 0)
                .map(|r| r.ops[&op].latency_us)
                .collect();
            if with_op.is_empty() {
                continue;
            }
            let merged = p.ops[&op].latency_us;
            assert_eq!(merged.max, with_op.iter().map(|l| l.max).max().unwrap());
            assert_eq!(merged.min, with_op.iter().map(|l| l.min).min().unwrap());
            let p50s = with_op.iter().map(|l| l.p50);
            assert!(
                (p50s.clone().min().unwrap()..=p50s.max().unwrap()).contains(&merged.p50),
                "{op:?} p50 {}",
                merged.p50
            );
        }
    }
    assert_eq!(next, all.len());
}
