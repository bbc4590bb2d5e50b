//! A search over agents as the controller keeps it, without a network: one step
//! chosen for all shards, each step judged only once every shard reported it and on
//! their reports merged (not on any one), a shard that reported a step given the next,
//! a step a shard restarted in (or lost its report of) voided and run again by all,
//! the chosen steps kept
//! across a controller's restart, and reports out of bounds refused.

use std::time::Duration;

use keystorm_link::protocol::{SearchStepOrder, SearchStepReply, SearchStepRequest, SentStep};
use keystorm_results::metrics::{OpStats, OpSummary, Percentiles};
use keystorm_results::{OpenLoop, PhaseRef, Section, SummaryRow, encode_histogram};
use keystorm_types::OpKind;

use super::error::FleetError;
use super::new_run::NewFleetRun;
use super::search_record::SearchSpec;
use super::state::Fleet;
use super::tests::{register, split, two_agents_running_with};

const SHORT: Duration = Duration::from_millis(50);

/// A run of two shards whose phase 1 searches for `put.p99 < 50ms` from 100/s.
fn searching() -> NewFleetRun {
    NewFleetRun {
        searches: vec![SearchSpec {
            index: 1,
            phase: PhaseRef {
                section: Section::Round,
                round: Some(1),
                index: 0,
                name: "put".to_string(),
            },
            slo: vec!["put.p99 < 50ms".to_string()],
            from: 100.0,
            to: 1600.0,
            resolution: 0.05,
            budget_ms: None,
            warmup_ms: 0,
            step_ms: 2000,
            timed: true,
            workers: 64,
        }],
        ..split(2)
    }
}

/// One shard's report of step `step` (`name`): its half of `rate` sent in 2 s, every
/// request answered in `latency_ms`.
fn report(step: u32, name: &str, rate: f64, latency_ms: u64) -> SentStep {
    let mut stats = OpStats::default();
    let ops = rate as u64; // half the rate for 2 s
    for _ in 0..ops {
        stats.record_ok(Duration::from_millis(latency_ms), 1024);
    }
    let row = SummaryRow {
        section: Section::Round,
        round: Some(1),
        phase: name.to_string(),
        op: OpKind::Put,
        objects_at_start: 0,
        started_at: "2026-11-30T00:00:00.000Z".to_string(),
        duration_s: 2.0,
        client_cpu_s: 0.1,
        stats: OpSummary {
            latency_us: Percentiles::of(&stats.latency),
            ..stats.summarize(Duration::from_secs(2))
        },
        index_at_start: Vec::new(),
        index_at_end: Vec::new(),
        interrupted: false,
        resumed: false,
        redone: 0,
        taken_over: false,
        wall_s: None,
        open_loop: Some(OpenLoop {
            asked_per_sec: rate / 2.0,
            sent_per_sec: rate / 2.0,
            backlog: 0,
        }),
        sweep: Some("put".to_string()),
        endpoints: Vec::new(),
    };
    SentStep {
        step,
        rows: vec![row],
        histograms: [(OpKind::Put, encode_histogram(&stats.latency))].into(),
    }
}

fn ask(run: &str, step: u32, report: Option<SentStep>) -> SearchStepRequest {
    SearchStepRequest {
        run_id: run.to_string(),
        phase: 1,
        step,
        report,
    }
}

async fn answer(fleet: &Fleet, agent: &str, request: SearchStepRequest) -> SearchStepReply {
    fleet.search_step(agent, request, SHORT).await.unwrap()
}

/// `agent` reports step `step` (see [`report`]) and asks for the next.
async fn reported(
    fleet: &Fleet,
    agent: &str,
    run: &str,
    step: u32,
    name: &str,
    rate: f64,
    latency_ms: u64,
) -> SearchStepReply {
    let sent = report(step, name, rate, latency_ms);
    answer(fleet, agent, ask(run, step + 1, Some(sent))).await
}

fn run_order(step: u32, rate: f64, repeat: u32) -> Option<SearchStepOrder> {
    Some(SearchStepOrder::Run { step, rate, repeat })
}

#[tokio::test]
async fn every_shard_is_given_the_same_first_step() {
    let (fleet, _dir, a, b, run) = two_agents_running_with(searching());
    assert_eq!(
        answer(&fleet, &a, ask(&run, 0, None)).await.order,
        run_order(0, 100.0, 1)
    );
    assert_eq!(
        answer(&fleet, &b, ask(&run, 0, None)).await.order,
        run_order(0, 100.0, 1)
    );
}

#[tokio::test]
async fn a_step_is_judged_once_every_shard_reported_it_on_their_reports_merged() {
    let (fleet, _dir, a, b, run) = two_agents_running_with(searching());
    answer(&fleet, &a, ask(&run, 0, None)).await;
    // Shard 0 kept 20 ms: alone it would pass. Until shard 1 reports, no step is chosen.
    let waiting = reported(&fleet, &a, &run, 0, "put@100", 100.0, 20).await;
    assert_eq!(waiting.order, None);
    assert_eq!(waiting.abort, None);
    // Shard 1 answered in 80 ms: the step merged misses its p99, so the first rate is
    // run again to confirm it (a passing step would have doubled it).
    let next = reported(&fleet, &b, &run, 0, "put@100", 100.0, 80).await;
    assert_eq!(next.order, run_order(1, 100.0, 2));
    // Shard 0, asking again with its report, is given the same step.
    let same = reported(&fleet, &a, &run, 0, "put@100", 100.0, 20).await;
    assert_eq!(same.order, run_order(1, 100.0, 2));
}

#[tokio::test]
async fn passing_steps_climb_and_the_end_is_the_same_result_for_every_shard() {
    let (fleet, _dir, a, b, run) = two_agents_running_with(searching());
    let mut step = 0;
    let mut order = answer(&fleet, &a, ask(&run, 0, None)).await.order;
    let mut rates = Vec::new();
    // A store that keeps 20 ms up to 500/s and 80 ms past it.
    let result = loop {
        match order {
            Some(SearchStepOrder::Run {
                step: n,
                rate,
                repeat,
            }) => {
                assert_eq!(n, step);
                rates.push(rate);
                let name = keystorm_workload::plan::step_name("put", rate, repeat);
                let latency = if rate <= 500.0 { 20 } else { 80 };
                reported(&fleet, &a, &run, step, &name, rate, latency).await;
                order = reported(&fleet, &b, &run, step, &name, rate, latency)
                    .await
                    .order;
                step += 1;
            }
            Some(SearchStepOrder::Done { result }) => break result,
            None => panic!("no order after {rates:?}"),
        }
    };
    assert_eq!(&rates[..4], [100.0, 200.0, 400.0, 800.0]);
    let found = result.sustainable_rate.unwrap();
    assert!((476.0..=500.0).contains(&found), "{result:?}");
    assert!(result.confirmed, "{result:?}");
    assert_eq!(result.steps as usize, rates.len());
    // The other shard hears the same end.
    let end = answer(&fleet, &a, ask(&run, step, None)).await.order;
    assert_eq!(end, Some(SearchStepOrder::Done { result }));
}

#[tokio::test]
async fn a_shard_asking_for_a_step_it_reported_is_given_the_next_one_it_has_not() {
    let (fleet, _dir, a, b, run) = two_agents_running_with(searching());
    answer(&fleet, &a, ask(&run, 0, None)).await;
    reported(&fleet, &a, &run, 0, "put@100", 100.0, 20).await;
    reported(&fleet, &b, &run, 0, "put@100", 100.0, 20).await;
    reported(&fleet, &a, &run, 1, "put@200", 200.0, 20).await;
    // Shard 0 taken over from a copy of its folder that holds step 0 only: it asks for
    // step 1, which it reported, and waits for step 1 to be judged instead of running
    // it twice.
    assert_eq!(answer(&fleet, &a, ask(&run, 1, None)).await.order, None);
    let next = reported(&fleet, &b, &run, 1, "put@200", 200.0, 20).await;
    assert_eq!(next.order, run_order(2, 400.0, 1));
    assert_eq!(
        answer(&fleet, &a, ask(&run, 1, None)).await.order,
        run_order(2, 400.0, 1)
    );
}

#[tokio::test]
async fn a_step_a_shard_restarted_in_is_not_judged_and_all_run_it_again() {
    let (fleet, _dir, a, b, run) = two_agents_running_with(searching());
    answer(&fleet, &a, ask(&run, 0, None)).await;
    answer(&fleet, &b, ask(&run, 0, None)).await;
    // Shard 0's agent restarted in the middle of step 0: it asks for step 0 again.
    assert_eq!(answer(&fleet, &a, ask(&run, 0, None)).await.order, None);
    // Once shard 1 reported it, the step is voided and run again by both: its report
    // alone (20 ms, a pass) is not judged.
    let next = reported(&fleet, &b, &run, 0, "put@100", 100.0, 20).await;
    assert_eq!(next.order, run_order(1, 100.0, 2));
    assert_eq!(
        answer(&fleet, &a, ask(&run, 0, None)).await.order,
        run_order(1, 100.0, 2)
    );
    reported(&fleet, &a, &run, 1, "put@100#2", 100.0, 20).await;
    let next = reported(&fleet, &b, &run, 1, "put@100#2", 100.0, 20).await;
    // The run again passed: the climb goes on from it.
    assert_eq!(next.order, run_order(2, 200.0, 1));
    let inner = fleet.lock();
    let search = &inner.run.as_ref().unwrap().searches[&1];
    assert!(search.steps[0].void && search.steps[0].passed.is_none());
    assert_eq!(search.steps[1].passed, Some(true));
}

#[tokio::test]
async fn a_shard_whose_report_was_lost_voids_the_step() {
    let (fleet, _dir, a, b, run) = two_agents_running_with(searching());
    answer(&fleet, &a, ask(&run, 0, None)).await;
    answer(&fleet, &b, ask(&run, 0, None)).await;
    reported(&fleet, &a, &run, 0, "put@100", 100.0, 20).await;
    // Shard 1 ran step 0 whole and its agent died before its report arrived: started
    // again, it asks for step 1 with no report. Step 0 cannot be judged without it:
    // both run it again.
    assert_eq!(
        answer(&fleet, &b, ask(&run, 1, None)).await.order,
        run_order(1, 100.0, 2)
    );
    assert_eq!(
        answer(&fleet, &a, ask(&run, 1, None)).await.order,
        run_order(1, 100.0, 2)
    );
}

#[tokio::test]
async fn a_restarted_controller_goes_on_with_the_steps_it_chose() {
    let (fleet, dir, a, b, run) = two_agents_running_with(searching());
    answer(&fleet, &a, ask(&run, 0, None)).await;
    reported(&fleet, &a, &run, 0, "put@100", 100.0, 20).await;
    reported(&fleet, &b, &run, 0, "put@100", 100.0, 20).await;
    drop(fleet);
    let again = Fleet::new(dir.path().to_path_buf());
    again
        .pick_up(std::sync::Arc::new(keystorm_workload::observer::NoObserver))
        .unwrap();
    let a = register(&again, "a");
    let b = register(&again, "b");
    // Step 1 was chosen before the restart; shard 1's report of it, not judged yet,
    // is sent again.
    assert_eq!(
        answer(&again, &a, ask(&run, 1, None)).await.order,
        run_order(1, 200.0, 1)
    );
    reported(&again, &a, &run, 1, "put@200", 200.0, 20).await;
    let next = reported(&again, &b, &run, 1, "put@200", 200.0, 20).await;
    assert_eq!(next.order, run_order(2, 400.0, 1));
}

#[tokio::test]
async fn reports_out_of_bounds_are_refused() {
    let (fleet, _dir, a, _b, run) = two_agents_running_with(searching());
    answer(&fleet, &a, ask(&run, 0, None)).await;
    let refused = |e: FleetError| matches!(e, FleetError::Bounds(_));
    // A step not chosen yet.
    let e = fleet
        .search_step(
            &a,
            ask(&run, 1, Some(report(5, "put@100", 100.0, 20))),
            SHORT,
        )
        .await
        .unwrap_err();
    assert!(refused(e));
    // Rows of another step.
    let e = fleet
        .search_step(
            &a,
            ask(&run, 1, Some(report(0, "put@999", 100.0, 20))),
            SHORT,
        )
        .await
        .unwrap_err();
    assert!(e.to_string().contains("step 0 is put@100"), "{e}");
    // A histogram that cannot be read.
    let mut unreadable = report(0, "put@100", 100.0, 20);
    unreadable
        .histograms
        .insert(OpKind::Put, "not a histogram".to_string());
    let e = fleet
        .search_step(&a, ask(&run, 1, Some(unreadable)), SHORT)
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("put histogram cannot be read"),
        "{e}"
    );
    // Phase 0 is no search.
    let e = fleet
        .search_step(
            &a,
            SearchStepRequest {
                phase: 0,
                ..ask(&run, 0, None)
            },
            SHORT,
        )
        .await
        .unwrap_err();
    assert!(e.to_string().contains("is no search"), "{e}");
}
