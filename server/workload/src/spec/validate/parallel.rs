//! What a phase keeps going at once, one name per meaning: `workers` issue an ops
//! phase's (or a mix's) requests, `listers` list (a complete listing's own, or those
//! feeding a metadata scan, a download or reads from a listing), `head_workers` HEAD
//! what a scan lists, `in_flight` are the objects a download or upload moves at once,
//! and `parts_in_flight` the parts of one object. Each is checked here and nowhere
//! else, with one limit per name.
//!
//! The old names (`concurrency`, which meant whichever of the first four the phase's
//! kind runs, `list_concurrency` and `part_concurrency`) are still read for one release,
//! with a warning naming the new one. [`resolve`] reads whichever was written into the
//! phase's `counts`, which validation reads, remembering the name for its errors.

use serde_saphyr::Spanned;

use super::values::{R, at, in_range, loc_of};
use crate::counts::{self, Count};
use crate::spec::SpecWarning;
use crate::spec::raw::{RawKeys, RawPhase};
use keystorm_types::old_names::{self, DROPPED_IN, Place};

/// What a phase does, as far as the name of what it runs at once goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Operations,
    Listing,
    Scan,
    Transfer,
}

impl Kind {
    /// The phase's kind from its fields, by the rules validation applies later: a
    /// single `list` (or `audit`) or a `head` of `keys: bucket` that nothing else ends
    /// lists once; `download` and `upload` move objects.
    fn of(p: &RawPhase) -> Kind {
        let op = p.op.as_ref().map(|o| o.value.trim());
        let ended = p.epochs.is_some()
            || p.duration.is_some()
            || p.operations.is_some()
            || p.until_objects.is_some();
        let keys_bucket = p
            .keys
            .as_ref()
            .is_some_and(|k| matches!(&k.value, RawKeys::Name(n) if n.trim() == "bucket"));
        match op {
            Some("download" | "upload") => Kind::Transfer,
            Some("list" | "audit") if p.mix.is_none() && !ended => Kind::Listing,
            Some("head") if keys_bucket && !ended => Kind::Scan,
            _ => Kind::Operations,
        }
    }

    /// What this kind of phase runs at once.
    fn count(self) -> Count {
        match self {
            Kind::Operations => counts::WORKERS,
            Kind::Listing => counts::LISTERS,
            Kind::Scan => counts::HEAD_WORKERS,
            Kind::Transfer => counts::IN_FLIGHT,
        }
    }

    /// The name of what this kind of phase runs at once.
    fn own(self) -> &'static str {
        self.count().name
    }

    fn describe(self) -> &'static str {
        match self {
            Kind::Operations => "an ops phase's (or a mix's)",
            Kind::Listing => "a complete listing's",
            Kind::Scan => "a metadata scan's",
            Kind::Transfer => "a download's or upload's",
        }
    }
}

type Given = Option<Spanned<i64>>;

/// The one of a new name and its old one that was written; both is an error, the old
/// one alone a warning naming the new.
fn one_of(
    new: (&'static str, Given),
    old: (&'static str, Given),
    warnings: &mut Vec<SpecWarning>,
) -> R<Option<(&'static str, Spanned<i64>)>> {
    match (new, old) {
        ((new, Some(_)), (old, Some(o))) => at(
            loc_of(&o),
            format!("`{old}` is the old name of `{new}`, which is given too: keep `{new}`"),
        ),
        ((new, None), (old, Some(o))) => {
            let l = loc_of(&o);
            if old_names::taken(Place::Workload, old, new).is_none() {
                return at(
                    l,
                    format!(
                        "`{old}` was the old name of `{new}`, dropped in release {DROPPED_IN}: write `{new}`"
                    ),
                );
            }
            warnings.push(SpecWarning {
                line: l.line() as usize,
                column: l.column() as usize,
                message: format!("`{old}` is now `{new}` here; {}", old_names::works_until()),
            });
            Ok(Some((old, o)))
        }
        ((new, Some(n)), _) => Ok(Some((new, n))),
        (_, (_, None)) => Ok(None),
    }
}

/// Reads the phase's counts under whichever name they were written into its `counts`,
/// which validation reads, and remembers the names for its errors. A new name the phase's kind does not run is an
/// error naming the one it does.
pub(super) fn resolve(p: &mut RawPhase, warnings: &mut Vec<SpecWarning>) -> R<()> {
    let kind = Kind::of(p);
    let own_listers = kind == Kind::Listing;
    let mut own_new = None;
    for (name, given) in [
        ("workers", p.workers.take()),
        ("head_workers", p.head_workers.take()),
        ("in_flight", p.in_flight.take()),
    ] {
        let Some(v) = given else { continue };
        if name != kind.own() {
            return at(
                loc_of(&v),
                format!(
                    "`{name}` does not apply here: {} count is `{}`",
                    kind.describe(),
                    kind.own()
                ),
            );
        }
        own_new = Some(v);
    }
    let listers = p.listers.take();
    let (own_new, feeders_new) = if own_listers {
        (listers, None)
    } else {
        (own_new, listers)
    };
    if let Some((name, v)) = one_of(
        (kind.own(), own_new),
        ("concurrency", p.concurrency.take()),
        warnings,
    )? {
        p.written.own = name;
        p.counts.own = Some(v);
    }
    if let Some((name, v)) = one_of(
        ("listers", feeders_new),
        ("list_concurrency", p.list_concurrency.take()),
        warnings,
    )? {
        p.written.listers = name;
        p.counts.listers = Some(v);
    }
    if let Some((name, v)) = one_of(
        ("parts_in_flight", p.parts_in_flight.take()),
        ("part_concurrency", p.part_concurrency.take()),
        warnings,
    )? {
        p.written.parts = name;
        p.counts.parts = Some(v);
    }
    Ok(())
}

/// The count the phase's kind runs at once (its `workers`, `listers`, `head_workers` or
/// `in_flight`), with that name's default and limit.
pub(super) fn own_count(p: &RawPhase) -> R<u32> {
    counted(&p.counts.own, p.written.own, Kind::of(p).count())
}

/// The listers feeding a scan, a download or reads from a listing.
pub(super) fn listers(p: &RawPhase) -> R<u32> {
    counted(&p.counts.listers, p.written.listers, counts::LISTERS)
}

/// The parts of one object moving at once.
pub(super) fn parts_in_flight(p: &RawPhase) -> R<u32> {
    counted(&p.counts.parts, p.written.parts, counts::PARTS_IN_FLIGHT)
}

/// `given` (written as `written`) within `count`'s limit, or its default.
fn counted(given: &Given, written: &str, count: Count) -> R<u32> {
    match given {
        Some(c) => Ok(in_range(c, written, 1, count.max as i64)? as u32),
        None => Ok(count.default),
    }
}
