//! `search`: the highest rate at which a phase keeps its SLOs, found by running
//! open-loop steps whose rates the search chooses as it goes. Checked here: the SLOs
//! (thresholds of one phase, `OP.METRIC < BOUND`), the range, the resolution and the
//! time budget; a phase that also gives `rate` or `rates`, or whose steps could not
//! end, is refused.

use std::time::Duration;

use super::sweep::steps_allowed;
use super::values::{R, at, duration, loc_of};
use crate::plan::{PhaseEnd, PhaseKind, SearchPlan};
use crate::spec::raw::{RawPhase, RawShare, RawSlo};
use keystorm_results::threshold::{Subject, Threshold};

/// The most SLOs one search may give.
const MAX_SLOS: usize = 16;

pub(super) fn search(
    p: &RawPhase,
    kind: &PhaseKind,
    end: &PhaseEnd,
    ops: &[keystorm_types::OpKind],
) -> R<Option<SearchPlan>> {
    let Some(raw) = &p.search else {
        return Ok(None);
    };
    let loc = loc_of(raw);
    for (field, given) in [
        ("rate", p.rate.as_ref().map(loc_of)),
        ("rates", p.rates.as_ref().map(loc_of)),
    ] {
        if let Some(l) = given {
            return at(
                l,
                format!("a search chooses its own rates: drop `{field}` (or the `search`)"),
            );
        }
    }
    steps_allowed(kind, end, loc, "`search` runs", "a search")?;
    let s = &raw.value;
    let Some(slo) = &s.slo else {
        return at(
            loc,
            "a search needs `slo`: what every step must keep, e.g. \"put.p99 < 50ms\"",
        );
    };
    let texts = match &slo.value {
        RawSlo::One(t) => vec![t.clone()],
        RawSlo::Many(list) => list.clone(),
    };
    if texts.is_empty() || texts.len() > MAX_SLOS {
        return at(
            loc_of(slo),
            format!(
                "`slo` gives 1 to {MAX_SLOS} thresholds, not {}",
                texts.len()
            ),
        );
    }
    for text in &texts {
        let threshold = match text.parse::<Threshold>() {
            Ok(t) => t,
            Err(e) => return at(loc_of(slo), format!("`slo`: {e}")),
        };
        if let Subject::Op(op) = threshold.subject
            && !ops.contains(&op)
        {
            return at(
                loc_of(slo),
                format!("`slo`: {text:?} is about {op}, which this phase does not run"),
            );
        }
    }
    let rate = |v: &Option<serde_saphyr::Spanned<f64>>, field: &str| match v {
        None => at(
            loc,
            format!("a search needs `{field}`: a rate in operations per second"),
        ),
        Some(r) if r.value > 0.0 && r.value.is_finite() => Ok(r.value),
        Some(r) => at(
            loc_of(r),
            format!(
                "`search.{field}` must be a positive number of operations per second, not {}",
                r.value
            ),
        ),
    };
    let from = rate(&s.from, "from")?;
    let to = rate(&s.to, "to")?;
    if to <= from {
        return at(
            loc_of(s.to.as_ref().expect("read above")),
            format!("`search.to` ({to}) must be above `search.from` ({from})"),
        );
    }
    let resolution = match &s.resolution {
        None => 0.05,
        Some(r) => {
            let share = match &r.value {
                RawShare::Number(n) => Some(*n),
                RawShare::Text(t) => percent(t),
            };
            match share {
                Some(f) if (0.001..=0.5).contains(&f) => f,
                _ => {
                    return at(
                        loc_of(r),
                        "`search.resolution` is a share between 0.1% and 50%, e.g. `5%`",
                    );
                }
            }
        }
    };
    let budget = match &s.budget {
        None => None,
        Some(b) => {
            let d = duration(b, "search.budget")?;
            if d < Duration::from_secs(1) {
                return at(loc_of(b), "`search.budget` must be at least 1s");
            }
            Some(d)
        }
    };
    Ok(Some(SearchPlan {
        slo: texts,
        from,
        to,
        resolution,
        budget,
    }))
}

/// `5%` or `0.05` as a fraction.
fn percent(text: &str) -> Option<f64> {
    let text = text.trim();
    let value = match text.strip_suffix('%') {
        Some(n) => n.trim().parse::<f64>().ok()? / 100.0,
        None => text.parse::<f64>().ok()?,
    };
    value.is_finite().then_some(value)
}
