//! A run's complete listings, read back from its event log: every `listing` event, and
//! per list phase the points (keys, seconds) and the line fitted through them — the
//! list-scaling experiment's result — with the metadata scans and bulk transfers of
//! the same run, shared by `keystorm show` and the HTTP API.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::PhaseRef;
use super::events::{EventReader, Logged, MetadataScanEvent, RunEvent};
use super::scaling::{LinearFit, ScalingPoint};
use crate::list_outcome::ListOutcome;
use crate::transfer_outcome::TransferOutcome;

/// One `listing` event with its id in the event log.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ListingRecord {
    pub id: u64,
    pub phase: PhaseRef,
    pub outcome: ListOutcome,
    /// Live objects in the keyspace when the phase started.
    pub objects_at_start: Option<u64>,
}

/// The listings of one list phase (by name, across rounds) and their fitted line.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScalingLine {
    pub phase: String,
    /// The phase's listing mode (`serial`, `prefix`, `adaptive`).
    pub mode: String,
    /// The listers of the phase's first complete listing (also written as the
    /// deprecated `concurrency` until the next release).
    #[serde(flatten, with = "crate::renamed::listers")]
    #[cfg_attr(feature = "openapi", schema(value_type = crate::renamed::ListersCount))]
    pub listers: u32,
    pub points: Vec<ScalingPoint>,
    /// `None` with fewer than two sizes.
    pub fit: Option<LinearFit>,
}

/// One `metadata_scan` event: what the HEADs of one bucket's keys found.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetadataScanRecord {
    pub id: u64,
    #[serde(flatten)]
    pub scan: MetadataScanEvent,
}

/// One `transfer` event: a download or upload phase's pass.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TransferRecord {
    pub id: u64,
    pub phase: PhaseRef,
    pub outcome: TransferOutcome,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ListingsReport {
    pub listings: Vec<ListingRecord>,
    pub lines: Vec<ScalingLine>,
    #[serde(default)]
    pub metadata_scans: Vec<MetadataScanRecord>,
    #[serde(default)]
    pub transfers: Vec<TransferRecord>,
    /// The keys reading phases took from a listing or a key file: bucket, file, count.
    #[serde(default)]
    pub keys: Vec<crate::KeysEvent>,
}

/// Reads the run folder's event log; a run without listings gives an empty report.
pub fn read_listings(dir: &Path) -> ListingsReport {
    let mut report = ListingsReport::default();
    let Some(mut log) = EventReader::open(dir) else {
        return report;
    };
    let mut objects_at_start = None;
    // Most lines are intervals: only these events are built.
    const WANTED: [&str; 5] = [
        "listing",
        "phase_started",
        "metadata_scan",
        "transfer",
        "keys",
    ];
    while let Some(Logged { id, event }) = log.next_of(&WANTED) {
        match event {
            RunEvent::PhaseStarted { objects, .. } => objects_at_start = Some(objects),
            RunEvent::Listing { phase, outcome } => report.listings.push(ListingRecord {
                id,
                phase,
                outcome,
                objects_at_start,
            }),
            RunEvent::MetadataScan(scan) => {
                report.metadata_scans.push(MetadataScanRecord { id, scan })
            }
            RunEvent::Transfer { phase, outcome } => {
                report.transfers.push(TransferRecord { id, phase, outcome })
            }
            RunEvent::Keys(k) => report.keys.push(k),
            _ => {}
        }
    }
    report.lines = lines_of(&report.listings);
    report
}

/// Groups complete listings by phase name, in order of first appearance, and fits each.
fn lines_of(listings: &[ListingRecord]) -> Vec<ScalingLine> {
    let mut lines: Vec<ScalingLine> = Vec::new();
    for l in listings.iter().filter(|l| l.outcome.complete) {
        let point = ScalingPoint {
            keys: l.outcome.keys,
            seconds: l.outcome.seconds,
        };
        match lines.iter_mut().find(|line| line.phase == l.phase.name) {
            Some(line) => line.points.push(point),
            None => lines.push(ScalingLine {
                phase: l.phase.name.clone(),
                mode: l.outcome.mode.name().to_string(),
                listers: l.outcome.listers,
                points: vec![point],
                fit: None,
            }),
        }
    }
    for line in &mut lines {
        line.fit = LinearFit::of(&line.points);
    }
    lines
}
