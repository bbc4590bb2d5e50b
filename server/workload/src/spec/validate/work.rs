//! What a phase does: one op (`op`) or a weighted mix (`mix`), the weights checked so
//! that deletes never outrun puts.

use serde_saphyr::Location;

use super::values::{Located, R, at, loc_of};
use crate::plan::{PhaseWork, TransferDirection, TransferPlan};
use crate::spec::raw::RawPhase;
use keystorm_types::OpKind;

const OPS_HELP: &str = "put, get, head, list, delete, audit, download, upload";

fn op_kind(name: &str) -> Option<OpKind> {
    OpKind::parse(name)
}

/// "unknown op", with the op meant when the name is close to one.
fn unknown_op(name: &str, place: &str) -> String {
    match crate::spec::suggest::closest(name, OPS_HELP.split(", ")) {
        Some(meant) => {
            format!("unknown op {name:?}{place}: did you mean `{meant}`? (ops: {OPS_HELP})")
        }
        None => format!("unknown op {name:?}{place}; use one of {OPS_HELP}"),
    }
}

/// Whether the phase is a listing audit (`op: audit`).
pub(super) fn is_audit(p: &RawPhase) -> bool {
    p.op.as_ref().is_some_and(|op| op.value.trim() == "audit")
}

/// The work of a phase at `loc` in `section`; a transfer phase gets or puts.
pub(super) fn work(
    p: &RawPhase,
    loc: &Location,
    section: &str,
    transfer: Option<&TransferPlan>,
) -> R<PhaseWork> {
    Ok(match (&p.op, &p.mix) {
        (Some(_), None) if transfer.is_some() => PhaseWork::Single(match transfer {
            Some(t) if t.direction == TransferDirection::Upload => OpKind::Put,
            _ => OpKind::Get,
        }),
        (Some(_), Some(m)) => return at(loc_of(m), "a phase has either `op` or `mix`, not both"),
        (None, None) => {
            return at(
                loc,
                format!("a phase in `{section}` needs `op` ({OPS_HELP}) or `mix`"),
            );
        }
        // An audit's requests are LISTs.
        (Some(_), None) if is_audit(p) => PhaseWork::Single(OpKind::List),
        (Some(op), None) => match op_kind(&op.value) {
            Some(k) => PhaseWork::Single(k),
            None => {
                return at(loc_of(op), unknown_op(&op.value, ""));
            }
        },
        (None, Some(m)) => {
            if m.value.is_empty() {
                return at(
                    loc_of(m),
                    "`mix` is empty; e.g. {get: 70, put: 20, list: 5, delete: 5}",
                );
            }
            let mut weights = Vec::new();
            for (name, w) in &m.value {
                if name.trim() == "audit" {
                    return at(
                        loc_of(w),
                        "`audit` lists the whole bucket once: give it a phase of its own \
                         (`op: audit`), not a share of a `mix`",
                    );
                }
                let Some(k) = op_kind(name) else {
                    return at(loc_of(w), unknown_op(name, " in `mix`"));
                };
                if w.value <= 0 {
                    return at(
                        loc_of(w),
                        format!("`mix` weight of {name} must be positive, not {}", w.value),
                    );
                }
                let weight = u32::try_from(w.value).map_err(|_| Located {
                    line: w.referenced.line() as usize,
                    column: w.referenced.column() as usize,
                    message: format!("`mix` weight {} is too large", w.value),
                })?;
                weights.push((k, weight));
            }
            weights.sort_by_key(|(k, _)| *k);
            let weight_of = |k: OpKind| {
                weights
                    .iter()
                    .find(|(o, _)| *o == k)
                    .map(|(_, w)| *w)
                    .unwrap_or(0)
            };
            if weight_of(OpKind::Delete) > weight_of(OpKind::Put) {
                return at(
                    loc_of(m),
                    format!(
                        "deletes outrun puts in this `mix` (delete {} > put {}): the window would drain",
                        weight_of(OpKind::Delete),
                        weight_of(OpKind::Put)
                    ),
                );
            }
            PhaseWork::Mix(weights)
        }
    })
}
