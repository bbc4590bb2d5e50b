//! `integrity: as_written` in a workload's `expect:`: the run must prove the store kept
//! what it was given. A bound on a figure cannot say that — a run that never verified
//! a GET nor audited a listing found nothing wrong only because it did not look — so
//! this entry is met only when a verification or an audit checked objects (in the
//! whole run for the workload's entry, in the phase for a phase's) and none was found
//! not as written. Judged on the same integrity report `show` and the verdict read.

use crate::integrity::IntegrityReport;
use crate::phase_ref::PhaseRef;
use crate::summary::SummaryRow;
use crate::threshold::{AS_WRITTEN, ThresholdCheck};

/// The workload's `integrity: as_written` judged on the whole run's `report`.
pub fn check_run(report: &IntegrityReport) -> ThresholdCheck {
    check(
        "run",
        report,
        "integrity not checked: no phase verified or audited",
    )
}

/// A phase's `integrity: as_written` judged on what that phase (its whole rows,
/// `rows`) checked and found, out of the run's `report`.
pub fn check_phase(place: &str, rows: &[&SummaryRow], report: &IntegrityReport) -> ThresholdCheck {
    check(
        place,
        &of_phase(report, rows),
        "integrity not checked: the phase neither verified its GETs nor audited",
    )
}

/// Met when `report` checked objects and found none not as written; `unchecked` says
/// why it is missed when nothing was checked.
fn check(place: &str, report: &IntegrityReport, unchecked: &str) -> ThresholdCheck {
    let audited = report.audited();
    let not_as_written = report.corrupt
        + report.missing
        + audited.missing
        + audited.doubled
        + audited.extra
        + audited.size_mismatch;
    let checked = report.verified_gets + audited.expected;
    let (passed, actual_text) = if not_as_written > 0 {
        (false, report.not_as_written_text())
    } else if checked == 0 {
        (false, unchecked.to_string())
    } else {
        (true, checked_words(report.verified_gets, audited.expected))
    };
    ThresholdCheck {
        phase: place.to_string(),
        expect: AS_WRITTEN.to_string(),
        actual: not_as_written as f64,
        actual_text,
        passed,
    }
}

/// `all as written: 1200 GETs verified, 2000 keys audited`.
fn checked_words(verified_gets: u64, audited_keys: u64) -> String {
    let mut parts = Vec::new();
    if verified_gets > 0 {
        parts.push(format!("{verified_gets} GETs verified"));
    }
    if audited_keys > 0 {
        parts.push(format!("{audited_keys} keys audited"));
    }
    format!("all as written: {}", parts.join(", "))
}

/// What one phase (its whole rows) checked and found, out of the run's report.
fn of_phase(run: &IntegrityReport, rows: &[&SummaryRow]) -> IntegrityReport {
    let Some(first) = rows.first() else {
        return IntegrityReport::default();
    };
    let this = |p: &PhaseRef| {
        p.section == first.section && p.round == first.round && p.name == first.phase
    };
    let mut phase = IntegrityReport {
        verified_phases: run
            .verified_phases
            .iter()
            .filter(|p| this(p))
            .cloned()
            .collect(),
        audits: run
            .audits
            .iter()
            .filter(|a| this(&a.phase))
            .cloned()
            .collect(),
        ..IntegrityReport::default()
    };
    phase.add_rows(rows.iter().copied());
    phase
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phase_ref::Section;

    /// A whole phase's GET row as `summary.json` has it.
    fn get_row(phase: &str, ops: u64, corrupt: u64) -> SummaryRow {
        let classes = if corrupt > 0 {
            serde_json::json!({ "corrupt": corrupt })
        } else {
            serde_json::json!({})
        };
        serde_json::from_value(serde_json::json!({
            "section": "before", "round": null, "phase": phase, "op": "get",
            "objects_at_start": 0, "started_at": "2026-11-29T00:00:00Z", "duration_s": 10.0,
            "client_cpu_s": 0.1, "ops": ops, "errors": corrupt, "error_rate": 0.0,
            "error_classes": classes, "ops_per_sec": 0.0, "bytes": 0, "mib_per_sec": 0.0,
            "keys": 0, "keys_per_sec": 0.0,
            "latency_us": {"min": 1, "mean": 1.0, "p50": 1, "p90": 1, "p99": 1, "p999": 1, "max": 1}
        }))
        .unwrap()
    }

    fn verified(phase: &str) -> PhaseRef {
        PhaseRef {
            section: Section::Before,
            round: None,
            index: 0,
            name: phase.into(),
        }
    }

    fn report(verified_phases: Vec<PhaseRef>, rows: &[SummaryRow]) -> IntegrityReport {
        let mut r = IntegrityReport {
            verified_phases,
            ..IntegrityReport::default()
        };
        r.add_rows(rows);
        r
    }

    #[test]
    fn a_run_that_checked_nothing_misses_it_and_says_so() {
        let rows = [get_row("read", 100, 0)];
        let c = check_run(&report(Vec::new(), &rows));
        assert!(!c.passed);
        assert_eq!(
            c.actual_text,
            "integrity not checked: no phase verified or audited"
        );
        assert_eq!((c.phase.as_str(), c.expect.as_str()), ("run", AS_WRITTEN));
    }

    #[test]
    fn verified_gets_that_read_back_what_was_written_meet_it() {
        let rows = [get_row("read", 100, 0)];
        let c = check_run(&report(vec![verified("read")], &rows));
        assert!(c.passed, "{c:?}");
        assert_eq!(c.actual, 0.0);
        assert_eq!(c.actual_text, "all as written: 100 GETs verified");
    }

    #[test]
    fn an_object_not_as_written_misses_it_with_what_was_found() {
        let rows = [get_row("read", 98, 2)];
        let c = check_run(&report(vec![verified("read")], &rows));
        assert!(!c.passed);
        assert_eq!(c.actual, 2.0);
        assert_eq!(c.actual_text, "reads found 2 corrupt, 0 missing");
    }

    #[test]
    fn a_phases_entry_counts_what_that_phase_checked_alone() {
        let rows = [get_row("fill", 50, 0), get_row("read", 100, 0)];
        let run = report(vec![verified("read")], &rows);
        let fill = check_phase("before fill", &[&rows[0]], &run);
        assert!(!fill.passed);
        assert!(fill.actual_text.contains("neither verified"), "{fill:?}");
        let read = check_phase("before read", &[&rows[1]], &run);
        assert!(read.passed, "{read:?}");
        assert_eq!(read.actual_text, "all as written: 100 GETs verified");
    }
}
