//! A search phase at run time: each step is an open-loop run of the phase at the rate
//! the search chose (`put@1000`, a repeat `put@1000#2`), recorded as any phase is,
//! judged on its rows against the SLOs, on the client sending ≥ 99 % of its rate and
//! on the store answering ≥ 97 % of it; the next
//! rate is chosen from the steps recorded so far, so a resumed run takes the same path
//! (a step stopped before its end is run again whole). The checkpoint stays on the
//! search until it ends; its result goes into the summary.

use std::time::Duration;

use keystorm_results::threshold::Threshold;
use keystorm_results::{JudgedStep, RunEvent, RunStatus, SearchResult, SummaryRow};

use super::checkpoint::save_checkpoint;
use super::search::{Next, Tried, next, so_far};
use super::sequence::ScheduledPhase;
use super::{PhaseFailure, PhaseRunner, fail};
use crate::plan::{PhaseEnd, SearchPlan};

/// A step passes when it sent at least this share of its rate: of the requests due by
/// the end of a `duration` step (those left unsent are its backlog), or of the rate
/// over the measured time of an `operations` step.
const SENT_AT_LEAST: f64 = 0.99;

/// A step passes when the store answered at least this share of its rate a second over
/// the step's measured time: a store that falls behind (its queue growing) answers
/// less than it is asked, however the SLO stands after a short step. (The measured
/// time ends with the last answer, which costs a short step about its latency over
/// its duration.)
const ANSWERED_AT_LEAST: f64 = 0.97;

impl PhaseRunner<'_> {
    /// Runs search phase `n` to its end; how the run ends here, if it does.
    pub(super) async fn search(
        &mut self,
        n: usize,
        scheduled: &ScheduledPhase,
        plan: &SearchPlan,
    ) -> Result<Option<RunStatus>, PhaseFailure> {
        let slos: Vec<Threshold> = plan.slo.iter().filter_map(|t| t.parse().ok()).collect();
        let (found, ran_out, judged) = loop {
            let (tried, judged, spent) = self.steps_so_far(scheduled, &slos);
            let (rate, repeat) = match next(plan, &tried) {
                Next::Done(found) => break (found, false, judged),
                Next::Run { rate, repeat } => (rate, repeat),
            };
            if plan
                .budget
                .is_some_and(|b| spent + step_length(scheduled) > b)
            {
                break (so_far(&tried), true, judged);
            }
            let step = step_of(scheduled, rate, repeat);
            let outcome = self.run(n, &step, None).await?;
            let interrupted = self.ctx.cancel.is_cancelled() && outcome.aborted.is_none();
            self.add_rows(&outcome.rows, &outcome.totals, outcome.measured)?;
            // The search stays current: a resume chooses its next step from the rows.
            save_checkpoint(self.ctx, self.ctx.window.checkpoint_state(), n, None)
                .map_err(fail(RunStatus::Failed))?;
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
        let result = SearchResult {
            section: scheduled.phase_ref.section,
            round: scheduled.phase_ref.round,
            phase: scheduled.plan.name.clone(),
            slo: plan.slo.clone(),
            sustainable_rate: found.sustainable_rate,
            bracket: found.bracket,
            confirmed: found.confirmed && !ran_out,
            budget_ran_out: ran_out,
            steps: judged.len() as u32,
            judged,
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
        let mut spent = Duration::ZERO;
        let tried: Vec<(Tried, JudgedStep)> = names
            .iter()
            .filter_map(|name| {
                let rows: Vec<&SummaryRow> =
                    mine.iter().copied().filter(|r| r.phase == *name).collect();
                let open = rows.iter().find_map(|r| r.open_loop)?;
                spent += scheduled.plan.warmup
                    + Duration::from_secs_f64(rows.first().map_or(0.0, |r| r.duration_s));
                let timed = matches!(scheduled.plan.end, PhaseEnd::Duration(_));
                let passed = sent_its_rate(&rows, open, timed)
                    && answered_its_rate(&rows, open)
                    && keeps(slos, name, &rows);
                Some((
                    Tried {
                        rate: open.asked_per_sec,
                        passed,
                    },
                    JudgedStep {
                        phase: name.to_string(),
                        passed,
                    },
                ))
            })
            .collect();
        let (tried, judged) = tried.into_iter().unzip();
        (tried, judged, spent)
    }
}

/// Whether a step sent its rate: for a `duration` step (`timed`), the requests due by
/// its end less those never sent (the measured time also holds the last answers'
/// latency, which would count against a short step's rate); else the rate sent over
/// its measured time.
fn sent_its_rate(rows: &[&SummaryRow], open: keystorm_results::OpenLoop, timed: bool) -> bool {
    if timed {
        let sent: u64 = rows.iter().map(|r| r.stats.ops + r.stats.errors).sum();
        let due = sent + open.backlog;
        due > 0 && sent as f64 >= SENT_AT_LEAST * due as f64
    } else {
        open.asked_per_sec > 0.0 && open.sent_per_sec >= SENT_AT_LEAST * open.asked_per_sec
    }
}

/// Whether the store answered the step's rate: every answer (errors too) per measured
/// second, against the rate asked.
fn answered_its_rate(rows: &[&SummaryRow], open: keystorm_results::OpenLoop) -> bool {
    let answered: f64 = rows
        .iter()
        .filter(|r| r.duration_s > 0.0)
        .map(|r| (r.stats.ops + r.stats.errors) as f64 / r.duration_s)
        .sum();
    answered >= ANSWERED_AT_LEAST * open.asked_per_sec
}

/// Whether a step kept every SLO (one about an operation the step did not run holds).
fn keeps(slos: &[Threshold], name: &str, rows: &[&SummaryRow]) -> bool {
    slos.iter()
        .all(|t| t.check(name, rows).is_none_or(|c| c.passed))
}

/// How long one step takes: its warm-up and, for a `duration` phase, its duration.
fn step_length(scheduled: &ScheduledPhase) -> Duration {
    scheduled.plan.warmup
        + match scheduled.plan.end {
            PhaseEnd::Duration(d) => d,
            _ => Duration::ZERO,
        }
}

/// The step at `rate`, run `repeat` times so far plus this one: the phase under the
/// step's name, open loop, tagged with the search.
fn step_of(scheduled: &ScheduledPhase, rate: f64, repeat: u32) -> ScheduledPhase {
    let mut step = scheduled.clone();
    let name = crate::plan::step_name(&scheduled.plan.name, rate, repeat);
    step.phase_ref.name = name.clone();
    step.plan.name = name;
    step.plan.rate = Some(rate);
    step.plan.search = None;
    step.plan.sweep = Some(scheduled.plan.name.clone());
    step
}
