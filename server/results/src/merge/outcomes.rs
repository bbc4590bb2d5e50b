//! The merged run's phase events: each phase's start (the shards' live objects added)
//! and, per bucket, one complete listing and one metadata scan adding up the shards'
//! parts of it — keys, bytes, requests, HEADs and the space report and metadata summary
//! merged; the time is the longest part's, the concurrency that of the parts that
//! listed (a serial listing runs on shard 0 alone).

use super::parts::Part;
use crate::events::{EventReader, Logged, MetadataScanEvent, RunEvent};
use crate::list_outcome::ListOutcome;
use crate::phase_ref::PhaseRef;
use crate::space_report::ReportBuilder;

/// One phase's events, merged over the parts.
#[derive(Default)]
pub(super) struct PhaseEvents {
    pub started: Option<RunEvent>,
    pub outcomes: Vec<RunEvent>,
}

/// Every phase's merged events, in the order the first part logged them.
pub(super) fn read(parts: &[Part]) -> Vec<(PhaseRef, PhaseEvents)> {
    let mut phases: Vec<(PhaseRef, PhaseEvents)> = Vec::new();
    for part in parts {
        let Some(mut log) = EventReader::open(&part.dir) else {
            continue;
        };
        // A part's phase starts once: a resume of it starts it again, with the
        // objects the part had then, which its first start already counts.
        let mut started: Vec<PhaseRef> = Vec::new();
        const WANTED: [&str; 3] = ["phase_started", "listing", "metadata_scan"];
        while let Some(Logged { event, .. }) = log.next_of(&WANTED) {
            let phase = match &event {
                RunEvent::PhaseStarted { phase, .. } => {
                    if started.contains(phase) {
                        continue;
                    }
                    started.push(phase.clone());
                    phase
                }
                RunEvent::Listing { phase, .. } => phase,
                RunEvent::MetadataScan(scan) => &scan.phase,
                _ => continue,
            };
            let at = match phases.iter().position(|(p, _)| p == phase) {
                Some(at) => at,
                None => {
                    phases.push((phase.clone(), PhaseEvents::default()));
                    phases.len() - 1
                }
            };
            add(&mut phases[at].1, event);
        }
    }
    phases
}

fn add(into: &mut PhaseEvents, event: RunEvent) {
    match event {
        RunEvent::PhaseStarted { objects, .. } => match &mut into.started {
            Some(RunEvent::PhaseStarted { objects: sum, .. }) => *sum += objects,
            _ => into.started = Some(event),
        },
        RunEvent::Listing { phase, outcome } => {
            let same = into.outcomes.iter_mut().find_map(|e| match e {
                RunEvent::Listing { outcome: o, .. } if o.bucket == outcome.bucket => Some(o),
                _ => None,
            });
            match same {
                Some(o) => add_listing(o, outcome),
                None => into.outcomes.push(RunEvent::Listing { phase, outcome }),
            }
        }
        RunEvent::MetadataScan(scan) => {
            let same = into.outcomes.iter_mut().find_map(|e| match e {
                RunEvent::MetadataScan(s) if s.bucket == scan.bucket => Some(s),
                _ => None,
            });
            match same {
                Some(s) => add_scan(s, &scan),
                None => into.outcomes.push(RunEvent::MetadataScan(scan)),
            }
        }
        _ => {}
    }
}

fn add_listing(into: &mut ListOutcome, o: ListOutcome) {
    let listed = |x: &ListOutcome| x.requests > 0;
    into.concurrency = match (listed(into), listed(&o)) {
        (true, true) => into.concurrency + o.concurrency,
        (false, true) => o.concurrency,
        _ => into.concurrency,
    };
    into.keys += o.keys;
    into.bytes += o.bytes;
    into.requests += o.requests;
    into.errors += o.errors;
    into.ranges += o.ranges;
    into.cuts += o.cuts;
    into.seconds = into.seconds.max(o.seconds);
    into.complete &= o.complete;
    into.report = match (into.report.take(), o.report) {
        (Some(mine), Some(theirs)) => {
            let mut merged = ReportBuilder::resume(&into.prefix, mine, 0);
            merged.merge(&ReportBuilder::resume(&into.prefix, theirs, 0));
            Some(merged.finish())
        }
        (mine, theirs) => mine.or(theirs),
    };
}

fn add_scan(into: &mut MetadataScanEvent, s: &MetadataScanEvent) {
    if s.heads + s.head_errors > 0 {
        into.head_concurrency = if into.heads + into.head_errors > 0 {
            into.head_concurrency + s.head_concurrency
        } else {
            s.head_concurrency
        };
    }
    into.heads += s.heads;
    into.head_errors += s.head_errors;
    into.missing += s.missing;
    into.seconds = into.seconds.max(s.seconds);
    into.metadata.merge(&s.metadata);
}
