//! When a phase ends (`duration`, `operations`, `until_objects`, or once through a
//! listing), the metadata-scan switch `keys`, and the `warmup` that must fit the end.

use std::time::Duration;

use serde_saphyr::Location;

use super::values::{R, at, duration, loc_of, non_negative, positive};
use crate::plan::PhaseEnd;
use crate::spec::raw::{RawKeys, RawPhase};
use keystorm_types::OpKind;

/// The end of phase `name` at `loc`; `single` is its op unless it is a mix.
pub(super) fn end(
    p: &RawPhase,
    loc: &Location,
    name: &str,
    single: Option<OpKind>,
    transfer: bool,
    epochs: Option<u32>,
) -> R<PhaseEnd> {
    let ends = [
        p.duration.is_some(),
        p.operations.is_some(),
        p.until_objects.is_some(),
        epochs.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if ends > 1 {
        return at(
            loc,
            "give one end per phase: `duration`, `operations`, `until_objects` or `epochs`",
        );
    }
    if super::work::is_audit(p) {
        for (field, given) in [
            ("duration", p.duration.as_ref().map(loc_of)),
            ("operations", p.operations.as_ref().map(loc_of)),
            ("until_objects", p.until_objects.as_ref().map(loc_of)),
        ] {
            if let Some(l) = given {
                return at(
                    l,
                    format!("`op: audit` lists every key once and then compares: drop `{field}`"),
                );
            }
        }
    }
    let scan = scans_bucket(p)?;
    Ok(if transfer {
        PhaseEnd::ListOnce
    } else if let Some(n) = epochs {
        PhaseEnd::Epochs(n)
    } else if let Some(d) = &p.duration {
        let d2 = duration(d, "duration")?;
        if d2.is_zero() {
            return at(loc_of(d), "`duration` must be longer than zero");
        }
        PhaseEnd::Duration(d2)
    } else if let Some(n) = &p.operations {
        PhaseEnd::Operations(positive(n, "operations")?)
    } else if let Some(n) = &p.until_objects {
        if !matches!(single, Some(OpKind::Put) | Some(OpKind::Delete)) {
            return at(
                loc_of(n),
                "`until_objects` ends `put` (fill to N) or `delete` (drain to N) phases only",
            );
        }
        PhaseEnd::UntilObjects(non_negative(n, "until_objects")?)
    } else if single == Some(OpKind::List) || (single == Some(OpKind::Head) && scan) {
        PhaseEnd::ListOnce
    } else {
        return at(
            loc,
            format!("phase {name:?} needs an end: `duration`, `operations` or `until_objects`"),
        );
    })
}

/// The warmup of a phase, shorter than its duration when it has one.
pub(super) fn warmup(p: &RawPhase, end: &PhaseEnd) -> R<Duration> {
    Ok(match &p.warmup {
        Some(w) => {
            let d = duration(w, "warmup")?;
            if let PhaseEnd::Duration(total) = end
                && d >= *total
            {
                return at(
                    loc_of(w),
                    "`warmup` must be shorter than the phase's `duration`",
                );
            }
            d
        }
        None => Duration::ZERO,
    })
}

/// `keys: bucket` (a metadata scan) or `keys: window` (the default) on a head phase;
/// the map form (a key file or a listing) is checked apart.
fn scans_bucket(p: &RawPhase) -> R<bool> {
    let Some(k) = &p.keys else {
        return Ok(false);
    };
    let RawKeys::Name(name) = &k.value else {
        return Ok(false);
    };
    match name.trim() {
        _ if p.op.as_ref().is_none_or(|op| op.value.trim() != "head") => at(
            loc_of(k),
            "`keys: window` and `keys: bucket` apply to `op: head` phases (`keys: bucket` \
             scans every listed key); any read takes `keys: {file: PATH}` or `keys: {from: listing}`",
        ),
        name => match name {
            "bucket" => {
                for (field, given) in [
                    ("duration", p.duration.as_ref().map(loc_of)),
                    ("operations", p.operations.as_ref().map(loc_of)),
                ] {
                    if let Some(l) = given {
                        return at(
                            l,
                            format!("`keys: bucket` HEADs every listed key once: drop `{field}`"),
                        );
                    }
                }
                Ok(true)
            }
            "window" => Ok(false),
            other => at(
                loc_of(k),
                format!(
                    "unknown `keys` {other:?}; use `window`, `bucket`, `{{file: PATH}}` or \
                     `{{from: listing}}`"
                ),
            ),
        },
    }
}
