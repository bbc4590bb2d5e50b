//! The live window followed through the phases: fills, drains and reads that cannot
//! work with the number of objects the keyspace holds at that point are refused.

use super::values::{R, at};
use super::{PhaseAt, RoundsAt};
use crate::plan::{PhaseEnd, PhaseWork};
use keystorm_types::OpKind;

/// Follows the live window through the phases wherever its size is known, and refuses
/// what cannot work: a fill below the current size, a drain above it, more deletes
/// than objects, reads from a keyspace that is certainly empty.
pub(super) fn check_window(
    existing: u64,
    before: &[PhaseAt],
    rounds: &RoundsAt,
    after: &[PhaseAt],
) -> R<()> {
    let mut known = Some(existing);
    // Two rounds are enough to see what a round does to the next one.
    let rounds_twice = (0..rounds.count.min(2)).flat_map(|_| rounds.phases.iter());
    for (p, loc) in before.iter().chain(rounds_twice).chain(after.iter()) {
        // Reads of a key file or a listing leave the window alone; a mix's writes do not.
        if p.keys.is_some() {
            let writes = p
                .work
                .ops()
                .iter()
                .any(|op| matches!(op, OpKind::Put | OpKind::Delete));
            if writes {
                known = None;
            }
            continue;
        }
        known = match (&p.work, &p.end) {
            (PhaseWork::Single(OpKind::Put), PhaseEnd::UntilObjects(n)) => {
                if let Some(k) = known
                    && *n < k
                {
                    return at(
                        loc,
                        format!(
                            "phase {:?} fills to {n} objects, but the keyspace holds {k} at this point: the fill target is below its current size",
                            p.name
                        ),
                    );
                }
                Some(*n)
            }
            (PhaseWork::Single(OpKind::Put), PhaseEnd::Operations(k)) => known.map(|s| s + k),
            (PhaseWork::Single(OpKind::Delete), PhaseEnd::UntilObjects(n)) => {
                if let Some(k) = known
                    && *n > k
                {
                    return at(
                        loc,
                        format!(
                            "phase {:?} drains to {n} objects, but the keyspace holds only {k} at this point",
                            p.name
                        ),
                    );
                }
                Some(*n)
            }
            (PhaseWork::Single(OpKind::Delete), PhaseEnd::Operations(k)) => match known {
                Some(s) if *k > s => {
                    return at(
                        loc,
                        format!(
                            "phase {:?} deletes {k} objects, but the keyspace holds only {s} at this point",
                            p.name
                        ),
                    );
                }
                Some(s) => Some(s - k),
                None => None,
            },
            // A metadata scan or a transfer moves what it finds, not the window.
            (PhaseWork::Single(OpKind::Head | OpKind::Get | OpKind::Put), PhaseEnd::ListOnce) => {
                known
            }
            (PhaseWork::Single(op @ (OpKind::Get | OpKind::Head | OpKind::Delete)), _) => {
                if known == Some(0) {
                    return at(
                        loc,
                        format!(
                            "phase {:?} would {op} from an empty keyspace: put objects first (or set `keyspace.existing`)",
                            p.name
                        ),
                    );
                }
                if *op == OpKind::Delete { None } else { known }
            }
            (PhaseWork::Single(OpKind::Put), _) => None,
            (PhaseWork::Single(OpKind::List), _) => known,
            (PhaseWork::Mix(w), _) => {
                let puts = w.iter().any(|(k, _)| *k == OpKind::Put);
                if known == Some(0) && !puts {
                    return at(
                        loc,
                        format!(
                            "mix {:?} reads from an empty keyspace and never puts: put objects first",
                            p.name
                        ),
                    );
                }
                None
            }
        };
    }
    Ok(())
}
