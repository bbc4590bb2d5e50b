//! The exit code of a run that completed, for `keystorm run` here and on a
//! controller's agents alike: 0, or 3 when the store did not keep what it was given.

use keystorm_console::exit;
use keystorm_results::{FindingKind, RunVerdict};

/// The exit code of a completed run: 3 when the store did not keep what it was given,
/// unless allowed, saying why on stderr.
pub fn completed_code(verdict: Option<&RunVerdict>, allowed: bool) -> u8 {
    match verdict.and_then(|v| {
        v.findings
            .iter()
            .find(|f| f.kind == FindingKind::NotAsWritten)
    }) {
        Some(f) if !allowed => {
            stderrln!(
                "not as written: {}; exit {} (--allow-not-as-written exits 0)",
                f.text,
                exit::NOT_AS_WRITTEN
            );
            exit::NOT_AS_WRITTEN
        }
        _ => exit::OK,
    }
}
