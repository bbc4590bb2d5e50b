//! The settings of a complete listing or metadata scan (`mode`, `prefix_depth`,
//! `alphabet`, `delimiter`, `report`, `prefix`, a scan's `listers`), refused on any
//! other phase.

use serde_saphyr::Location;

use super::parallel::listers;
use super::values::{R, at, in_range, loc_of};
use crate::plan::*;
use crate::spec::raw::*;
use keystorm_results::ListMode;

/// The listing settings of a complete-listing or scan phase; an error where they are
/// given to any other phase.
/// The listing of a complete-listing phase, and whether it is a metadata scan's. `own`
/// is the phase's own count, already checked: a listing's or an audit's listers (a
/// scan's are its feeding `listers`, and `own` its HEAD workers).
pub(super) fn listing_plan(
    p: &RawPhase,
    loc: &Location,
    end: &PhaseEnd,
    from_keys: bool,
    own: u32,
) -> R<Option<(ListingPlan, bool)>> {
    let scan =
        *end == PhaseEnd::ListOnce && p.op.as_ref().is_some_and(|op| op.value.trim() == "head");
    if *end != PhaseEnd::ListOnce {
        let given = [
            ("mode", p.mode.as_ref().map(loc_of)),
            ("prefix_depth", p.prefix_depth.as_ref().map(loc_of)),
            ("alphabet", p.alphabet.as_ref().map(loc_of)),
            ("delimiter", p.delimiter.as_ref().map(loc_of)),
            ("report", p.report.as_ref().map(loc_of)),
            ("prefix", p.prefix.as_ref().map(loc_of)),
            (
                p.written.listers,
                p.counts.listers.as_ref().filter(|_| !from_keys).map(loc_of),
            ),
        ];
        if let Some((field, Some(l))) = given.into_iter().find(|(_, l)| l.is_some()) {
            return at(
                l,
                format!(
                    "`{field}` applies to complete listings only (`op: list` without \
                     `duration` or `operations`, or `op: head` with `keys: bucket`)"
                ),
            );
        }
        return Ok(None);
    }
    if let Some(l) = p.prefix.as_ref().filter(|_| super::work::is_audit(p)) {
        return at(
            loc_of(l),
            "an audit compares the keyspace's keys with what its prefix lists: drop `prefix` \
             (the keyspace's prefix is listed)",
        );
    }
    if let Some(l) = p.counts.listers.as_ref().filter(|_| !scan) {
        return at(
            loc_of(l),
            format!(
                "`{}` applies to scans (`op: head` with `keys: bucket`); a list phase's listers are its `listers`",
                p.written.listers
            ),
        );
    }
    let listers = if scan { listers(p)? } else { own };
    let mode_name = p.mode.as_ref().map_or("serial", |m| m.value.trim());
    let only_for = |field: &str, l: Option<&Location>, mode: &str| match l {
        Some(l) if mode_name != mode => at(
            l,
            format!("`{field}` applies to `mode: {mode}` listings, not `{mode_name}`"),
        ),
        _ => Ok(()),
    };
    only_for(
        "prefix_depth",
        p.prefix_depth.as_ref().map(loc_of),
        "prefix",
    )?;
    only_for("alphabet", p.alphabet.as_ref().map(loc_of), "prefix")?;
    only_for("delimiter", p.delimiter.as_ref().map(loc_of), "adaptive")?;
    let mode = match mode_name {
        "serial" => ListMode::Serial,
        "prefix" => {
            let depth = match &p.prefix_depth {
                Some(d) => in_range(d, "prefix_depth", 1, 4)? as u32,
                None => 1,
            };
            let alphabet = match &p.alphabet {
                Some(a) if a.value.is_empty() => {
                    return at(loc_of(a), "`alphabet` must not be empty");
                }
                Some(a) => a.value.clone(),
                None => keystorm_results::BASE62_ALPHABET.to_string(),
            };
            ListMode::Prefix { depth, alphabet }
        }
        "adaptive" => ListMode::Adaptive {
            delimiter: match &p.delimiter {
                Some(d) if d.value.is_empty() => None,
                Some(d) => Some(d.value.clone()),
                None => Some("/".to_string()),
            },
        },
        other => {
            let l = p.mode.as_ref().map(loc_of).unwrap_or(loc);
            return at(
                l,
                format!("unknown list mode {other:?}; use `serial`, `prefix` or `adaptive`"),
            );
        }
    };
    Ok(Some((
        ListingPlan {
            mode,
            listers,
            report_depth: p.report.as_ref().is_some_and(|r| r.value).then_some(1),
            prefix: p.prefix.as_ref().map(|x| x.value.clone()),
        },
        scan,
    )))
}
