//! The choices of a search for the sustainable rate, as a function of the steps run so
//! far: step up from `from` by doubling until a step fails, halve the bracket (in
//! ratio) until its ends are within the resolution, then repeat the last passing and
//! the first failing step to confirm them; a repeat that disagrees moves the bracket
//! and the search goes on. Pure, so a resumed run takes the same path from its rows.

use std::time::Duration;

use keystorm_results::{FailedBy, JudgedStep, PhaseRef, SearchResult};
use serde::Serialize;

use crate::plan::{PhasePlan, SearchPlan, step_rate};
use keystorm_results::PhaseEnd;

/// A step already run: its rate and whether it kept every SLO and sent its rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tried {
    pub rate: f64,
    pub passed: bool,
}

/// What the search does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Run a step at `rate`; `repeat` is its how-manieth run at that rate (1: first).
    Run {
        rate: f64,
        repeat: u32,
    },
    Done(Found),
}

/// Where the search ended.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Found {
    /// The highest rate that passed (and, once confirmed, passed again); `None`: `from`
    /// failed twice.
    pub sustainable_rate: Option<f64>,
    /// The rates the sustainable one lies between: the highest that passed (0 if none)
    /// and the lowest that failed (`None`: none failed up to `to`).
    pub bracket: (f64, Option<f64>),
    /// Both ends were repeated and held.
    pub confirmed: bool,
}

/// What a search does next with its time budget counted: a step, or its end.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Run { rate: f64, repeat: u32 },
    Done { found: Found, ran_out: bool },
}

/// [`next`] within the budget: a step that would end past it (the steps so far took
/// `spent`, a step takes `step_length`) is not run, and the search ends where it
/// stands, unconfirmed.
pub fn decide(
    plan: &SearchPlan,
    tried: &[Tried],
    spent: Duration,
    step_length: Duration,
) -> Decision {
    match next(plan, tried) {
        Next::Done(found) => Decision::Done {
            found,
            ran_out: false,
        },
        Next::Run { .. } if plan.budget.is_some_and(|b| spent + step_length > b) => {
            Decision::Done {
                found: so_far(tried),
                ran_out: true,
            }
        }
        Next::Run { rate, repeat } => Decision::Run { rate, repeat },
    }
}

/// How long one step of `phase` takes: its warm-up and, for a `duration` phase, its
/// duration.
pub fn step_length(phase: &PhasePlan) -> Duration {
    phase.warmup
        + match phase.end {
            PhaseEnd::Duration(d) => d,
            _ => Duration::ZERO,
        }
}

/// The summary's record of the search of phase `phase` that ended at `found`, its
/// steps `judged` in the order they ran (at the rates of `tried`, one for one).
pub fn result_of(
    phase: &PhaseRef,
    plan: &SearchPlan,
    found: Found,
    ran_out: bool,
    tried: &[Tried],
    judged: Vec<JudgedStep>,
) -> SearchResult {
    // The bracket's upper end is the lowest rate whose last step failed: on whose side?
    let limited_by_client = found.bracket.1.is_some_and(|hi| {
        tried
            .iter()
            .zip(&judged)
            .rfind(|(t, _)| t.rate == hi)
            .is_some_and(|(_, j)| j.failed_by == Some(FailedBy::Client))
    });
    SearchResult {
        section: phase.section,
        round: phase.round,
        phase: phase.name.clone(),
        slo: plan.slo.clone(),
        sustainable_rate: found.sustainable_rate,
        bracket: found.bracket,
        confirmed: found.confirmed && !ran_out,
        budget_ran_out: ran_out,
        steps: judged.len() as u32,
        judged,
        limited_by_client,
        voided: Vec::new(),
    }
}

/// The most steps a search runs, whatever its budget: a flapping store must not keep
/// it going for ever.
pub const MAX_STEPS: usize = 40;

/// The last result at each rate tried, and how often it was tried.
fn last_at(tried: &[Tried], rate: f64) -> Option<(bool, u32)> {
    let runs: Vec<&Tried> = tried.iter().filter(|t| t.rate == rate).collect();
    runs.last().map(|t| (t.passed, runs.len() as u32))
}

/// The bracket the steps so far make: the lowest rate whose last step failed, and the
/// highest below it whose last step passed.
fn bracket(tried: &[Tried]) -> (Option<f64>, Option<f64>) {
    let mut rates: Vec<f64> = tried.iter().map(|t| t.rate).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let passed = |r: f64| last_at(tried, r).is_some_and(|(p, _)| p);
    let hi = rates.iter().copied().find(|&r| !passed(r));
    let lo = rates
        .iter()
        .copied()
        .rfind(|&r| passed(r) && hi.is_none_or(|h| r < h));
    (lo, hi)
}

/// Where a search stopped early stands: the bracket of the steps so far, unconfirmed.
pub fn so_far(tried: &[Tried]) -> Found {
    let (lo, hi) = bracket(tried);
    Found {
        sustainable_rate: lo,
        bracket: (lo.unwrap_or(0.0), hi),
        confirmed: false,
    }
}

/// What to do after the steps `tried`.
pub fn next(plan: &SearchPlan, tried: &[Tried]) -> Next {
    let found = |confirmed| {
        Next::Done(Found {
            confirmed,
            ..so_far(tried)
        })
    };
    if tried.is_empty() {
        return Next::Run {
            rate: plan.from,
            repeat: 1,
        };
    }
    if tried.len() >= MAX_STEPS {
        return found(false);
    }
    let run = |rate: f64| Next::Run {
        rate,
        repeat: last_at(tried, rate).map_or(1, |(_, n)| n + 1),
    };
    match bracket(tried) {
        // Nothing failed yet: climb, doubling, up to `to`, which holds on a second run.
        (Some(lo), None) if lo >= plan.to => match last_at(tried, lo) {
            Some((_, n)) if n < 2 => run(lo),
            _ => found(true),
        },
        (Some(lo), None) => run(step_rate(lo * 2.0).min(plan.to)),
        // The first rate failed: nothing is sustainable from `from` on, if it fails again.
        (None, Some(hi)) => match last_at(tried, hi) {
            Some((_, n)) if n < 2 => run(hi),
            _ => found(true),
        },
        (None, None) => found(false),
        (Some(lo), Some(hi)) => {
            if hi / lo > 1.0 + plan.resolution {
                let mid = step_rate((lo * hi).sqrt());
                if mid > lo && mid < hi {
                    return run(mid);
                }
            }
            // Narrow enough: each end holds on a second run, or the bracket moves.
            for end in [lo, hi] {
                if last_at(tried, end).is_some_and(|(_, n)| n < 2) {
                    return run(end);
                }
            }
            found(true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> SearchPlan {
        SearchPlan {
            slo: vec!["put.p99 < 10ms".into()],
            from: 100.0,
            to: 100_000.0,
            resolution: 0.05,
            budget: None,
        }
    }

    /// Runs the search against a store that passes every step up to `capacity`
    /// (`flaky` rates fail their first run only); the rates it ran and where it ended.
    fn search(capacity: f64, flaky: &[f64]) -> (Vec<f64>, Found) {
        let plan = plan();
        let mut tried = Vec::new();
        loop {
            match next(&plan, &tried) {
                Next::Run { rate, repeat } => {
                    let passed = rate <= capacity && !(flaky.contains(&rate) && repeat == 1);
                    tried.push(Tried { rate, passed });
                }
                Next::Done(found) => {
                    return (tried.iter().map(|t| t.rate).collect(), found);
                }
            }
        }
    }

    #[test]
    fn it_climbs_then_narrows_then_confirms_both_ends() {
        let (rates, found) = search(4000.0, &[]);
        // Doubling from 100 until 6400 fails.
        assert_eq!(
            &rates[..7],
            &[100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0]
        );
        let lo = found.sustainable_rate.unwrap();
        let hi = found.bracket.1.unwrap();
        assert!(lo <= 4000.0 && hi > 4000.0, "{found:?}");
        assert!(hi / lo <= 1.05, "{found:?}");
        assert!(found.confirmed);
        // The ends were each run twice, the last two steps.
        let n = rates.len();
        assert_eq!(
            rates[n - 2..]
                .iter()
                .filter(|r| **r == lo || **r == hi)
                .count(),
            2
        );
        assert!(n < 20, "{rates:?}");
    }

    #[test]
    fn a_repeat_that_fails_moves_the_bracket_down() {
        // 3600 passes at first (noise) but fails on its repeat: the search goes on below.
        let plan = plan();
        let mut tried = vec![];
        let truth = |rate: f64, repeat: u32| rate <= 3400.0 || (rate == 3600.0 && repeat == 1);
        let found = loop {
            match next(&plan, &tried) {
                Next::Run { rate, repeat } => tried.push(Tried {
                    rate,
                    passed: truth(rate, repeat),
                }),
                Next::Done(f) => break f,
            }
        };
        let lo = found.sustainable_rate.unwrap();
        assert!(lo <= 3400.0, "{found:?} after {tried:?}");
        assert!(found.confirmed);
    }

    #[test]
    fn a_flaky_first_failure_that_passes_again_moves_the_bracket_up() {
        let (_, found) = search(8000.0, &[6400.0]);
        // 6400 failed once then passed: the search climbs past it to the real limit.
        let lo = found.sustainable_rate.unwrap();
        assert!((7600.0..=8000.0).contains(&lo), "{found:?}");
        assert!(found.confirmed);
    }

    #[test]
    fn the_ends_of_the_range() {
        let (rates, found) = search(50.0, &[]);
        assert_eq!(rates, [100.0, 100.0]);
        assert_eq!(found.sustainable_rate, None);
        assert!(found.confirmed);
        assert_eq!(found.bracket, (0.0, Some(100.0)));
        // A first step that failed once only (a stall) does not end the search.
        let (rates, found) = search(4000.0, &[100.0]);
        assert_eq!(&rates[..3], [100.0, 100.0, 200.0]);
        assert!(
            found.sustainable_rate.is_some_and(|r| r >= 3800.0),
            "{found:?}"
        );
        let (rates, found) = search(1e9, &[]);
        assert_eq!(&rates[rates.len() - 2..], [100_000.0, 100_000.0]);
        assert!(found.confirmed);
        assert_eq!(found.sustainable_rate, Some(100_000.0));
        assert_eq!(found.bracket, (100_000.0, None));
    }

    #[test]
    fn a_store_that_flaps_stops_at_the_step_limit() {
        let plan = plan();
        let mut tried = vec![];
        let mut flip = false;
        let found = loop {
            match next(&plan, &tried) {
                Next::Run { rate, .. } => {
                    flip = !flip;
                    tried.push(Tried {
                        rate,
                        passed: flip || rate < 1000.0,
                    });
                }
                Next::Done(f) => break f,
            }
        };
        assert!(tried.len() <= MAX_STEPS, "{}", tried.len());
        assert!(!found.confirmed || tried.len() < MAX_STEPS, "{found:?}");
    }

    #[test]
    fn a_search_whose_upper_end_failed_on_the_clients_side_says_the_client_limited_it() {
        // 800 failed first on the store's side, passed on its repeat, then 1600 failed
        // twice, the client falling behind the second time.
        let steps = [
            (100.0, None),
            (200.0, None),
            (400.0, None),
            (800.0, Some(FailedBy::Store)),
            (800.0, None),
            (1600.0, Some(FailedBy::Store)),
            (1600.0, Some(FailedBy::Client)),
        ];
        let tried: Vec<Tried> = steps
            .iter()
            .map(|&(rate, failed)| Tried {
                rate,
                passed: failed.is_none(),
            })
            .collect();
        let judged = |steps: &[(f64, Option<FailedBy>)]| -> Vec<JudgedStep> {
            steps
                .iter()
                .map(|&(rate, failed_by)| JudgedStep {
                    phase: format!("put@{rate}"),
                    passed: failed_by.is_none(),
                    failed_by,
                })
                .collect()
        };
        let found = so_far(&tried);
        assert_eq!(found.bracket, (800.0, Some(1600.0)));
        let phase = PhaseRef {
            section: keystorm_results::Section::Round,
            round: Some(1),
            index: 0,
            name: "put".into(),
        };
        let result = result_of(&phase, &plan(), found, false, &tried, judged(&steps));
        assert!(result.limited_by_client, "{result:?}");
        assert!(
            result.describe().ends_with(
                "; the client, not the store, failed at 1600 ops/s: its requests left late \
                 (too few workers for the store's latency, or too little CPU), so the store \
                 may sustain more"
            ),
            "{}",
            result.describe()
        );
        // Its last run at 1,600 failed on the store's side: the store's limit.
        let mut last_by_store = steps;
        last_by_store[6].1 = Some(FailedBy::Store);
        let result = result_of(
            &phase,
            &plan(),
            found,
            false,
            &tried,
            judged(&last_by_store),
        );
        assert!(!result.limited_by_client, "{result:?}");
        assert!(
            !result.describe().contains("client"),
            "{}",
            result.describe()
        );
    }
}
