//! A search phase at run time: each step is an open-loop run of the phase at the rate
//! the search chose (`put@1000`, a repeat `put@1000#2`), recorded as any phase is,
//! judged on its rows against the SLOs, on the client sending ≥ 99 % of its rate and
//! on the store answering ≥ 97 % of it; the next rate is chosen from the steps
//! recorded so far, so a resumed run takes the same path (a step stopped before its
//! end is run again whole). A shard of a run over agents runs its share of each step
//! and lets the run's gate choose: the controller judges every step on all the
//! shards' measures merged. The checkpoint stays on the search until it ends; its
//! result goes into the summary.

use std::time::Duration;

use keystorm_results::merge::StepPart;
use keystorm_results::threshold::Threshold;
use keystorm_results::{JudgedStep, RunEvent, RunStatus, SummaryRow, judge_step};

use super::checkpoint::save_checkpoint;
use super::gate::{SearchAsk, SearchOrder, StepReport};
use super::search::{Decision, Tried, decide, result_of, step_length};
use super::sequence::ScheduledPhase;
use super::{PhaseFailure, PhaseRunner, fail};
use crate::plan::SearchPlan;
use keystorm_results::PhaseEnd;

impl PhaseRunner<'_> {
    /// Runs search phase `n` to its end; how the run ends here, if it does.
    pub(super) async fn search(
        &mut self,
        n: usize,
        scheduled: &ScheduledPhase,
        plan: &SearchPlan,
    ) -> Result<Option<RunStatus>, PhaseFailure> {
        let slos: Vec<Threshold> = plan.slo.iter().filter_map(|t| t.parse().ok()).collect();
        let shard = self.ctx.plan.keyspace.shard;
        // A shard's steps are chosen by its run's gate, on every shard's measure.
        let keeper = self.ctx.gate.clone().filter(|_| !shard.is_whole());
        let mut report: Option<StepReport> = None;
        let result = loop {
            let (tried, judged, spent) = self.steps_so_far(scheduled, &slos);
            let order = match &keeper {
                // A shard runs the steps its run's gate chooses on every shard's measure.
                Some(gate) => {
                    let ask = SearchAsk {
                        step: tried.len() as u32,
                        report: report.take(),
                    };
                    let Some(answer) = gate.search_step(n, ask) else {
                        return Err(PhaseFailure {
                            status: RunStatus::Failed,
                            message: format!(
                                "phase {} searches, and this shard's gate chooses no steps",
                                scheduled.phase_ref.name
                            ),
                        });
                    };
                    tokio::select! {
                        order = answer => order.map_err(fail(RunStatus::Aborted))?,
                        _ = self.ctx.cancel.cancelled() => return Ok(Some(RunStatus::Interrupted)),
                    }
                }
                None => match decide(plan, &tried, spent, step_length(&scheduled.plan)) {
                    Decision::Done { found, ran_out } => {
                        break result_of(
                            &scheduled.phase_ref,
                            plan,
                            found,
                            ran_out,
                            &tried,
                            judged,
                        );
                    }
                    Decision::Run { rate, repeat } => SearchOrder::Run {
                        step: tried.len() as u32,
                        rate,
                        repeat,
                    },
                },
            };
            let (index, rate, repeat) = match order {
                SearchOrder::Done(result) => break result,
                SearchOrder::Run { step, rate, repeat } => (step, rate, repeat),
            };
            let step = step_of(scheduled, rate, repeat, f64::from(shard.count));
            let outcome = self.run(n, &step, None).await?;
            let interrupted = self.ctx.cancel.is_cancelled() && outcome.aborted.is_none();
            self.add_rows(&outcome.rows, &outcome.totals, outcome.measured)?;
            // The search stays current: a resume chooses its next step from the rows.
            save_checkpoint(self.ctx, self.ctx.window.checkpoint_state(), n, None)
                .map_err(fail(RunStatus::Failed))?;
            // Only a keeper is told what the step measured.
            report = keeper.is_some().then(|| StepReport {
                step: index,
                part: StepPart {
                    rows: outcome.rows.clone(),
                    histograms: outcome
                        .totals
                        .active()
                        .map(|(op, s)| (op, s.latency.clone()))
                        .collect(),
                },
            });
            self.ctx.emit(RunEvent::PhaseFinished {
                phase: step.phase_ref.clone(),
                rows: outcome.rows,
            });
            if let Some(message) = outcome.aborted {
                return Err(PhaseFailure {
                    status: RunStatus::Aborted,
                    message,
                });
            }
            if interrupted {
                return Ok(Some(RunStatus::Interrupted));
            }
        };
        self.summary.searches.push(result);
        self.add_rows(&[], &Default::default(), Duration::ZERO)?;
        save_checkpoint(self.ctx, self.ctx.window.checkpoint_state(), n + 1, None)
            .map_err(fail(RunStatus::Failed))?;
        Ok(None)
    }

    /// The search's steps recorded so far, in order, each judged (by rate, and by name);
    /// and the time they took (warm-ups and measured time).
    fn steps_so_far(
        &self,
        scheduled: &ScheduledPhase,
        slos: &[Threshold],
    ) -> (Vec<Tried>, Vec<JudgedStep>, Duration) {
        let phase = &scheduled.phase_ref;
        let mine: Vec<&SummaryRow> = self
            .summary
            .rows
            .iter()
            .filter(|r| {
                r.section == phase.section
                    && r.round == phase.round
                    && r.sweep.as_deref() == Some(scheduled.plan.name.as_str())
                    && !r.interrupted
            })
            .collect();
        let mut names: Vec<&str> = Vec::new();
        for r in &mine {
            if !names.contains(&r.phase.as_str()) {
                names.push(&r.phase);
            }
        }
        let timed = matches!(scheduled.plan.end, PhaseEnd::Duration(_));
        let mut spent = Duration::ZERO;
        let tried: Vec<(Tried, JudgedStep)> = names
            .iter()
            .filter_map(|name| {
                let rows: Vec<&SummaryRow> =
                    mine.iter().copied().filter(|r| r.phase == *name).collect();
                let open = rows.iter().find_map(|r| r.open_loop)?;
                let outcome = judge_step(name, &rows, slos, timed, scheduled.plan.tasks())?;
                spent += scheduled.plan.warmup
                    + Duration::from_secs_f64(rows.first().map_or(0.0, |r| r.duration_s));
                Some((
                    Tried {
                        rate: open.asked_per_sec,
                        passed: outcome.passed(),
                    },
                    JudgedStep {
                        phase: name.to_string(),
                        passed: outcome.passed(),
                        failed_by: outcome.failed_by(),
                    },
                ))
            })
            .collect();
        let (tried, judged) = tried.into_iter().unzip();
        (tried, judged, spent)
    }
}

/// The step at `rate`, run `repeat` times so far plus this one: the phase under the
/// step's name, open loop at the share of `rate` of one of `shards`, tagged with the
/// search.
fn step_of(scheduled: &ScheduledPhase, rate: f64, repeat: u32, shards: f64) -> ScheduledPhase {
    let mut step = scheduled.clone();
    let name = crate::plan::step_name(&scheduled.plan.name, rate, repeat);
    step.phase_ref.name = name.clone();
    step.plan.name = name;
    step.plan.rate = Some(rate / shards);
    step.plan.search = None;
    step.plan.sweep = Some(scheduled.plan.name.clone());
    step
}
