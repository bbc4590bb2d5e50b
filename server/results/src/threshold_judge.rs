//! Every entry of a workload's `expect:` judged on a run: each bound on every phase it
//! applies to (the workload's on every phase, a phase's own on it), each phase's
//! `integrity: as_written` on what it verified or audited, and the workload's on the
//! whole run. The one judge of the run's end, the verdict, `show`, the API and the
//! report, so they agree; the entries are read by the one parser ([`crate::threshold`]).

use std::path::Path;

use crate::integrity::IntegrityReport;
use crate::summary::SummaryRow;
use crate::threshold::{Expectation, Expected, ThresholdCheck};

/// Every entry of `expectations` judged: each on every phase of `whole_rows` (a phase's
/// rows whole, as [`crate::whole_phase_rows`] gives them) it applies to, in the order of
/// the phases, then the workload's `integrity: as_written` on the whole run;
/// `integrity` is what the run proved about the store (read only when an entry asks
/// for it: [`judge_in`]).
pub fn judge(
    expectations: &[Expectation],
    whole_rows: &[SummaryRow],
    integrity: &IntegrityReport,
) -> Vec<ThresholdCheck> {
    let mut checks = judge_phases(expectations, whole_rows, integrity);
    checks.extend(judge_run(expectations, integrity));
    checks
}

/// The entries of `expectations` judged on each phase of `whole_rows` they apply to:
/// the workload's bounds on every phase, a phase's own (bounds and `integrity:
/// as_written`) on that phase.
pub fn judge_phases(
    expectations: &[Expectation],
    whole_rows: &[SummaryRow],
    integrity: &IntegrityReport,
) -> Vec<ThresholdCheck> {
    let parsed: Vec<(Option<&str>, Expected)> = expectations
        .iter()
        .filter_map(|e| Some((e.phase.as_deref(), e.expect.parse().ok()?)))
        .collect();
    let mut checks = Vec::new();
    let mut start = 0;
    while start < whole_rows.len() {
        let first = &whole_rows[start];
        let same = |r: &SummaryRow| {
            r.section == first.section && r.round == first.round && r.phase == first.phase
        };
        let end = start + whole_rows[start..].iter().take_while(|r| same(r)).count();
        let rows: Vec<&SummaryRow> = whole_rows[start..end].iter().collect();
        let place = crate::phase_ref::place_words(first.section, first.round, &first.phase);
        for (phase, expected) in &parsed {
            match expected {
                Expected::Bound(t) if phase.is_none_or(|p| p == first.phase) => {
                    checks.extend(t.check(&place, &rows));
                }
                Expected::AsWritten if *phase == Some(first.phase.as_str()) => {
                    checks.push(crate::threshold_integrity::check_phase(
                        &place, &rows, integrity,
                    ));
                }
                _ => {}
            }
        }
        start = end;
    }
    checks
}

/// The workload's `integrity: as_written`, judged on the whole run; none when the
/// workload does not ask for it.
pub fn judge_run(
    expectations: &[Expectation],
    integrity: &IntegrityReport,
) -> Option<ThresholdCheck> {
    expectations
        .iter()
        .any(|e| e.phase.is_none() && e.expect.parse() == Ok(Expected::AsWritten))
        .then(|| crate::threshold_integrity::check_run(integrity))
}

/// Every entry of `expectations` judged on the run in `dir` (whose phases' whole rows
/// are `whole_rows`), its integrity report read only when an entry asks for it.
pub fn judge_in(
    dir: &Path,
    expectations: &[Expectation],
    whole_rows: &[SummaryRow],
) -> Vec<ThresholdCheck> {
    let integrity = if wants_integrity(expectations) {
        crate::integrity::read_integrity(dir, whole_rows)
    } else {
        IntegrityReport::default()
    };
    judge(expectations, whole_rows, &integrity)
}

/// Whether an entry of `expectations` is `integrity: as_written`.
pub fn wants_integrity(expectations: &[Expectation]) -> bool {
    expectations
        .iter()
        .any(|e| e.expect.parse() == Ok(Expected::AsWritten))
}
