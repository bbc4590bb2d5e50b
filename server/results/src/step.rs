//! How far a long step without requests of its own has got: the listing that gathers the
//! keys a phase reads (`from: listing`, before the phase's own seconds begin) and an
//! audit's comparison of what it listed with what must be there. Told every second as
//! a `step` event, so the CLI and the live page show keys, rate and time left instead
//! of nothing for hours.

use serde::{Deserialize, Serialize};

use crate::phase_ref::PhaseRef;

/// Which long step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// Listing the bucket into the key file a phase reads.
    ListingKeys,
    /// An audit writing the keys that must be in the bucket, to compare.
    AuditExpected,
    /// An audit comparing the two sides.
    AuditCompare,
}

impl StepKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::ListingKeys => "listing the keys to read",
            StepKind::AuditExpected => "audit: writing the keys that must be there",
            StepKind::AuditCompare => "audit: comparing",
        }
    }
}

/// One look at a long step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StepEvent {
    pub phase: PhaseRef,
    pub step: StepKind,
    pub bucket: String,
    /// Keys done so far.
    pub done: u64,
    /// Keys there are to do, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    pub elapsed_s: f64,
    /// Keys a second since the step began.
    pub per_sec: f64,
    /// Seconds left at that rate, when the total is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eta_s: Option<f64>,
    /// The step's last look: it is done.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub finished: bool,
}

impl StepEvent {
    /// `round 1 read: listing the keys to read of bucket b: 1234567 keys, 52000 keys/s,
    /// 12.3 s` (with `of N, ETA 40 s` when the total is known).
    pub fn describe(&self) -> String {
        let place = match self.phase.round {
            Some(r) => format!("round {r} {}", self.phase.name),
            None => format!("{} {}", self.phase.section.as_str(), self.phase.name),
        };
        let of = match (self.total, self.eta_s) {
            (Some(t), Some(eta)) if !self.finished => format!(" of {t}, {eta:.0} s left"),
            (Some(t), _) => format!(" of {t}"),
            _ => String::new(),
        };
        let state = if self.finished { ", done" } else { "" };
        format!(
            "{place}: {} of bucket {}: {} keys{of}, {:.0} keys/s, {:.1} s{state}",
            self.step.as_str(),
            self.bucket,
            self.done,
            self.per_sec,
            self.elapsed_s
        )
    }
}
