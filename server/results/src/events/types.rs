//! The run's events: what observers are told while a run goes, and what its
//! `events.jsonl` holds, one per line. Read back by the same types, so the writer and
//! every reader agree on the format.

use std::path::PathBuf;

use keystorm_types::old_names;
use serde::{Deserialize, Serialize};

use crate::phase_end::PhaseEnd;
use crate::{CleanupEvent, IntervalRecord, PhaseRef, RunStatus, SummaryRow};

/// How far a phase has got, for progress bars and the live view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PhaseProgress {
    pub elapsed_s: f64,
    /// 0..=1 when the end is known in advance.
    pub fraction: Option<f64>,
    pub ops: u64,
    pub errors: u64,
    /// Live objects in the keyspace window, counting every PUT that finished (those
    /// finished ahead of an older one still in flight too), so it moves with each
    /// completed write; the interval record's `window` keeps the contiguous marks.
    pub objects: u64,
}

/// What a phase keeps going at once, each count under the name the workload gives it;
/// a phase has the counts its kind runs, the others are left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AtOnce {
    /// Ops phases and mixes: closed-loop workers, or the most requests an open loop
    /// keeps in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<u32>,
    /// Complete listings and audits: their listers (1 in serial mode, which pages
    /// alone); metadata scans and downloads: the listers feeding them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listers: Option<u32>,
    /// Metadata scans: HEAD workers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_workers: Option<u32>,
    /// Downloads and uploads: objects moving at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight: Option<u32>,
    /// Downloads and uploads: parts of one object moving at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts_in_flight: Option<u32>,
    /// Deprecated: the one count events had before this release, whichever of
    /// `workers`, `listers` (of a listing or an audit), `head_workers` or `in_flight`
    /// the phase's kind runs. Written until the next release; the only count of a
    /// `phase_started` recorded before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(deprecated))]
    pub concurrency: Option<u32>,
}

impl AtOnce {
    /// These counts with the deprecated `concurrency` they replace: a scan's HEAD
    /// workers, a transfer's objects in flight, an ops phase's workers, or else a
    /// listing's listers.
    /// Nothing is added once old names are no longer taken.
    pub fn with_concurrency(self) -> AtOnce {
        if old_names::EVENT_CONCURRENCY.old_if_taken().is_none() {
            return self;
        }
        AtOnce {
            concurrency: self
                .head_workers
                .or(self.in_flight)
                .or(self.workers)
                .or(self.listers),
            ..self
        }
    }
}

/// `workers 8`, `listers 4, head_workers 16`, ...: each count under its name; an event
/// recorded before the names has its `concurrency` alone.
impl std::fmt::Display for AtOnce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let named = [
            ("workers", self.workers),
            ("listers", self.listers),
            ("head_workers", self.head_workers),
            ("in_flight", self.in_flight),
            ("parts_in_flight", self.parts_in_flight),
        ];
        let mut any = false;
        for (name, v) in named.iter().filter_map(|(n, v)| Some((*n, (*v)?))) {
            write!(f, "{}{name} {v}", if any { ", " } else { "" })?;
            any = true;
        }
        if !any && let Some(v) = self.concurrency {
            write!(f, "concurrency {v}")?;
        }
        Ok(())
    }
}

/// What observers are told while a run goes. Every event is also appended to the run's
/// `events.jsonl` (serialized as `{"id", "event", "data"}`), so a finished run can be
/// replayed exactly as it was watched.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "event", content = "data", rename_all = "snake_case")]
pub enum RunEvent {
    Started {
        run_id: String,
        /// The results folder (a local path: kept out of the event log).
        #[serde(skip)]
        #[cfg_attr(feature = "openapi", schema(ignore))]
        dir: PathBuf,
        endpoint: String,
        /// How many phases the run has (before + rounds × round phases + after).
        phases: usize,
    },
    PhaseStarted {
        phase: PhaseRef,
        /// 0-based position among all the run's phases.
        position: usize,
        /// How the phase ends: `{"duration": "30s"}`, `{"operations": N}`,
        /// `{"until_objects": N}`, `{"epochs": N}` or `"list_once"`.
        #[cfg_attr(feature = "openapi", schema(value_type = Object))]
        end: PhaseEnd,
        /// What the phase keeps going at once, each count under its workload name.
        #[serde(flatten)]
        at_once: AtOnce,
        objects: u64,
        /// Bucket index at the start (tracked targets only).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        index: Vec<crate::BucketIndex>,
        /// The phase checks what its GETs read (`verify`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        verify: bool,
        /// An open-loop phase (`rate`): the operations per second it asks for, every
        /// operation together (a shard's part of it in a shard's own log).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rate: Option<f64>,
    },
    Interval {
        phase: PhaseRef,
        record: Box<IntervalRecord>,
        progress: PhaseProgress,
        /// When `record` is a phase's sliver of a last interval (shorter than
        /// [`crate::SHORT_INTERVAL_S`]): the interval before it with the sliver folded
        /// in (counters added, histograms merged), which a chart draws in place of the
        /// interval before rather than the sliver as a second of its own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        folded: Option<Box<IntervalRecord>>,
    },
    PhaseFinished {
        phase: PhaseRef,
        rows: Vec<SummaryRow>,
    },
    Warning {
        message: String,
    },
    /// A bucket's index shard count changed (seen by polling the admin API).
    Reshard(crate::ReshardEvent),
    /// Consecutive intervals of a phase whose writes stalled.
    Stall(crate::StallEvent),
    /// What polling the bucket index cost over the run.
    IndexPolling(crate::IndexPollingEvent),
    /// A complete listing of one bucket finished: keys, bytes, mode, and the space
    /// report when the phase asked for one.
    Listing {
        phase: PhaseRef,
        outcome: crate::list_outcome::ListOutcome,
    },
    /// A metadata scan of one bucket finished (its listing follows as `listing`).
    MetadataScan(MetadataScanEvent),
    /// A download or upload phase finished its pass.
    Transfer {
        phase: PhaseRef,
        outcome: crate::transfer_outcome::TransferOutcome,
    },
    /// Cleanup's progress (`cleanup` in the workload): every second while it deletes,
    /// and once at the end (`done`).
    Cleanup(CleanupEvent),
    /// An object a read found corrupt or missing (the run's first hundred).
    Integrity(IntegrityEvent),
    /// A listing audit (`op: audit`) of one bucket finished: what it found missing,
    /// doubled, extra or resized, exactly.
    Audit(crate::AuditEvent),
    /// The keys a reading phase takes from a listing or a key file, ready before it
    /// reads: bucket, key file, how many keys.
    Keys(crate::KeysEvent),
    /// An endpoint of a run that drives several went down or came back.
    Endpoint(crate::EndpointEvent),
    /// A span of the run's clock in which it (or, in a merged run, a shard of it) did
    /// not run: stopped or killed and resumed, paused while its controller was gone,
    /// waiting to be taken over. Charts break their lines over it.
    Pause(crate::PauseEvent),
    /// A threshold of the workload (`expect:`) judged on a phase that just ended (or,
    /// `integrity: as_written` of the workload, on the run once it completed).
    Threshold(crate::threshold::ThresholdCheck),
    /// The running phase's thresholds judged on what it measured so far, once an
    /// interval; the one whose miss stops the run (`expect_abort_after`), if one does.
    ThresholdsSoFar(crate::threshold_live::ThresholdsSoFar),
    /// In a run split over agents: an agent lost or back, a shard taken over, the
    /// controller cut off or restarted.
    Fleet(crate::FleetEvent),
    /// How far a long step without requests of its own has got (the listing of the keys
    /// a phase reads, an audit's comparison), every second while it goes.
    Step(crate::StepEvent),
    Finished {
        status: RunStatus,
        error: Option<String>,
    },
}

/// An object a read found not as written: `corrupt` (a verified GET's body or MD5 ETag
/// differs from what keystorm wrote) or `missing` (a key keystorm wrote and has not
/// deleted answered 404). A run writes its first hundred; the error counts hold all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IntegrityEvent {
    pub phase: PhaseRef,
    /// `corrupt` or `missing` (the error class it is counted in).
    pub class: String,
    pub bucket: String,
    pub key: String,
    /// Where the body first differed (`byte 700 is 0x17, written 0x07`), or what
    /// answered.
    pub detail: String,
}

/// What a metadata scan (`op: head`, `keys: bucket`) of one bucket found.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetadataScanEvent {
    pub phase: PhaseRef,
    pub bucket: String,
    /// HEADs that answered.
    pub heads: u64,
    /// HEADs that failed (404s included).
    pub head_errors: u64,
    /// Keys gone between LIST and HEAD.
    pub missing: u64,
    /// HEAD workers (HEAD requests in flight at most); in a merged run, those of all the
    /// shards that HEADed, added up. Also written as the deprecated `head_concurrency`
    /// until the next release, and read from it in runs recorded before.
    #[serde(flatten, with = "crate::renamed::head_workers")]
    #[cfg_attr(feature = "openapi", schema(value_type = crate::renamed::HeadWorkersCount))]
    pub head_workers: u32,
    pub seconds: f64,
    pub metadata: crate::metadata::MetadataSummary,
}
