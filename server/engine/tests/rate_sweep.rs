//! A rate sweep (`rates:`) runs one open-loop step per rate, each a phase of its own
//! with its own rows, named after its rate and tagged with the sweep; a search
//! (`search:`) chooses its steps' rates until it has the highest one that keeps its
//! SLO. Tested against a target with a known knee (8 requests served at once, 20 ms
//! each: at most 400 a second): below it every step sends what it asks at the
//! target's latency, past it requests queue, the step sends at most the target's
//! capacity and latency climbs; the search finds the knee.

mod common;

use std::time::Duration;

use keystorm_results::{RunStatus, Section, SummaryRow};
use keystorm_types::OpKind;

/// Held for a whole test: the steps measure what a client keeps up with, so two
/// searches at once on a small machine would starve each other's clients.
async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static KNEE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    KNEE.lock().await
}

/// A target serving 8 PUTs at once, each 20 ms: at most 400 a second.
async fn knee_at_400() -> keystorm_sim::SimHandle {
    let config = keystorm_sim::SimConfig {
        credentials: Some((common::ACCESS_KEY.into(), common::SECRET_KEY.into())),
        storage: keystorm_sim::Storage::SizeOnly,
        latency: keystorm_sim::LatencyConfig {
            put: Some(keystorm_types::Delay::Fixed(Duration::from_millis(20))),
            ..Default::default()
        },
        max_inflight: Some(8),
        ..Default::default()
    };
    keystorm_sim::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("sim starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sweep_steps_through_its_rates_and_latency_climbs_past_the_knee() {
    let _one = one_at_a_time().await;
    let sim = knee_at_400().await;
    let results = tempfile::tempdir().unwrap();
    let body = "buckets:\n  names: [knee]\nobjects:\n  size: 1KiB\nrounds:\n  count: 1\n  phases:\n    - { op: put, workers: 64, rates: [800, 100, 200], duration: 2500ms }\n";
    let text = common::workload(&sim.endpoint(), body);
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);

    let rows: Vec<&SummaryRow> = outcome
        .summary
        .rows
        .iter()
        .filter(|r| r.section == Section::Round && r.op == OpKind::Put)
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r.phase.as_str()).collect();
    assert_eq!(
        names,
        ["put@100", "put@200", "put@800"],
        "lowest rate first"
    );
    for (row, asked) in rows.iter().zip([100.0, 200.0, 800.0]) {
        assert_eq!(row.sweep.as_deref(), Some("put"), "{row:?}");
        let open = row.open_loop.expect("every step is open loop");
        assert_eq!(open.asked_per_sec, asked);
    }
    let sent = |r: &SummaryRow| {
        let o = r.open_loop.unwrap();
        o.sent_per_sec / o.asked_per_sec
    };
    // Below the knee every request leaves and the target answers in about 20 ms (a
    // busy machine's client may stall for a tenth of a second now and then, and lose
    // a few per cent of a step's time).
    for below in &rows[..2] {
        assert!(sent(below) > 0.9, "{below:?}");
        assert!(below.stats.latency_us.p50 < 60_000, "{below:?}");
    }
    // Past it: the target serves at most 400 a second, so 64 requests in flight wait
    // about 64 / 400 s each (Little's law) and the step sends half of what it asks.
    let past = rows[2];
    assert!(sent(past) < 0.55, "{past:?}");
    assert!(past.stats.latency_us.p50 >= 100_000, "{past:?}");
    assert!(
        past.stats.latency_us.p99 > rows[1].stats.latency_us.p99,
        "p99 rises past the knee: {past:?}"
    );
    // The curve: one, for the PUTs, its knee the last step below the first behind.
    let curves = keystorm_results::sweep_curves(&outcome.summary.rows, &outcome.summary.searches);
    assert_eq!(curves.len(), 1, "{curves:?}");
    let curve = &curves[0];
    assert_eq!((curve.sweep.as_str(), curve.op), ("put", OpKind::Put));
    assert_eq!(curve.knee().map(|s| s.phase.as_str()), Some("put@200"));
    assert_eq!(
        curve.first_behind().map(|s| s.phase.as_str()),
        Some("put@800")
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_finds_the_rate_the_target_can_serve_within_its_slo() {
    let _one = one_at_a_time().await;
    let sim = knee_at_400().await;
    let results = tempfile::tempdir().unwrap();
    let body = "buckets:\n  names: [knee]\nobjects:\n  size: 1KiB\nrounds:\n  count: 1\n  phases:\n    - { op: put, workers: 64, search: { slo: \"put.p99 < 150ms\", from: 50, to: 1600 }, warmup: 500ms, duration: 4s }\n";
    let text = common::workload(&sim.endpoint(), body);
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let searches = &outcome.summary.searches;
    assert_eq!(searches.len(), 1, "{searches:?}");
    let found = &searches[0];
    let rate = found.sustainable_rate.expect("a sustainable rate");
    // Steps of 4 s: a client stalled at a step's end by a busy machine costs a shorter
    // step a larger share of its rate.
    let failed: Vec<String> = outcome
        .summary
        .rows
        .iter()
        .filter(|r| found.judged.iter().any(|j| !j.passed && j.phase == r.phase))
        .map(|r| {
            format!(
                "{}: {:?} in {:.3} s, p99 {} µs",
                r.phase, r.open_loop, r.duration_s, r.stats.latency_us.p99
            )
        })
        .collect();
    // The knee is 8 ÷ the latency the target gives: 20 ms on a quiet machine, longer on
    // a busy one (its timer wakes late). It lies between 400/s and what the slowest step
    // far below it measured (whose latency also holds the client's own delay); the
    // rate found is within 10 % of it (a step a little past it can still keep its SLO
    // while the queue grows for 4 s; the resolution is 5 %).
    let served = outcome
        .summary
        .rows
        .iter()
        .filter(|r| ["put@50", "put@100"].contains(&r.phase.as_str()))
        .map(|r| r.stats.latency_us.p50)
        .max()
        .expect("the first steps");
    let knee = (8e6 / served as f64).min(400.0);
    assert!(
        (0.9 * knee..=440.0).contains(&rate),
        "knee {knee:.0}/s (p50 {served} µs far below it): {found:?}\nfailed steps: {failed:#?}"
    );
    let (low, high) = found.bracket;
    let high = high.expect("a rate that failed");
    assert_eq!(low, rate);
    assert!(high > low && high / low <= 1.051, "{found:?}");
    assert!(found.confirmed && !found.budget_ran_out, "{found:?}");
    // Each failed step says whose side it failed on, and the result's limit is the
    // upper end's last: past the knee, requests queue in the store with its 64 workers
    // busy, the store's side (on a machine busy enough to starve the client at a
    // step's repeat, the client's).
    for j in &found.judged {
        assert_eq!(j.passed, j.failed_by.is_none(), "{j:?}");
    }
    let upper = keystorm_workload::plan::step_name("put", high, 1);
    let last_at_upper = found
        .judged
        .iter()
        .rfind(|j| j.phase == upper || j.phase.starts_with(&format!("{upper}#")))
        .unwrap();
    assert_eq!(
        found.limited_by_client,
        last_at_upper.failed_by == Some(keystorm_results::FailedBy::Client),
        "{found:?}"
    );
    // Every step is on the record, tagged with the search, the ends run twice.
    let steps: Vec<&str> = outcome
        .summary
        .rows
        .iter()
        .filter(|r| r.sweep.as_deref() == Some("put"))
        .map(|r| r.phase.as_str())
        .collect();
    assert_eq!(steps.len() as u32, found.steps, "{steps:?}");
    // It climbed geometrically (a busy machine may fail a step at first and pass its
    // confirming repeat, `#2`, before the climb goes on).
    let climbed: Vec<&str> = steps.iter().filter(|p| !p.contains('#')).copied().collect();
    assert_eq!(
        &climbed[..4],
        ["put@50", "put@100", "put@200", "put@400"],
        "{steps:?}"
    );
    // Both ends of the final bracket were run twice (a repeat that disagreed earlier
    // may have moved the bracket, with repeats of its own).
    for end in [low, high] {
        let again = keystorm_workload::plan::step_name("put", end, 2);
        assert!(steps.contains(&again.as_str()), "{again} in {steps:?}");
    }
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_stops_at_its_budget_and_says_so() {
    let _one = one_at_a_time().await;
    let sim = knee_at_400().await;
    let results = tempfile::tempdir().unwrap();
    // Steps of 1.5 s in a budget of 4 s: two steps, then the budget is spent.
    let body = "buckets:\n  names: [knee]\nobjects:\n  size: 1KiB\nrounds:\n  count: 1\n  phases:\n    - { op: put, workers: 64, search: { slo: \"put.p99 < 150ms\", from: 50, to: 1600, budget: 4s }, duration: 1500ms }\n";
    let text = common::workload(&sim.endpoint(), body);
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let found = &outcome.summary.searches[0];
    assert!(found.budget_ran_out && !found.confirmed, "{found:?}");
    assert_eq!(found.steps, 2, "{found:?}");
    assert_eq!(found.judged.len(), 2, "{found:?}");
    assert_eq!(found.judged[0].phase, "put@50", "{found:?}");
    // What it says is what its two steps showed, far below the knee: both passed
    // (100/s, no rate above it tried), or a busy machine's client failed the second
    // (the bracket then ends at it) or the first (it was run again to confirm).
    let rate_of = |phase: &str| -> f64 { phase[4..].split('#').next().unwrap().parse().unwrap() };
    let passed: Vec<f64> = found
        .judged
        .iter()
        .filter(|s| s.passed)
        .map(|s| rate_of(&s.phase))
        .collect();
    let failed = found
        .judged
        .iter()
        .find(|s| !s.passed)
        .map(|s| rate_of(&s.phase));
    let best = passed.iter().copied().reduce(f64::max);
    match (best, failed) {
        (Some(best), None) => {
            assert_eq!(found.judged[1].phase, "put@100", "{found:?}");
            assert_eq!(found.sustainable_rate, Some(best), "{found:?}");
            assert_eq!(found.bracket, (best, None), "{found:?}");
        }
        (Some(best), Some(fail)) if fail > best => {
            assert_eq!(found.sustainable_rate, Some(best), "{found:?}");
            assert_eq!(found.bracket, (best, Some(fail)), "{found:?}");
        }
        _ => assert_eq!(found.judged[1].phase, "put@50#2", "{found:?}"),
    }
    sim.shutdown().await;
}
