//! `keys` in its map form, `epochs`, and `allow_writes`: reads from a bucket keystorm
//! did not write. A phase takes its keys from a key file made earlier (`{file: PATH}`)
//! or from a listing made at its start (`{from: listing}`), may read each key exactly N
//! times (`epochs`), and no phase writes into such a bucket unless it says so.

use serde_saphyr::Location;

use super::parallel::listers;
use super::values::{R, at, in_range, loc_of};
use crate::plan::{CleanupPlan, KeySource, PhasePlan, PhaseWork, TransferDirection, WrittenAt};
use crate::spec::raw::{RawKeySource, RawKeys, RawPhase};
use keystorm_results::{BASE62_ALPHABET, ListMode};
use keystorm_types::OpKind;

/// Epochs a phase may ask for at most.
const MAX_EPOCHS: i64 = 1_000_000;

/// The phase's key source when `keys` is a map; `None` for `window`, `bucket` or no
/// `keys`. `buckets` are the workload's (the default bucket when it names one).
pub(super) fn key_source(
    p: &RawPhase,
    work: &PhaseWork,
    buckets: &[String],
) -> R<Option<KeySource>> {
    let Some(keys) = &p.keys else {
        return Ok(None);
    };
    let RawKeys::Source(source) = &keys.value else {
        return Ok(None);
    };
    let reads = match work {
        PhaseWork::Single(op) => matches!(op, OpKind::Get | OpKind::Head),
        PhaseWork::Mix(w) => w
            .iter()
            .any(|(op, _)| matches!(op, OpKind::Get | OpKind::Head)),
    };
    if !reads || p.dir.is_some() {
        return at(
            loc_of(keys),
            "`keys: {file}` and `keys: {from: listing}` give a phase keys to read: use them \
             on `op: get`, `op: head` or a `mix` with `get` or `head`",
        );
    }
    if let Some(v) = p.verify.as_ref().filter(|v| v.value) {
        return at(
            loc_of(v),
            "`verify` checks bodies against what keystorm wrote, and keys from a key file or \
             a listing were written by someone else: drop `verify`",
        );
    }
    let here = loc_of(keys);
    let bucket = bucket(source, here, buckets)?;
    match (&source.file, &source.from) {
        (Some(_), Some(_)) => at(here, "`keys` takes `file` or `from: listing`, not both"),
        (None, None) => at(
            loc_of(keys),
            "`keys` needs `file: PATH` (a key file made earlier) or `from: listing`",
        ),
        (Some(file), None) => {
            for (field, given) in [("prefix", &source.prefix), ("mode", &source.mode)] {
                if given.is_some() {
                    return at(
                        here,
                        format!("`{field}` says how to list, and a key file is listed already"),
                    );
                }
            }
            if let Some(l) = &p.counts.listers {
                return at(
                    loc_of(l),
                    format!(
                        "`{}` says how to list, and a key file is listed already",
                        p.written.listers
                    ),
                );
            }
            if file.trim().is_empty() {
                return at(here, "`file` must name a key file");
            }
            Ok(Some(KeySource::File {
                path: file.trim().into(),
                bucket,
                at: WrittenAt {
                    line: here.line() as usize,
                    column: here.column() as usize,
                },
            }))
        }
        (None, Some(from)) => {
            if from.trim() != "listing" {
                return at(
                    here,
                    format!(
                        "`from` is `listing` (the bucket listed at the phase's start), not {from:?}"
                    ),
                );
            }
            Ok(Some(KeySource::Listing {
                bucket,
                prefix: source.prefix.clone().filter(|p| !p.is_empty()),
                mode: mode(source.mode.as_deref(), here)?,
                listers: listers(p)?,
            }))
        }
    }
}

/// The bucket of a key source: the one named, or the workload's only one.
fn bucket(source: &RawKeySource, loc: &Location, buckets: &[String]) -> R<String> {
    match &source.bucket {
        Some(b) if b.trim().is_empty() => at(loc, "`bucket` must not be empty"),
        Some(b) => Ok(b.trim().to_string()),
        None if buckets.len() == 1 => Ok(buckets[0].clone()),
        None => at(
            loc,
            format!(
                "the workload names {} buckets: say which one the keys are in (`bucket: NAME`)",
                buckets.len()
            ),
        ),
    }
}

/// How a `from: listing` lists: adaptive unless the workload says.
fn mode(raw: Option<&str>, loc: &Location) -> R<ListMode> {
    let adaptive = ListMode::Adaptive {
        delimiter: Some("/".to_string()),
    };
    let Some(m) = raw else {
        return Ok(adaptive);
    };
    Ok(match m.trim() {
        "adaptive" => adaptive,
        "serial" => ListMode::Serial,
        "prefix" => ListMode::Prefix {
            depth: 1,
            alphabet: BASE62_ALPHABET.to_string(),
        },
        other => {
            return at(
                loc,
                format!("unknown list mode {other:?}; use `serial`, `prefix` or `adaptive`"),
            );
        }
    })
}

/// `epochs: N`, which only a phase reading a key file or a listing can have.
pub(super) fn epochs(p: &RawPhase, single: Option<OpKind>) -> R<Option<u32>> {
    let Some(e) = &p.epochs else {
        return Ok(None);
    };
    let from_file = matches!(p.keys.as_ref().map(|k| &k.value), Some(RawKeys::Source(_)));
    if !from_file {
        return at(
            loc_of(e),
            "`epochs` reads every key of a key file or listing N times: give the phase \
             `keys: {file: PATH}` or `keys: {from: listing}`",
        );
    }
    if !matches!(single, Some(OpKind::Get | OpKind::Head)) {
        return at(
            loc_of(e),
            "`epochs` applies to `op: get` and `op: head` phases (a mix has no count of reads to end at)",
        );
    }
    Ok(Some(in_range(e, "epochs", 1, MAX_EPOCHS)? as u32))
}

/// Refuses writes into a bucket whose keys a phase reads from a listing or a key file,
/// unless the writing phase says `allow_writes: true`, and cleanup of such a bucket.
pub(super) fn read_only(
    phases: &[(&PhasePlan, &Location)],
    names: &[String],
    cleanup: &CleanupPlan,
    cleanup_loc: &Location,
) -> R<()> {
    let listed: Vec<(&str, &str)> = phases
        .iter()
        .filter_map(|(p, _)| p.keys.as_ref().map(|k| (k.bucket(), p.name.as_str())))
        .collect();
    let Some((bucket, reader)) = listed
        .iter()
        .find(|(b, _)| names.iter().any(|n| n == b))
        .copied()
    else {
        return Ok(());
    };
    for (p, loc) in phases {
        let upload = p
            .kind
            .transfer()
            .is_some_and(|t| t.direction == TransferDirection::Upload);
        let writes = upload
            || p.work
                .ops()
                .iter()
                .any(|op| matches!(op, OpKind::Put | OpKind::Delete));
        if writes && !p.allow_writes {
            return at(
                loc,
                format!(
                    "phase {:?} writes into bucket {bucket:?}, whose keys phase {reader:?} reads \
                     from a listing or key file: keystorm did not write them, so it does not \
                     write or delete there unless the phase says `allow_writes: true`",
                    p.name
                ),
            );
        }
    }
    if cleanup.objects || cleanup.buckets {
        return at(
            cleanup_loc,
            format!(
                "`cleanup` would delete in bucket {bucket:?}, whose keys phase {reader:?} reads \
                 from a listing or key file: keystorm never cleans such a bucket; drop \
                 `cleanup`, or let keystorm write into a bucket of its own"
            ),
        );
    }
    Ok(())
}
