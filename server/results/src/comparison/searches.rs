//! Two runs' searches for the sustainable rate compared: the same search (by its
//! place and name) in both, judged as a metric of its own, `sustainable_rate`. Each
//! search's rate lies in its bracket — at least the highest rate that passed, below
//! the lowest that failed — so the ratio new ÷ base lies between the new bracket's
//! low end over the base's high end and the new's high end over the base's low end.
//! That interval is judged against the noise floor as any other: a new run that
//! passed at a rate the base failed at is a real improvement; brackets that overlap
//! beyond the floor settle nothing.

use keystorm_types::OpKind;

use super::Verdict;
use super::judge::verdict_of;
use super::metric::{Better, SUSTAINABLE_RATE};
use super::types::{Change, RunData};
use crate::SearchResult;
use crate::uncertainty::Estimate;

/// Every search of `new` that `base` ran too (same place and phase), judged.
pub(super) fn search_changes(base: &RunData, new: &RunData, floor: f64) -> Vec<Change> {
    new.searches
        .iter()
        .filter_map(|n| {
            let b = base
                .searches
                .iter()
                .find(|b| b.section == n.section && b.round == n.round && b.phase == n.phase)?;
            Some(judged(b, n, op_of(new, n), floor))
        })
        .collect()
}

/// The operation the search's steps ran (the first row tagged with it), a PUT if none.
fn op_of(run: &RunData, search: &SearchResult) -> OpKind {
    run.rows
        .iter()
        .find(|r| {
            r.section == search.section
                && r.round == search.round
                && r.sweep.as_deref() == Some(search.phase.as_str())
        })
        .map_or(OpKind::Put, |r| r.op)
}

/// A search's rate with its bracket as an estimate; none where nothing was
/// sustainable. An open upper end (no step failed up to `to`) is infinite, and so is
/// one the client failed at: it bounds what the client sent, not the store.
fn bracketed(s: &SearchResult) -> Option<Estimate> {
    let rate = s.sustainable_rate?;
    Some(Estimate {
        value: rate,
        low: s.bracket.0,
        high: match s.bracket.1 {
            Some(hi) if !s.limited_by_client => hi,
            _ => f64::INFINITY,
        },
    })
}

/// Where an estimate is finite, for the record (JSON holds no infinity).
fn finite(e: Estimate) -> Option<Estimate> {
    (e.low.is_finite() && e.high.is_finite()).then_some(e)
}

fn judged(b: &SearchResult, n: &SearchResult, op: OpKind, floor: f64) -> Change {
    let (base, new) = (bracketed(b), bracketed(n));
    let ratio = match (base, new) {
        (Some(b), Some(n)) if b.value > 0.0 && b.low > 0.0 => Some(Estimate {
            value: n.value / b.value,
            low: n.low / b.high,
            high: n.high / b.low,
        }),
        _ => None,
    };
    let (verdict, why) = match (ratio, base, new) {
        (Some(r), _, _) => verdict_of(r, Better::Higher, floor).unwrap_or_else(|| {
            (
                Verdict::Inconclusive,
                format!(
                    "{}: the brackets overlap past the ±{} % noise floor; a finer \
                     `resolution`, or each search run more than once, would settle it",
                    super::judge::shown(r),
                    floor * 100.0
                ),
            )
        }),
        (None, None, Some(_)) => (
            Verdict::Improved,
            "the base sustained no rate from its first step; this run did".to_string(),
        ),
        (None, Some(_), None) => (
            Verdict::Regressed,
            "this run sustained no rate from its first step; the base did".to_string(),
        ),
        (None, None, None) => (
            Verdict::NoChange,
            "neither run sustained its search's first rate".to_string(),
        ),
        (None, _, _) => (
            Verdict::Inconclusive,
            "a sustainable rate of 0 cannot be compared".to_string(),
        ),
    };
    let unconfirmed = !(b.confirmed && n.confirmed)
        && matches!(
            verdict,
            Verdict::Improved | Verdict::Regressed | Verdict::NoChange
        );
    let client_limited = match (b.limited_by_client, n.limited_by_client) {
        (false, false) => None,
        (true, true) => Some(("in both runs", "each rate is")),
        (true, false) => Some(("in the base", "its rate is")),
        (false, true) => Some(("in this run", "its rate is")),
    };
    let why = match client_limited {
        Some((which, rate)) => format!(
            "{why} ({which} the client, not the store, failed at the bracket's upper end: \
             {rate} a lower bound)"
        ),
        None => why,
    };
    let why = if unconfirmed {
        format!(
            "{why} (a search's bracket not confirmed — its budget ran out, or it stopped \
             at its step limit — may be wider than it says)"
        )
    } else {
        why
    };
    Change {
        section: n.section,
        round: n.round,
        all_rounds: false,
        phase: n.phase.clone(),
        op,
        metric: SUSTAINABLE_RATE.to_string(),
        better: Better::Higher,
        base: base.and_then(finite),
        new: new.and_then(finite),
        ratio: ratio.and_then(finite),
        verdict,
        why,
    }
}
