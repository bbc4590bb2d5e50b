//! The search for the sustainable rate of a run split over agents: the controller
//! chooses every step. Each shard runs its share of a step and reports what it
//! measured (its rows and latency histograms); once every shard still running has
//! reported the step, the controller merges the reports exactly, judges the step by
//! the rule a single process uses, and chooses the next one (or ends the search) with
//! the same choice function. A shard asking for a step it reported already (an agent
//! taking a shard over from the controller's copy) waits for the next one. A shard
//! given a step that asks for it again without a report (its agent restarted, or
//! another took the shard over, in the middle of it; or its report was lost) voids
//! the step: once the others reported it, it is not judged, and all the shards run it
//! again together (`put@1000#2`).
//!
//! The steps chosen and how each was judged are kept in the run's record, so a
//! controller started again goes on with them; reports not judged yet are in memory
//! only (their shards send them again until they hear the next step). Memory holds at
//! most 40 steps a search and one report per shard of the step being judged.

use std::collections::BTreeMap;
use std::time::Duration;

use keystorm_engine::executor::search::{Decision, Tried, decide, result_of};
use keystorm_link::bounds::{BoundsError, check_search_step};
use keystorm_link::protocol::{SearchStepOrder, SearchStepReply, SearchStepRequest};
use keystorm_results::merge::{StepPart, merge_step};
use keystorm_results::threshold::Threshold;
use keystorm_results::{JudgedStep, SummaryRow, decode_histogram};

use super::error::FleetError;
use super::run_record::{FleetRun, RunState};
use super::search_record::{ChosenStep, FleetSearch, SearchSpec};
use super::state::Fleet;

/// How long a shard's ask waits for the step before it to be judged before it is
/// told to ask again.
pub const SEARCH_WAIT: Duration = Duration::from_secs(20);

impl Fleet {
    /// Takes a shard's report of a search step, if it brings one, and answers its ask
    /// for the next step: once the step before is judged, or (up to `at_most`) not yet.
    pub async fn search_step(
        &self,
        agent: &str,
        mut request: SearchStepRequest,
        at_most: Duration,
    ) -> Result<SearchStepReply, FleetError> {
        check_search_step(&request)?;
        let report = match request.report.take() {
            Some(sent) => Some((sent.step, read_report(sent)?)),
            None => None,
        };
        let shard = {
            let mut inner = self.lock();
            let run = inner.agents_run(agent, &request.run_id)?;
            let shard = run
                .shard_index_of(agent)
                .ok_or_else(|| FleetError::UnknownRun(request.run_id.clone()))?;
            let spec = search_spec(run, request.phase)?;
            let search = run.searches.entry(request.phase).or_default();
            let mut changed = false;
            if let Some((step, part)) = report {
                let Some(chosen) = search.steps.get(step as usize) else {
                    return Err(bad(format!(
                        "the search has no step {step} yet: report a step the controller gave"
                    )));
                };
                if let Some(row) = part.rows.iter().find(|r| r.phase != chosen.name) {
                    return Err(bad(format!(
                        "step {step} is {}, and the report's rows are of {}",
                        chosen.name,
                        keystorm_link::bounds::shown(&row.phase)
                    )));
                }
                if !chosen.settled() && step as usize + 1 == search.steps.len() {
                    search.reports.insert(shard, part);
                    changed = settle(search, &spec, &run.shards);
                }
            }
            if changed {
                self.save(&inner);
            }
            shard
        };
        self.notify();
        let reply = self
            .answer_within(at_most, || self.search_answer(&request, shard))
            .await?;
        Ok(reply.unwrap_or(SearchStepReply {
            order: None,
            abort: None,
        }))
    }

    /// The answer to shard `shard`'s ask, if there is one now: the first step from
    /// the one it asks for that it has not reported, a new step chosen once the last is
    /// judged, or the search's end.
    fn search_answer(
        &self,
        request: &SearchStepRequest,
        shard: usize,
    ) -> Result<Option<SearchStepReply>, FleetError> {
        let mut inner = self.lock();
        let run = inner
            .run
            .as_mut()
            .filter(|r| r.run_id == request.run_id)
            .ok_or_else(|| FleetError::UnknownRun(request.run_id.clone()))?;
        if run.state != RunState::Running {
            return Ok(Some(SearchStepReply {
                order: None,
                abort: Some(
                    run.stop_reason
                        .clone()
                        .unwrap_or_else(|| "the run was stopped".to_string()),
                ),
            }));
        }
        let spec = search_spec(run, request.phase)?;
        let search = run.searches.entry(request.phase).or_default();
        // The step being judged, and whether this shard reported it.
        let pending = search
            .steps
            .len()
            .checked_sub(1)
            .filter(|&last| !search.steps[last].settled());
        let reported = search.reports.contains_key(&shard);
        let at = request.step as usize;
        if let Some(last) = pending
            && at >= last
            && !reported
            && search.steps[last].given.contains(&shard)
        {
            // Given the step, it asks again without its report: its agent restarted in
            // the middle of the step (or its report was lost with it).
            if search.steps[last].restarted.insert(shard) {
                if settle(search, &spec, &run.shards) {
                    self.save(&inner);
                    drop(inner);
                    self.notify();
                }
                return Ok(None);
            }
        }
        let mut at = at;
        while search.steps.get(at).is_some_and(|s| {
            s.settled() || (Some(at) == pending && (reported || s.restarted.contains(&shard)))
        }) {
            at += 1;
        }
        if let Some(step) = search.steps.get_mut(at) {
            // The record is written when a shard is first given the step, not on every
            // ask of it.
            let first = step.given.insert(shard);
            let reply = run_step(at, step);
            if first {
                self.save(&inner);
            }
            return Ok(Some(reply));
        }
        if let Some(result) = &search.result {
            return Ok(Some(SearchStepReply {
                order: Some(SearchStepOrder::Done {
                    result: result.clone(),
                }),
                abort: None,
            }));
        }
        if pending.is_some() {
            return Ok(None);
        }
        let reply = choose(search, &spec, shard);
        self.save(&inner);
        drop(inner);
        self.notify();
        Ok(Some(reply))
    }
}

/// The search phase `index` of `run`.
fn search_spec(run: &FleetRun, index: u32) -> Result<SearchSpec, FleetError> {
    run.spec
        .searches
        .iter()
        .find(|s| s.index == index)
        .cloned()
        .ok_or_else(|| bad(format!("phase {index} of run {} is no search", run.run_id)))
}

fn bad(message: String) -> FleetError {
    FleetError::Bounds(BoundsError::BadField(message))
}

/// A report's rows with its histograms read.
fn read_report(sent: keystorm_link::protocol::SentStep) -> Result<StepPart, FleetError> {
    let mut histograms = BTreeMap::new();
    for (op, text) in &sent.histograms {
        let h = decode_histogram(text)
            .ok_or_else(|| bad(format!("the step's {op} histogram cannot be read")))?;
        histograms.insert(*op, h);
    }
    Ok(StepPart {
        rows: sent.rows,
        histograms,
    })
}

/// Settles the search's last step once every shard still running reported it or
/// restarted in it: judged on the reports merged, or voided if a shard restarted;
/// whether it did.
fn settle(
    search: &mut FleetSearch,
    spec: &SearchSpec,
    shards: &[super::run_record::Shard],
) -> bool {
    let Some(step) = search.steps.last_mut() else {
        return false;
    };
    let everyone = shards
        .iter()
        .enumerate()
        .all(|(i, s)| s.done || search.reports.contains_key(&i) || step.restarted.contains(&i));
    if !everyone || step.settled() {
        return false;
    }
    let parts: Vec<StepPart> = std::mem::take(&mut search.reports).into_values().collect();
    let rows = merge_step(&parts);
    // Its time counts against the budget, judged or not.
    step.seconds = rows.first().map_or(0.0, |r| r.duration_s);
    if !step.restarted.is_empty() {
        step.void = true;
        return true;
    }
    let refs: Vec<&SummaryRow> = rows.iter().collect();
    let slos: Vec<Threshold> = spec.slo.iter().filter_map(|t| t.parse().ok()).collect();
    // Rows without open-loop figures did not run as a step: failed, on the store's side.
    // Every shard runs the phase's workers.
    let workers = spec.workers * shards.len() as u32;
    let outcome = keystorm_results::judge_step(&step.name, &refs, &slos, spec.timed, workers)
        .unwrap_or(keystorm_results::StepOutcome::Failed(
            keystorm_results::FailedBy::Store,
        ));
    step.passed = Some(outcome.passed());
    step.failed_by = outcome.failed_by();
    true
}

/// The search's next step, added to it (given to `shard`), or its end, kept in it.
fn choose(search: &mut FleetSearch, spec: &SearchSpec, shard: usize) -> SearchStepReply {
    let judged = || search.steps.iter().filter(|s| !s.void);
    let tried: Vec<Tried> = judged()
        .map(|s| Tried {
            rate: s.rate,
            passed: s.passed == Some(true),
        })
        .collect();
    // Every step run counts against the budget, voided ones too.
    let spent: Duration = search
        .steps
        .iter()
        .map(|s| Duration::from_millis(spec.warmup_ms) + Duration::from_secs_f64(s.seconds))
        .sum();
    let plan = spec.plan();
    match decide(&plan, &tried, spent, Duration::from_millis(spec.step_ms)) {
        Decision::Run { rate, .. } => {
            // Named after every run at the rate, voided ones too, so no name repeats.
            let repeat = search.steps.iter().filter(|s| s.rate == rate).count() as u32 + 1;
            let step = ChosenStep {
                name: keystorm_workload::plan::step_name(&spec.phase.name, rate, repeat),
                rate,
                repeat,
                passed: None,
                failed_by: None,
                seconds: 0.0,
                given: [shard].into(),
                restarted: Default::default(),
                void: false,
            };
            let reply = run_step(search.steps.len(), &step);
            search.steps.push(step);
            reply
        }
        Decision::Done { found, ran_out } => {
            let judged = judged()
                .map(|s| JudgedStep {
                    phase: s.name.clone(),
                    passed: s.passed == Some(true),
                    failed_by: s.failed_by,
                })
                .collect();
            let mut result = result_of(&spec.phase, &plan, found, ran_out, &tried, judged);
            result.voided = search
                .steps
                .iter()
                .filter(|s| s.void)
                .map(|s| s.name.clone())
                .collect();
            search.result = Some(result.clone());
            SearchStepReply {
                order: Some(SearchStepOrder::Done { result }),
                abort: None,
            }
        }
    }
}

fn run_step(at: usize, step: &ChosenStep) -> SearchStepReply {
    SearchStepReply {
        order: Some(SearchStepOrder::Run {
            step: at as u32,
            rate: step.rate,
            repeat: step.repeat,
        }),
        abort: None,
    }
}
