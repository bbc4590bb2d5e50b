//! The settings only an audit has (`wait_for_reshard`), refused on any other phase.
//! Kept apart from the listing settings an audit shares with complete listings
//! (`super::listing`).

use std::time::Duration;

use super::values::{R, at, duration, loc_of};
use crate::spec::raw::RawPhase;

/// How long an audit waits for a reshard in progress unless `wait_for_reshard` says:
/// long enough for a reshard of millions of entries, short enough that an audit stuck
/// behind a reshard that never ends still reports.
pub(super) const DEFAULT_WAIT_FOR_RESHARD: Duration = Duration::from_secs(300);

/// The longest `wait_for_reshard` accepted: a day (a reshard of RGW's largest buckets
/// takes hours; longer is a typo).
const MAX_WAIT_FOR_RESHARD: Duration = Duration::from_secs(24 * 3600);

/// How long the audit `p` waits for an audited bucket's reshard to finish.
pub(super) fn wait_for_reshard(p: &RawPhase) -> R<Duration> {
    let Some(v) = &p.wait_for_reshard else {
        return Ok(DEFAULT_WAIT_FOR_RESHARD);
    };
    let wait = duration(v, "wait_for_reshard")?;
    if wait > MAX_WAIT_FOR_RESHARD {
        return at(
            loc_of(v),
            "`wait_for_reshard` is at most 24h (`0s`: list at once, even during a reshard)",
        );
    }
    Ok(wait)
}

/// An error at any audit-only setting given to the phase `p`, which is no audit.
pub(super) fn refuse_audit_settings(p: &RawPhase) -> R<()> {
    match &p.wait_for_reshard {
        Some(v) => at(
            loc_of(v),
            "`wait_for_reshard` applies to audits (`op: audit`) only: the other phases do \
             not wait for reshards",
        ),
        None => Ok(()),
    }
}
