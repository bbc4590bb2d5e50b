//! Comparisons of runs made up to known shapes.

use std::collections::BTreeMap;

use keystorm_types::OpKind;

use super::*;
use crate::ClockSource;
use crate::uncertainty::seconds::OpSecond;
use crate::uncertainty::{RunSeconds, Second};

/// A second of `ops` GETs of 1 KiB, their latency spread over 10 buckets around
/// `latency_us` (±10 %), with `noise` (0–1) of random wobble in the count.
fn second(rng: &mut fastrand::Rng, ops: u64, latency_us: u64, noise: f64) -> Second {
    let ops = (ops as f64 * (1.0 + noise * (rng.f64() - 0.5))) as u64;
    let latency = (0..10)
        .map(|i| (latency_us * (90 + 2 * i) / 100, ops / 10))
        .collect();
    Second {
        duration_s: 1.0,
        ops: BTreeMap::from([(
            OpKind::Get,
            OpSecond {
                ops: ops / 10 * 10,
                errors: 0,
                bytes: ops / 10 * 10 * 1024,
                latency,
            },
        )]),
    }
}

/// A run of one 60-second GET phase.
fn run(seed: u64, ops: u64, latency_us: u64, noise: f64) -> RunData {
    let mut rng = fastrand::Rng::with_seed(seed);
    let seconds: Vec<Second> = (0..60)
        .map(|_| second(&mut rng, ops, latency_us, noise))
        .collect();
    let mut row: SummaryRow = serde_json::from_value(serde_json::json!({
        "section": "before", "round": null, "phase": "read", "op": "get",
        "objects_at_start": 0, "started_at": "", "duration_s": 60.0, "client_cpu_s": 0.0,
        "ops": 1, "errors": 0, "error_rate": 0.0, "error_classes": {}, "ops_per_sec": 1.0,
        "bytes": 1024, "mib_per_sec": 0.0, "keys": 0, "keys_per_sec": 0.0,
        "latency_us": { "min": 1, "mean": 1.0, "p50": latency_us, "p90": latency_us,
                        "p99": latency_us, "p999": latency_us, "max": latency_us }
    }))
    .unwrap();
    row.stats.bytes = 1024;
    let mut data = RunData {
        label: RunLabel {
            run_id: format!("run-{seed}"),
            workload: "w".into(),
            started_at: String::new(),
        },
        rows: vec![row],
        seconds: RunSeconds::default(),
        index: IndexStory::default(),
        clock: ClockSource::Socket,
        searches: Vec::new(),
    };
    data.seconds
        .phases
        .insert((Section::Before, None, "read".into()), seconds);
    data
}

fn verdicts(c: &Comparison) -> BTreeMap<String, Verdict> {
    c.runs[0]
        .changes
        .iter()
        .map(|c| (c.metric.clone(), c.verdict))
        .collect()
}

#[test]
fn the_same_run_measured_twice_is_no_change_on_every_metric() {
    let (a, b) = (run(1, 2000, 500, 0.02), run(2, 2000, 500, 0.02));
    let c = compare(&a, &[b], &CompareOptions::default());
    let v = verdicts(&c);
    assert_eq!(v.len(), 5, "{c:#?}");
    assert!(v.values().all(|v| *v == Verdict::NoChange), "{c:#?}");
    assert_eq!(c.runs[0].counts.no_change, 5);
}

#[test]
fn a_slower_store_is_judged_regressed_with_an_interval_clear_of_no_change() {
    let (a, b) = (run(1, 2000, 500, 0.02), run(2, 1000, 1000, 0.02));
    let c = compare(&a, &[b], &CompareOptions::default());
    for change in &c.runs[0].changes {
        assert_eq!(change.verdict, Verdict::Regressed, "{change:#?}");
        let r = change.ratio.unwrap();
        assert!(r.low <= r.value && r.value <= r.high, "{change:#?}");
        match change.better {
            Better::Higher => assert!(r.high < 0.98 && (r.value - 0.5).abs() < 0.02),
            Better::Lower => assert!(r.low > 1.02 && (r.value - 2.0).abs() < 0.05),
        }
    }
    // And the other way round, improved.
    let c = compare(
        &run(2, 1000, 1000, 0.02),
        &[run(1, 2000, 500, 0.02)],
        &Default::default(),
    );
    assert!(
        verdicts(&c).values().all(|v| *v == Verdict::Improved),
        "{c:#?}"
    );
}

#[test]
fn a_change_smaller_than_the_noise_floor_is_no_change_and_a_wider_floor_swallows_more() {
    // 1.5 % more throughput, measured precisely: real, but within ±2 %.
    let (a, b) = (run(1, 20_000, 500, 0.0), run(2, 20_300, 500, 0.0));
    let c = compare(&a, &[b], &CompareOptions::default());
    let ops = &c.runs[0].changes[0];
    assert_eq!(ops.metric, "ops_per_sec");
    assert_eq!(ops.verdict, Verdict::NoChange, "{ops:#?}");
    assert!(
        ops.why.contains("within the ±2 % noise floor"),
        "{}",
        ops.why
    );
    // With a floor of ±1 % it is a change.
    let strict = CompareOptions {
        noise_floor: 0.01,
        ..Default::default()
    };
    let c = compare(
        &run(1, 20_000, 500, 0.0),
        &[run(2, 20_300, 500, 0.0)],
        &strict,
    );
    assert_eq!(c.runs[0].changes[0].verdict, Verdict::Improved);
}

#[test]
fn noisy_seconds_are_inconclusive_and_say_how_many_seconds_would_settle_it() {
    let (a, b) = (run(1, 2000, 500, 0.9), run(2, 2000, 500, 0.9));
    let c = compare(&a, &[b], &CompareOptions::default());
    let ops = &c.runs[0].changes[0];
    assert_eq!(ops.verdict, Verdict::Inconclusive, "{ops:#?}");
    assert!(
        ops.why.contains("measured seconds in each run (now 60)"),
        "{}",
        ops.why
    );
}

#[test]
fn too_few_seconds_are_inconclusive_and_say_so() {
    let mut a = run(1, 2000, 500, 0.0);
    a.seconds.phases.values_mut().for_each(|s| s.truncate(4));
    let c = compare(&a, &[run(2, 2000, 500, 0.0)], &CompareOptions::default());
    let ops = &c.runs[0].changes[0];
    assert_eq!(ops.verdict, Verdict::Inconclusive);
    assert_eq!(
        ops.why,
        "base: 4 measured seconds; an interval needs at least 10"
    );
    assert!(ops.base.is_none() && ops.new.is_some());
}

#[test]
fn a_percentile_that_was_mostly_schedule_lag_is_marked_not_judged() {
    let a = run(1, 2000, 500, 0.0);
    let mut b = run(2, 1000, 1000, 0.0);
    let mut lag = b.rows[0].stats.latency_us;
    (lag.p50, lag.p99) = (100, 800);
    b.rows[0].stats.schedule_lag_us = Some(lag);
    let c = compare(&a, &[b], &CompareOptions::default());
    let v = verdicts(&c);
    assert_eq!(v["p99"], Verdict::Lag);
    assert_eq!(
        v["p50"],
        Verdict::Regressed,
        "lag at p50 is 100 of 1000, {c:#?}"
    );
    assert_eq!(c.runs[0].counts.not_judged, 2, "p99 and p99.9: {c:#?}");
}

#[test]
fn metrics_and_operations_narrow_what_is_judged() {
    let only_p99 = CompareOptions {
        metrics: vec!["p99".into()],
        ..Default::default()
    };
    let c = compare(
        &run(1, 2000, 500, 0.0),
        &[run(2, 2000, 500, 0.0)],
        &only_p99,
    );
    assert_eq!(verdicts(&c).keys().collect::<Vec<_>>(), ["p99"]);
    let only_put = CompareOptions {
        ops: vec![OpKind::Put],
        ..Default::default()
    };
    let c = compare(
        &run(1, 2000, 500, 0.0),
        &[run(2, 2000, 500, 0.0)],
        &only_put,
    );
    assert!(c.runs[0].changes.is_empty());
}

#[test]
fn tails_from_nothing_to_something_are_judged_from_zero() {
    let a = run(1, 2000, 500, 0.0);
    let mut b = run(2, 2000, 500, 0.0);
    // 16 operations held 45 s in each of 30 seconds: a regression beyond doubt.
    for s in b.seconds.phases.values_mut().flatten().step_by(2) {
        s.ops
            .get_mut(&OpKind::Get)
            .unwrap()
            .latency
            .push((45_000_000, 16));
    }
    let c = compare(&a, &[b], &CompareOptions::default());
    let tail: Vec<&Change> = c.runs[0]
        .changes
        .iter()
        .filter(|c| c.metric.starts_with("over_"))
        .collect();
    assert_eq!(tail.len(), 2, "{tail:#?}");
    assert!(
        tail.iter()
            .all(|c| c.verdict == Verdict::Regressed && c.ratio.is_none())
    );
    assert_eq!(tail[0].metric, "over_1s");
    assert!(tail[0].why.starts_with("from 0"), "{}", tail[0].why);
}

#[test]
fn changes_read_as_signed_percentages() {
    assert_eq!(percent(1.123), "+12.3 %");
    assert_eq!(percent(0.96), "−4.0 %");
    assert_eq!(percent(2.5), "+150 %");
    assert_eq!(percent(0.99999), "+0.0 %");
}

#[test]
fn reshards_and_stalls_read_as_counts_with_their_time() {
    assert_eq!(
        IndexStory::default().words(),
        "no reshard and no write stall"
    );
    let story = IndexStory {
        reshards: 4,
        reshard_s: 12.04,
        stalls: 1,
        stall_s: 45.2,
        held_writes: 16,
        longest_write_us: 45_000_000,
    };
    assert_eq!(
        story.words(),
        "4 reshards (12.0 s in all) and 1 write stall (45.2 s in all; 16 writes held, the longest 45.00 s)"
    );
}

#[test]
fn a_percentile_with_few_operations_beyond_it_is_not_judged() {
    // 6,000 GETs a run: p99 rests on 60, p99.9 on 6; even a doubled latency is not
    // called a change at p99.9.
    let c = compare(
        &run(1, 100, 500, 0.0),
        &[run(2, 100, 1000, 0.0)],
        &CompareOptions::default(),
    );
    let v = verdicts(&c);
    assert_eq!(v["p99"], Verdict::Regressed, "{c:#?}");
    assert_eq!(v["p99.9"], Verdict::Inconclusive, "{c:#?}");
    let p999 = c.runs[0]
        .changes
        .iter()
        .find(|c| c.metric == "p99.9")
        .unwrap();
    assert_eq!(
        p999.why,
        "p99.9 of 6000 operations rests on its 6 slowest; judging it needs at least 50000 operations in each run"
    );
}

/// A run of a 4-round GET phase, `ops[k]` GETs a second in round k + 1 (20 seconds
/// each, 2 % wobble).
fn rounds_run(seed: u64, ops: [u64; 4]) -> RunData {
    let mut data = run(seed, 1, 500, 0.0);
    let template = data.rows.remove(0);
    data.seconds.phases.clear();
    let mut rng = fastrand::Rng::with_seed(seed);
    for (k, &per_sec) in ops.iter().enumerate() {
        let round = Some(k as u32 + 1);
        let mut row = template.clone();
        row.section = Section::Round;
        row.round = round;
        data.rows.push(row);
        let seconds = (0..20)
            .map(|_| second(&mut rng, per_sec, 500, 0.02))
            .collect();
        data.seconds
            .phases
            .insert((Section::Round, round, "read".into()), seconds);
    }
    data
}

/// The per-round verdicts of one metric, round 1 first.
fn round_verdicts(c: &Comparison, metric: &str) -> Vec<Verdict> {
    let mut by_round: Vec<(u32, Verdict)> = c.runs[0]
        .changes
        .iter()
        .filter(|c| c.metric == metric && !c.all_rounds)
        .map(|c| (c.round.unwrap(), c.verdict))
        .collect();
    by_round.sort_by_key(|(r, _)| *r);
    by_round.into_iter().map(|(_, v)| v).collect()
}

#[test]
fn a_round_change_that_comes_and_goes_is_inconclusive_and_one_that_recurs_is_judged() {
    let base = rounds_run(1, [2000; 4]);
    // The same store run again later: each round's seconds are tight (±1 %), the rounds
    // disagree (−27 %, −22 %, +26 %, −26 %), as one Ceph layout run twice did.
    let wandering = rounds_run(2, [1460, 1560, 2520, 1480]);
    let c = compare(&base, &[wandering], &CompareOptions::default());
    assert_eq!(
        round_verdicts(&c, "ops_per_sec"),
        [Verdict::Inconclusive; 4],
        "{c:#?}"
    );
    // Half the throughput in every round: a change, round by round.
    let slower = rounds_run(3, [1000; 4]);
    let c = compare(&base, &[slower], &CompareOptions::default());
    assert_eq!(
        round_verdicts(&c, "ops_per_sec"),
        [Verdict::Regressed; 4],
        "{c:#?}"
    );
}

#[test]
fn rounds_together_span_only_the_rounds_both_runs_finished() {
    let base = rounds_run(1, [2000; 4]);
    // Killed in round 3: its seconds were recorded, its row never written.
    let killed_in = |last: u32| {
        let mut run = rounds_run(2, [1000; 4]);
        run.rows.retain(|r| r.round.is_some_and(|n| n <= last));
        run
    };
    let c = compare(&base, &[killed_in(2)], &CompareOptions::default());
    let together: Vec<&Change> = c.runs[0].changes.iter().filter(|c| c.all_rounds).collect();
    assert!(!together.is_empty(), "{c:#?}");
    for t in &together {
        assert!(
            t.why
                .ends_with("(over rounds 1–2, the rounds both runs finished)"),
            "{t:#?}"
        );
    }
    let ops = together.iter().find(|t| t.metric == "ops_per_sec").unwrap();
    // Drawn from rounds 1 and 2 of both: half, not the base's four rounds against two.
    assert!((ops.ratio.unwrap().value - 0.5).abs() < 0.05, "{ops:#?}");
    // One round in common: nothing to put together; round 1 is judged on its own.
    let c = compare(&base, &[killed_in(1)], &CompareOptions::default());
    assert!(c.runs[0].changes.iter().all(|c| !c.all_rounds), "{c:#?}");
    assert!(c.runs[0].changes.iter().any(|c| c.round == Some(1)));
}

#[test]
fn runs_timed_by_different_clocks_say_so() {
    let base = run(1, 1_000, 500, 0.02);
    let mut new = run(2, 1_000, 500, 0.02);
    let options = CompareOptions::default();
    let same = compare(&base, std::slice::from_ref(&new), &options);
    let words = story::paragraph(&base, &new, &same.runs[0], options.noise_floor);
    assert!(!words.contains("different clocks"), "{words}");
    // A run recorded before responses were stamped ended its latencies on the client's
    // clock: tens of microseconds later than the socket, for the same store.
    new.clock = ClockSource::User;
    let words = story::paragraph(&base, &new, &same.runs[0], options.noise_floor);
    assert!(
        words.contains("different clocks (run-1: when the response reached the socket; run-2: when the client saw the response)"),
        "{words}"
    );
}

/// A run of one 60-second GET phase whose search `find` (round 1) ended at `rate` in
/// `bracket`, confirmed or not.
fn searched(seed: u64, rate: Option<f64>, bracket: (f64, Option<f64>), confirmed: bool) -> RunData {
    let mut data = run(seed, 100, 500, 0.02);
    data.searches = vec![crate::SearchResult {
        section: Section::Round,
        round: Some(1),
        phase: "find".into(),
        slo: vec!["put.p99 < 50ms".into()],
        sustainable_rate: rate,
        bracket,
        confirmed,
        budget_ran_out: !confirmed,
        steps: 10,
        judged: Vec::new(),
        limited_by_client: false,
        voided: Vec::new(),
    }];
    data
}

fn sustainable(base: &RunData, new: &RunData, floor: f64) -> Change {
    let options = CompareOptions {
        noise_floor: floor,
        ..CompareOptions::default()
    };
    compare(base, std::slice::from_ref(new), &options).runs[0]
        .changes
        .iter()
        .find(|c| c.metric == "sustainable_rate")
        .cloned()
        .expect("the searches judged")
}

#[test]
fn a_rate_the_base_failed_at_and_the_new_run_passed_is_a_real_improvement() {
    let base = searched(1, Some(383.0), (383.0, Some(400.0)), true);
    let new = searched(2, Some(1680.0), (1680.0, Some(1750.0)), true);
    let c = sustainable(&base, &new, 0.02);
    assert_eq!(c.verdict, Verdict::Improved, "{c:?}");
    let ratio = c.ratio.unwrap();
    // The new bracket's low end over the base's high end, and the other way round.
    assert!((ratio.low - 1680.0 / 400.0).abs() < 1e-9, "{ratio:?}");
    assert!((ratio.high - 1750.0 / 383.0).abs() < 1e-9, "{ratio:?}");
    assert_eq!(c.base.unwrap().high, 400.0);
    // The other way round it is a regression.
    assert_eq!(sustainable(&new, &base, 0.02).verdict, Verdict::Regressed);
}

#[test]
fn a_bracket_the_client_failed_at_is_no_upper_bound_on_the_store() {
    let base = searched(1, Some(1680.0), (1680.0, Some(1750.0)), true);
    let mut starved = searched(2, Some(383.0), (383.0, Some(400.0)), true);
    // Judged on the brackets alone, a regression.
    assert_eq!(
        sustainable(&base, &starved, 0.02).verdict,
        Verdict::Regressed
    );
    // The new run's client fell behind at 400/s: its store may sustain 1,680 as well.
    starved.searches[0].limited_by_client = true;
    let c = sustainable(&base, &starved, 0.02);
    assert_eq!(c.verdict, Verdict::Inconclusive, "{c:?}");
    assert!(
        c.why
            .contains("in this run the client, not the store, failed at the bracket's upper end"),
        "{}",
        c.why
    );
    assert!(c.new.is_none(), "no finite bracket: {c:?}");
    // The other way round: the base's store may have sustained 1,750 too, so passing
    // at 1,680 is no improvement over it.
    let mut starved_base = searched(3, Some(383.0), (383.0, Some(400.0)), true);
    starved_base.searches[0].limited_by_client = true;
    let c = sustainable(&starved_base, &base, 0.02);
    assert_eq!(c.verdict, Verdict::Inconclusive, "{c:?}");
    assert!(c.why.contains("in the base the client"), "{}", c.why);
}

#[test]
fn overlapping_brackets_settle_nothing_past_the_floor_and_no_change_within_it() {
    let base = searched(1, Some(400.0), (400.0, Some(418.0)), true);
    let same = searched(2, Some(400.0), (400.0, Some(418.0)), true);
    // A 5 % bracket cannot tell a ±2 % change.
    let c = sustainable(&base, &same, 0.02);
    assert_eq!(c.verdict, Verdict::Inconclusive, "{c:?}");
    assert!(c.why.contains("the brackets overlap"), "{}", c.why);
    // Within a ±5 % floor it is no change.
    assert_eq!(sustainable(&base, &same, 0.05).verdict, Verdict::NoChange);
    let near = searched(3, Some(410.0), (410.0, Some(430.0)), true);
    assert_eq!(
        sustainable(&base, &near, 0.02).verdict,
        Verdict::Inconclusive
    );
}

#[test]
fn searches_that_found_no_rate_or_were_not_confirmed_say_so() {
    let base = searched(1, Some(400.0), (400.0, Some(418.0)), true);
    let none = searched(2, None, (0.0, Some(50.0)), true);
    let c = sustainable(&base, &none, 0.02);
    assert_eq!(c.verdict, Verdict::Regressed, "{c:?}");
    assert!(c.ratio.is_none() && c.new.is_none());
    // Every step passed up to `to`: no upper end, yet a clear improvement.
    let open = searched(3, Some(1600.0), (1600.0, None), false);
    let c = sustainable(&base, &open, 0.02);
    assert_eq!(c.verdict, Verdict::Improved, "{c:?}");
    assert!(c.ratio.is_none(), "JSON holds no infinite bound: {c:?}");
    assert!(c.why.contains("not confirmed"), "{}", c.why);
    // Asked for other metrics only, the searches are left out.
    let options = CompareOptions::from_names(0.02, &["p99".into()], &[]).unwrap();
    let judged = compare(&base, std::slice::from_ref(&open), &options);
    assert!(
        judged.runs[0]
            .changes
            .iter()
            .all(|c| c.metric != "sustainable_rate")
    );
}
