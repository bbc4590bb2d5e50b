//! `expect:` on the workload or on a phase: thresholds the run must meet
//! (`get.p99 < 20ms`, `integrity: as_written`), each read by the one parser every
//! judge of a run uses, so a threshold that would not be understood at the end is
//! refused here, at its line; and `expect_abort_after`, which lets a threshold missed
//! while a phase runs stop the run, refused where no threshold could be missed then.

use std::time::Duration;

use serde_saphyr::{Location, Spanned};

use super::values::{R, at, duration, loc_of};
use crate::plan::{PhasePlan, Plan};
use crate::spec::raw::RawDuration;
use keystorm_results::threshold::Expected;

/// At most this many thresholds in one list.
const MAX_THRESHOLDS: usize = 64;

/// The thresholds of one `expect:` list, as written (normalised spacing); why one
/// cannot be read, at its line.
pub(super) fn thresholds(raw: Option<&Spanned<Vec<Spanned<String>>>>) -> R<Vec<String>> {
    let Some(list) = raw else {
        return Ok(Vec::new());
    };
    if list.value.len() > MAX_THRESHOLDS {
        return at(
            loc_of(list),
            format!(
                "`expect` lists {} thresholds; at most {MAX_THRESHOLDS}",
                list.value.len()
            ),
        );
    }
    list.value
        .iter()
        .map(|item| match item.value.parse::<Expected>() {
            Ok(e) => Ok(e.text().to_string()),
            Err(e) => at(loc_of(item), format!("`expect`: {e}")),
        })
        .collect()
}

/// `expect_abort_after: 30s`: how long a phase measures before a threshold it missed
/// so far stops the run.
pub(super) fn abort_after(raw: Option<&Spanned<RawDuration>>) -> R<Option<Duration>> {
    raw.map(|v| duration(v, "expect_abort_after")).transpose()
}

/// Refuses an `expect_abort_after` with no threshold to miss while a phase runs: a
/// phase's own (`phases`, with where they are written) when neither it nor the workload
/// (`workload_expect`) has one for it, the workload's (written at `workload_at`) when
/// no phase has one.
pub(super) fn refuse_idle_abort_after(
    workload_expect: &[String],
    workload_at: Option<&Location>,
    phases: &[(&PhasePlan, &Location)],
) -> R<()> {
    let judged_live = |phase: &PhasePlan| {
        workload_expect
            .iter()
            .chain(&phase.expect)
            .any(|e| matches!(e.parse(), Ok(Expected::Bound(_))))
    };
    if let Some((p, loc)) = phases
        .iter()
        .find(|(p, _)| p.expect_abort_after.is_some() && !judged_live(p))
    {
        return at(
            loc,
            format!(
                "phase `{}`: `expect_abort_after` stops the run when a threshold is missed \
                 while the phase runs, and no threshold of `expect` (the phase's or the \
                 workload's) applies to it: add one, or remove `expect_abort_after`",
                p.name
            ),
        );
    }
    match workload_at {
        Some(loc) if !phases.iter().any(|(p, _)| judged_live(p)) => at(
            loc,
            "`expect_abort_after` stops the run when a threshold is missed while a phase \
             runs, and the workload has no threshold of the kind (`OP.METRIC COMPARATOR \
             BOUND` in `expect`; `integrity: as_written` is judged when a phase or the run \
             ends): add one, or remove `expect_abort_after`",
        ),
        _ => Ok(()),
    }
}

/// Gives every phase of `plan` without an `expect_abort_after` of its own the
/// workload's.
pub(super) fn inherit_abort_after(plan: &mut Plan, workload: Option<Duration>) {
    for phase in plan.phases_mut() {
        phase.expect_abort_after = phase.expect_abort_after.or(workload);
    }
}
