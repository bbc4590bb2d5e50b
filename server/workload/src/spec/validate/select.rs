//! `select`: which keys of the window a reading phase picks (uniform or zipf).

use super::values::{R, at, loc_of};
use crate::plan::{PhaseWork, Selection};
use crate::spec::raw::{RawPhase, RawSelect};
use keystorm_types::OpKind;

/// The key selection of a phase; only phases that get or head may choose one.
pub(super) fn selection(p: &RawPhase, work: &PhaseWork) -> R<Selection> {
    Ok(match &p.select {
        None => Selection::Uniform,
        Some(s) => {
            let reads = match work {
                PhaseWork::Single(k) => matches!(k, OpKind::Get | OpKind::Head),
                PhaseWork::Mix(w) => w
                    .iter()
                    .any(|(k, _)| matches!(k, OpKind::Get | OpKind::Head)),
            };
            if !reads {
                return at(loc_of(s), "`select` applies to phases that get or head");
            }
            match &s.value {
                RawSelect::Name(n) if n == "uniform" => Selection::Uniform,
                RawSelect::Name(n) => {
                    return at(
                        loc_of(s),
                        format!("unknown select {n:?}; use `uniform` or `{{zipf: 1.1}}`"),
                    );
                }
                RawSelect::Zipf { zipf } if *zipf > 0.0 && zipf.is_finite() => {
                    Selection::Zipf { exponent: *zipf }
                }
                RawSelect::Zipf { zipf } => {
                    return at(
                        loc_of(s),
                        format!("zipf exponent must be positive, not {zipf}"),
                    );
                }
            }
        }
    })
}
