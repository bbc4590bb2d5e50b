//! One phase: each of its settings validated by the file of its section, in the order
//! the errors are reported, and put together into a [`PhasePlan`].

use serde_saphyr::Spanned;

use super::audit::{refuse_audit_settings, wait_for_reshard};
use super::end::{end, warmup};
use super::listing::listing_plan;
use super::parallel::{own_count, resolve};
use super::select::selection;
use super::values::{R, at, in_range, loc_of};
use super::work::work;
use crate::plan::*;
use crate::spec::SpecWarning;
use crate::spec::raw::RawPhase;
use keystorm_types::OpKind;

pub(super) fn phase(
    raw: Spanned<RawPhase>,
    section: &str,
    buckets: &[String],
    warnings: &mut Vec<SpecWarning>,
) -> R<NamedPhase> {
    let loc = *loc_of(&raw);
    let mut p = raw.value;
    resolve(&mut p, warnings)?;
    let own = own_count(&p)?;
    let transfer = super::transfer::plan(&p, own)?;
    let work = work(&p, &loc, section, transfer.as_ref())?;
    let single = match &work {
        PhaseWork::Single(k) => Some(*k),
        PhaseWork::Mix(_) => None,
    };
    let (name, name_given) = name(&p, transfer.as_ref(), single)?;
    let rate = rate(&p)?;
    let keys = super::keys::key_source(&p, &work, buckets)?;
    let epochs = super::keys::epochs(&p, single)?;
    let end = end(&p, &loc, &name, single, transfer.is_some(), epochs)?;
    let warmup = warmup(&p, &end)?;
    let selection = selection(&p, &work)?;
    let page_size = match &p.page_size {
        Some(v) => in_range(v, "page_size", 1, 1000)? as u32,
        None => 1000,
    };
    let max_error_rate = max_error_rate(&p)?;
    let kind = match transfer {
        Some(t) => PhaseKind::Transfer(t),
        None => match listing_plan(&p, &loc, &end, keys.is_some(), own)? {
            Some((listing, true)) => PhaseKind::Scan {
                listing,
                head_workers: own,
            },
            Some((listing, false)) if super::work::is_audit(&p) => PhaseKind::Audit {
                listing,
                wait_for_reshard: wait_for_reshard(&p)?,
            },
            Some((listing, false)) => PhaseKind::Listing(listing),
            None => PhaseKind::Operations { workers: own },
        },
    };
    if !matches!(kind, PhaseKind::Audit { .. }) {
        refuse_audit_settings(&p)?;
    }
    let parts = parts(&p, &kind, &work)?;
    let rates = super::sweep::rates(&p, &kind, &end)?;
    let search = super::search::search(&p, &kind, &end, &work.ops())?;
    let named = NamedPhase {
        name: name.clone(),
        name_given,
        rates,
        plan: PhasePlan {
            name,
            work,
            rate,
            warmup,
            end,
            selection,
            page_size,
            max_error_rate,
            expect: super::expect::thresholds(p.expect.as_ref())?,
            expect_abort_after: super::expect::abort_after(p.expect_abort_after.as_ref())?,
            verify: p.verify.as_ref().is_some_and(|v| v.value),
            keys,
            allow_writes: p.allow_writes.as_ref().is_some_and(|v| v.value),
            parts,
            sweep: None,
            search,
            kind,
        },
    };
    check_verify(&p, &named.plan)?;
    Ok(named)
}

/// How the phase's PUTs and GETs move big objects; part settings on a phase that moves
/// no bodies are refused (a transfer keeps its own in its plan).
fn parts(p: &RawPhase, kind: &PhaseKind, work: &PhaseWork) -> R<PartPlan> {
    let moves_bodies = work
        .ops()
        .iter()
        .any(|k| matches!(k, OpKind::Put | OpKind::Get));
    match kind {
        PhaseKind::Operations { .. } if moves_bodies => super::transfer::parts(p),
        PhaseKind::Transfer(_) => Ok(PartPlan::default()),
        _ => match super::transfer::part_fields_given(p) {
            Some((field, l)) => at(
                l,
                format!(
                    "`{field}` applies to phases that PUT or GET, and to downloads and uploads"
                ),
            ),
            None => Ok(PartPlan::default()),
        },
    }
}

/// The phase's name and whether it was given; a default one names what the phase does.
fn name(
    p: &RawPhase,
    transfer: Option<&TransferPlan>,
    single: Option<OpKind>,
) -> R<(String, bool)> {
    Ok(match &p.name {
        Some(n) => (super::shown_name(n, "phase `name`")?, true),
        None => (
            match (transfer, single) {
                (Some(t), _) if t.direction == TransferDirection::Upload => "upload".into(),
                (Some(_), _) => "download".into(),
                (None, Some(_)) if super::work::is_audit(p) => "audit".into(),
                (None, Some(k)) => k.as_str().to_string(),
                (None, None) => "mix".into(),
            },
            false,
        ),
    })
}

/// The operations-per-second cap, if any.
fn rate(p: &RawPhase) -> R<Option<f64>> {
    match &p.rate {
        Some(r) if !(r.value > 0.0 && r.value.is_finite()) => at(
            loc_of(r),
            format!(
                "`rate` must be a positive number of operations per second, not {}",
                r.value
            ),
        ),
        Some(r) => Ok(Some(r.value)),
        None => Ok(None),
    }
}

/// Refuses `verify` on a phase with no GET bodies of the keyspace to check.
fn check_verify(p: &RawPhase, plan: &PhasePlan) -> R<()> {
    match &p.verify {
        Some(v) if v.value && !crate::plan::verify::gets_keys(plan) => at(
            loc_of(v),
            "`verify` checks the bodies GETs return: give it to a phase with `op: get` or a \
             `mix` that has `get` (a download verifies nothing; a HEAD, LIST, PUT or DELETE \
             has no body to check)",
        ),
        _ => Ok(()),
    }
}

/// The fraction of failed operations that stops the phase, if any.
fn max_error_rate(p: &RawPhase) -> R<Option<f64>> {
    match &p.max_error_rate {
        Some(v) if !(0.0..=1.0).contains(&v.value) => at(
            loc_of(v),
            format!(
                "`max_error_rate` is a fraction between 0 and 1, not {}",
                v.value
            ),
        ),
        Some(v) => Ok(Some(v.value)),
        None => Ok(None),
    }
}

/// A validated phase and whether its name was written or made up.
pub(super) struct NamedPhase {
    pub(super) name: String,
    pub(super) name_given: bool,
    /// A sweep's rates, lowest first (empty: one phase, no sweep).
    pub(super) rates: Vec<f64>,
    pub(super) plan: PhasePlan,
}

impl std::ops::Deref for NamedPhase {
    type Target = PhasePlan;
    fn deref(&self) -> &PhasePlan {
        &self.plan
    }
}
