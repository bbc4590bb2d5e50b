//! `op: download` and `op: upload` phases: one pass moving every object under a prefix
//! into a local folder, or every file of a folder into the bucket, with the transfer
//! settings of `keystorm download` / `keystorm upload`.

use std::path::PathBuf;

use super::parallel::{listers, parts_in_flight};
use serde_saphyr::Location;

use super::values::{R, at, loc_of};
use crate::plan::TransferSettings;
use crate::plan::{PartPlan, TransferDirection, TransferPlan};
use crate::spec::raw::{RawPhase, S};

/// The transfer of a download or upload phase; `None` for any other phase, which may
/// not carry transfer fields. `in_flight` is the phase's, already checked: the objects
/// moving at once.
pub(super) fn plan(p: &RawPhase, in_flight: u32) -> R<Option<TransferPlan>> {
    let direction = match p.op.as_ref().map(|o| o.value.trim()) {
        Some("download") => TransferDirection::Download,
        Some("upload") => TransferDirection::Upload,
        _ => {
            let given = [
                ("dir", p.dir.as_ref().map(loc_of)),
                ("overwrite", p.overwrite.as_ref().map(loc_of)),
            ];
            if let Some((field, Some(l))) = given.into_iter().find(|(_, l)| l.is_some()) {
                return at(
                    l,
                    format!("`{field}` applies to `op: download` and `op: upload` phases"),
                );
            }
            return Ok(None);
        }
    };
    let op = p.op.as_ref().map(loc_of).expect("matched above");
    let Some(dir) = &p.dir else {
        return at(
            op,
            "a download or upload phase needs `dir`: the local folder to write to or read from",
        );
    };
    if dir.value.trim().is_empty() {
        return at(loc_of(dir), "`dir` must not be empty");
    }
    for (field, given) in [
        ("duration", p.duration.as_ref().map(loc_of)),
        ("operations", p.operations.as_ref().map(loc_of)),
        ("until_objects", p.until_objects.as_ref().map(loc_of)),
        ("rate", p.rate.as_ref().map(loc_of)),
        ("mode", p.mode.as_ref().map(loc_of)),
        ("report", p.report.as_ref().map(loc_of)),
    ] {
        if let Some(l) = given {
            return at(
                l,
                format!("a download or upload phase moves everything once: drop `{field}`"),
            );
        }
    }
    if let (TransferDirection::Upload, Some(l)) = (direction, &p.counts.listers) {
        return at(
            loc_of(l),
            format!(
                "`{}` applies to downloads (an upload walks its folder)",
                p.written.listers
            ),
        );
    }
    let parts = parts(p)?;
    let settings = TransferSettings {
        in_flight,
        part_size: parts.part_size,
        parts_above: parts.parts_above,
        parts_in_flight: parts.parts_in_flight,
        resume: !p.overwrite.as_ref().is_some_and(|o| o.value),
    };
    Ok(Some(TransferPlan {
        direction,
        dir: PathBuf::from(dir.value.trim()),
        prefix: p.prefix.as_ref().map(|x| x.value.clone()),
        settings,
        listers: listers(p)?,
    }))
}

/// `part_size`, `parts_above` and `parts_in_flight`, each its default where not given:
/// the same names, defaults and limits for transfers and for the PUTs and GETs of
/// operations phases.
pub(super) fn parts(p: &RawPhase) -> R<PartPlan> {
    let defaults = PartPlan::default();
    let size = |field: &str, v: &Option<S<String>>, default: u64, min: u64| -> R<u64> {
        match v {
            None => Ok(default),
            Some(s) => match crate::size::parse_size(&s.value) {
                Ok(n) if n >= min => Ok(n),
                Ok(_) => at(
                    loc_of(s),
                    format!(
                        "`{field}` must be at least 5MiB, the smallest part S3 accepts (but for the last)"
                    ),
                ),
                Err(e) => at(loc_of(s), format!("`{field}`: {e}")),
            },
        }
    };
    Ok(PartPlan {
        part_size: size("part_size", &p.part_size, defaults.part_size, 5 << 20)?,
        parts_above: size("parts_above", &p.parts_above, defaults.parts_above, 0)?,
        parts_in_flight: parts_in_flight(p)?,
    })
}

/// Where part settings were written on a phase that moves no object bodies, the first
/// of them (to refuse).
pub(super) fn part_fields_given(p: &RawPhase) -> Option<(&'static str, &Location)> {
    [
        ("part_size", p.part_size.as_ref().map(loc_of)),
        ("parts_above", p.parts_above.as_ref().map(loc_of)),
        (p.written.parts, p.counts.parts.as_ref().map(loc_of)),
    ]
    .into_iter()
    .find_map(|(f, l)| Some((f, l?)))
}
