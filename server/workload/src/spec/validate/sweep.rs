//! `rates`: a rate sweep, one open-loop step per rate, each step a phase of its own
//! (`put@1000`) with the phase's warm-up, end and settings, its own rows and exact
//! histograms. Given as a list or as a range (`{from, to, steps, scale}`); the rates
//! are checked, put in order and named here.

use serde_saphyr::Location;

use super::values::{R, at, loc_of};
use crate::plan::{PhaseEnd, PhaseKind, step_name, step_rate};
use crate::spec::raw::{RawPhase, RawRateRange, RawRates};

/// The most steps one sweep may have.
pub(crate) const MAX_STEPS: i64 = 100;

/// The rates of the phase's sweep, lowest first (empty: no sweep). `rate` beside
/// `rates`, a sweep on a phase that runs no operations of its own, or one whose steps
/// could not end (`until_objects`, a key file's passes), is refused.
pub(super) fn rates(p: &RawPhase, kind: &PhaseKind, end: &PhaseEnd) -> R<Vec<f64>> {
    let Some(raw) = &p.rates else {
        return Ok(Vec::new());
    };
    let loc = loc_of(raw);
    if let Some(r) = &p.rate {
        return at(
            loc_of(r),
            "give `rate` (one open-loop rate) or `rates` (a sweep of several), not both",
        );
    }
    if let Some(s) = &p.search {
        return at(
            loc_of(s),
            "give `rates` (a sweep of rates you choose) or `search` (rates it chooses), not both",
        );
    }
    steps_allowed(kind, end, loc, "`rates` sweeps", "a sweep")?;
    let mut rates = match &raw.value {
        RawRates::List(list) => listed(list, loc)?,
        RawRates::Range(range) => ranged(range, loc)?,
    };
    rates.sort_by(f64::total_cmp);
    if let Some(w) = rates
        .windows(2)
        .find(|w| step_name("", w[0], 1) == step_name("", w[1], 1))
    {
        return at(
            loc,
            format!(
                "`rates` holds {} twice: every step needs a rate of its own",
                w[0]
            ),
        );
    }
    Ok(rates)
}

/// Refuses steps (a sweep's or a search's, `what` and `whose` name them) on a phase
/// that runs no operations of its own, or whose steps could not each run to its end:
/// that is a time or a count of operations, not a fill level or a key file's passes.
pub(super) fn steps_allowed(
    kind: &PhaseKind,
    end: &PhaseEnd,
    loc: &Location,
    what: &str,
    whose: &str,
) -> R<()> {
    if !matches!(kind, PhaseKind::Operations { .. }) {
        return at(
            loc,
            format!(
                "{what} phases of operations (`op` or `mix`); a listing, scan, audit, \
                 download or upload runs once"
            ),
        );
    }
    if !matches!(end, PhaseEnd::Duration(_) | PhaseEnd::Operations(_)) {
        return at(
            loc,
            format!(
                "each step of {whose} runs for the phase's `duration` (or `operations`): give \
                 one of them"
            ),
        );
    }
    Ok(())
}

fn positive_rate(rate: f64, what: &str, loc: &Location) -> R<f64> {
    if rate > 0.0 && rate.is_finite() {
        Ok(rate)
    } else {
        at(
            loc,
            format!("{what} must be a positive number of operations per second, not {rate}"),
        )
    }
}

fn listed(list: &[f64], loc: &Location) -> R<Vec<f64>> {
    if list.is_empty() {
        return at(loc, "`rates` needs at least one rate");
    }
    if list.len() as i64 > MAX_STEPS {
        return at(
            loc,
            format!(
                "`rates` has {} steps; a sweep has at most {MAX_STEPS}",
                list.len()
            ),
        );
    }
    list.iter()
        .map(|&r| positive_rate(r, "each of `rates`", loc))
        .collect()
}

/// `steps` rates from `from` to `to`: on a log scale each the same factor above the
/// last, on a linear one the same difference; rounded to 3 significant digits, the
/// ends kept as written.
fn ranged(range: &RawRateRange, loc: &Location) -> R<Vec<f64>> {
    let from = positive_rate(range.from, "`rates.from`", loc)?;
    let to = positive_rate(range.to, "`rates.to`", loc)?;
    if to <= from {
        return at(
            loc,
            format!("`rates.to` ({to}) must be above `rates.from` ({from})"),
        );
    }
    let steps = range.steps;
    if !(2..=MAX_STEPS).contains(&steps) {
        return at(
            loc,
            format!("`rates.steps` must be between 2 and {MAX_STEPS}, not {steps}"),
        );
    }
    let log = match range.scale.as_deref() {
        None | Some("log") => true,
        Some("linear") => false,
        Some(other) => {
            return at(
                loc,
                format!("`rates.scale` is `log` or `linear`, not {other:?}"),
            );
        }
    };
    let last = (steps - 1) as f64;
    let rates: Vec<f64> = (0..steps)
        .map(|i| {
            let at = i as f64 / last;
            match i {
                0 => from,
                i if i == steps - 1 => to,
                _ if log => step_rate(from * (to / from).powf(at)),
                _ => step_rate(from + (to - from) * at),
            }
        })
        .collect();
    if rates
        .windows(2)
        .any(|w| step_name("", w[0], 1) == step_name("", w[1], 1))
    {
        return at(
            loc,
            format!(
                "`rates` from {from} to {to} in {steps} steps repeats a rate (steps are \
                 rounded to 3 significant digits): take fewer steps or a wider range"
            ),
        );
    }
    Ok(rates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_show_whole_rates_bare() {
        assert_eq!(step_name("put", 1000.0, 1), "put@1000");
        assert_eq!(step_name("mix", 12.5, 1), "mix@12.5");
        assert_eq!(step_name("get", 0.125, 1), "get@0.125");
        assert_eq!(step_name("put", 1000.0, 2), "put@1000#2");
    }

    #[test]
    fn rounding_keeps_three_digits() {
        assert_eq!(step_rate(1259.921), 1260.0);
        assert_eq!(step_rate(31.748), 31.7);
        assert_eq!(step_rate(0.01234), 0.0123);
    }
}
