//! A section's list of phases: each phase validated, names made unique (a repeated
//! default name gets a suffix, a repeated given name is an error).

use std::collections::HashSet;

use serde_saphyr::{Location, Spanned};

use super::phase::phase;
use super::values::{R, at, loc_of};
use crate::plan::PhasePlan;
use crate::spec::SpecWarning;
use crate::spec::raw::RawPhase;

/// A phase with the position of its entry, for window checks.
pub(super) type PhaseAt = (PhasePlan, Location);

pub(super) fn phases(
    raw: Vec<Spanned<RawPhase>>,
    section: &str,
    buckets: &[String],
    warnings: &mut Vec<SpecWarning>,
) -> R<Vec<PhaseAt>> {
    let mut out: Vec<PhaseAt> = Vec::new();
    let mut names: HashSet<String> = HashSet::new();
    for p in raw {
        let loc = *loc_of(&p);
        let mut plan = phase(p, section, buckets, warnings)?;
        let mut name = plan.name.clone();
        if names.contains(&name) {
            if plan.name_given {
                return at(
                    &loc,
                    format!("phase name {name:?} is used twice in `{section}`"),
                );
            }
            let mut n = 2;
            while names.contains(&format!("{name}-{n}")) {
                n += 1;
            }
            name = format!("{name}-{n}");
        }
        names.insert(name.clone());
        let rates = std::mem::take(&mut plan.rates);
        let mut plan = plan.plan;
        plan.name = name.clone();
        if plan.search.is_some() {
            // A search's steps are named and tagged as a sweep's are.
            plan.sweep = Some(name.clone());
        }
        if rates.is_empty() {
            out.push((plan, loc));
            continue;
        }
        // A sweep: one phase per rate, lowest first, each its own rows.
        for rate in rates {
            let step = crate::plan::step_name(&name, rate, 1);
            if !names.insert(step.clone()) {
                return at(
                    &loc,
                    format!(
                        "phase name {step:?} (a step of the sweep {name:?}) is used twice in `{section}`"
                    ),
                );
            }
            let mut plan = plan.clone();
            plan.name = step;
            plan.rate = Some(rate);
            plan.sweep = Some(name.clone());
            out.push((plan, loc));
        }
    }
    Ok(out)
}

/// Rounds with each phase's position, before they become a plan.
pub(super) struct RoundsAt {
    pub(super) count: u32,
    pub(super) phases: Vec<PhaseAt>,
}
