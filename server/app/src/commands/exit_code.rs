//! The exit code of a run that completed, for `keystorm run` here and on a
//! controller's agents alike: 0, or 3 when the store did not keep what it was given or
//! the run missed a threshold it set itself; and of a run that did not: 3 when a
//! threshold missed while a phase ran stopped it, 1 otherwise.

use keystorm_console::exit;
use keystorm_results::{FindingKind, Manifest, RunVerdict};

/// The exit code of a completed run: 3 when the store did not keep what it was given
/// (unless allowed) or a phase missed a threshold of the workload's `expect:`, saying
/// why on stderr.
pub fn completed_code(verdict: Option<&RunVerdict>, allowed: bool) -> u8 {
    let findings = verdict.map_or(&[][..], |v| &v.findings[..]);
    let first = |kind| findings.iter().find(|f| f.kind == kind);
    if let Some(f) = first(FindingKind::NotAsWritten).filter(|_| !allowed) {
        stderrln!(
            "not as written: {}; exit {} (--allow-not-as-written exits 0)",
            f.text,
            exit::NOT_AS_WRITTEN
        );
        return exit::NOT_AS_WRITTEN;
    }
    let missed: Vec<&str> = findings
        .iter()
        .filter(|f| f.kind == FindingKind::MissedThreshold)
        .map(|f| f.text.as_str())
        .collect();
    if !missed.is_empty() {
        stderrln!(
            "missed a threshold: {}; exit {}",
            missed.join("; "),
            exit::NOT_AS_WRITTEN
        );
        return exit::NOT_AS_WRITTEN;
    }
    exit::OK
}

/// The exit code of a run that failed or was aborted: 3 when a threshold it missed
/// while a phase ran stopped it (`expect_abort_after`) — it missed a threshold it set
/// itself, which CI tells apart from a run that could not run — saying which on
/// stderr; 1 otherwise.
pub fn not_completed_code(manifest: Option<&Manifest>) -> u8 {
    match manifest.and_then(|m| m.stopped_by_threshold.as_ref()) {
        Some(c) => {
            stderrln!(
                "missed a threshold: {}: {} missed while the phase ran ({}), which stopped \
                 the run (expect_abort_after); exit {}",
                c.phase,
                c.expect,
                c.actual_text,
                exit::NOT_AS_WRITTEN
            );
            exit::NOT_AS_WRITTEN
        }
        None => exit::FAILED,
    }
}
