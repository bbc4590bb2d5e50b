//! What a run proved about the store, read back from its folder: the GETs its
//! verifying phases checked, the objects found `corrupt` or `missing` (exact, from the
//! summary's rows, like every error class), the first of them by name (from the event
//! log's `integrity` events), and what each listing audit found (its `audit` events).
//! Shared by `keystorm show`, the HTTP API, `/metrics` and the offline report.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::events::{EventReader, IntegrityEvent, Logged, RunEvent};
use super::{PhaseRef, SummaryRow};
use crate::{AuditCounts, AuditEvent};
use keystorm_types::OpKind;

/// A run's verdict on what the store kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IntegrityReport {
    /// The phases that checked what their GETs read (`verify`), in the order they ran.
    pub verified_phases: Vec<PhaseRef>,
    /// GETs of those phases that answered with a body, each checked.
    pub verified_gets: u64,
    /// Bodies (or MD5 ETags) not as written.
    pub corrupt: u64,
    /// Live keys that answered 404, in any phase.
    pub missing: u64,
    /// The first objects found corrupt or missing (a hundred at most), with where.
    pub examples: Vec<IntegrityEvent>,
    /// Each listing audit of a bucket, in the order they finished (a phase resumed
    /// after its audit was logged counts once).
    pub audits: Vec<AuditEvent>,
}

impl IntegrityReport {
    /// Nothing checked and nothing found: a run without `verify` that lost nothing.
    pub fn is_empty(&self) -> bool {
        self.verified_phases.is_empty()
            && self.corrupt == 0
            && self.missing == 0
            && self.audits.is_empty()
    }

    /// Whether the store gave back everything as written, and listed it exactly once.
    pub fn clean(&self) -> bool {
        self.corrupt == 0 && self.missing == 0 && self.audited().clean()
    }

    /// What was found not as written, in words: `reads found 2 corrupt, 141 missing;
    /// audits found 141 missing, 0 doubled, 3 extra, 0 size mismatches`.
    pub fn not_as_written_text(&self) -> String {
        let mut parts = Vec::new();
        if self.corrupt + self.missing > 0 {
            parts.push(format!(
                "reads found {} corrupt, {} missing",
                self.corrupt, self.missing
            ));
        }
        let a = self.audited();
        if !a.clean() {
            parts.push(format!(
                "audits found {} missing, {} doubled, {} extra, {} size mismatches",
                a.missing, a.doubled, a.extra, a.size_mismatch
            ));
        }
        parts.join("; ")
    }

    /// Every audit's counts added up.
    pub fn audited(&self) -> AuditCounts {
        let mut total = AuditCounts::default();
        for a in &self.audits {
            total.add(&a.counts);
        }
        total
    }
}

/// The report of the run in `dir`, whose whole-phase rows are `rows`.
pub fn read_integrity(dir: &Path, rows: &[SummaryRow]) -> IntegrityReport {
    let mut report = IntegrityReport::default();
    if let Some(mut log) = EventReader::open(dir) {
        let mut seen = BTreeSet::new();
        while let Some(Logged { event, .. }) = log.next_of(&["phase_started", "integrity", "audit"])
        {
            match event {
                // Once per phase, however many parts or shards started it.
                RunEvent::PhaseStarted {
                    phase,
                    verify: true,
                    ..
                } if seen.insert(key(&phase)) => report.verified_phases.push(phase),
                RunEvent::Integrity(f) => report.examples.push(f),
                RunEvent::Audit(a) => {
                    let same =
                        |b: &AuditEvent| key(&b.phase) == key(&a.phase) && b.bucket == a.bucket;
                    report.audits.retain(|b| !same(b));
                    report.audits.push(a);
                }
                _ => {}
            }
        }
    }
    report.add_rows(rows);
    report
}

impl IntegrityReport {
    /// Adds what `rows` counted: the objects found corrupt or missing, and the GETs of
    /// the verifying phases among them (each checked).
    pub fn add_rows<'a>(&mut self, rows: impl IntoIterator<Item = &'a SummaryRow>) {
        let verified: BTreeSet<_> = self.verified_phases.iter().map(key).collect();
        for r in rows {
            let class = |label: &str| r.stats.error_classes.get(label).copied().unwrap_or(0);
            self.corrupt += class("corrupt");
            self.missing += class("missing");
            let phase = (r.section.as_str().to_string(), r.round, r.phase.clone());
            if r.op == OpKind::Get && verified.contains(&phase) {
                self.verified_gets += r.stats.ops + class("corrupt");
            }
        }
    }
}

fn key(p: &PhaseRef) -> (String, Option<u32>, String) {
    (p.section.as_str().to_string(), p.round, p.name.clone())
}
