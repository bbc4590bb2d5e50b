//! The merged run's phase events: each phase's start (the shards' live objects added)
//! and, per bucket, one complete listing and one metadata scan adding up the shards'
//! parts of it — keys, bytes, requests, HEADs and the space report and metadata summary
//! merged; the time is the longest part's, the listers (and HEAD workers) those of all
//! the parts that listed (or HEADed) added up (a serial listing runs on shard 0 alone).
//! The objects the shards' reads found corrupt or missing come along by name, the
//! first [`MAX_INTEGRITY_EXAMPLES`] of them (their counts are the rows', exact).

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

/// Objects found corrupt or missing a merged run names, as many as one run names.
pub const MAX_INTEGRITY_EXAMPLES: usize = 100;

/// Every phase's merged events, in the order the first part logged them.
pub(super) fn read(parts: &[Part]) -> Vec<(PhaseRef, PhaseEvents)> {
    let mut phases: Vec<(PhaseRef, PhaseEvents)> = Vec::new();
    let mut examples = 0;
    for part in parts {
        let Some(mut log) = EventReader::open(&part.dir) else {
            continue;
        };
        // A part's phase starts once: a resume of it starts it again, with the
        // objects the part had then, which its first start already counts.
        let mut started: Vec<PhaseRef> = Vec::new();
        const WANTED: [&str; 4] = ["phase_started", "listing", "metadata_scan", "integrity"];
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
                RunEvent::Integrity(found) if examples < MAX_INTEGRITY_EXAMPLES => {
                    examples += 1;
                    &found.phase
                }
                _ => continue,
            };
            let at = match phases.iter().position(|(p, _)| p == phase) {
                Some(at) => at,
                None => {
                    phases.push((phase.clone(), PhaseEvents::default()));
                    phases.len() - 1
                }
            };
            add(&mut phases[at].1, whole_rate(event, part.shard.count));
        }
    }
    phases
}

/// A shard's phase start with the rate of the whole phase: each of `shards` asks its
/// equal part.
fn whole_rate(mut event: RunEvent, shards: u32) -> RunEvent {
    if let RunEvent::PhaseStarted { rate: Some(r), .. } = &mut event {
        *r *= f64::from(shards.max(1));
    }
    event
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
        RunEvent::Integrity(_) => into.outcomes.push(event),
        _ => {}
    }
}

fn add_listing(into: &mut ListOutcome, o: ListOutcome) {
    let listed = |x: &ListOutcome| x.requests > 0;
    // The listers of the whole listing: every part that listed brought its own.
    into.listers = match (listed(into), listed(&o)) {
        (true, true) => into.listers + o.listers,
        (false, true) => o.listers,
        _ => into.listers,
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
        // The HEAD workers of the whole scan: every part that HEADed brought its own.
        into.head_workers = if into.heads + into.head_errors > 0 {
            into.head_workers + s.head_workers
        } else {
            s.head_workers
        };
    }
    into.heads += s.heads;
    into.head_errors += s.head_errors;
    into.missing += s.missing;
    into.seconds = into.seconds.max(s.seconds);
    into.metadata.merge(&s.metadata);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shard's listing and scan of one bucket as the release before the renames wrote
    /// them (`concurrency`, `head_concurrency`).
    fn old_listing(requests: u64) -> ListOutcome {
        let text = format!(
            r#"{{"bucket":"b","bytes":6,"complete":true,"concurrency":4,"cuts":0,"errors":0,"keys":1,"mode":{{"delimiter":null,"mode":"adaptive"}},"prefix":"","ranges":1,"report":null,"requests":{requests},"seconds":0.5}}"#
        );
        serde_json::from_str(&text).unwrap()
    }

    fn old_scan(heads: u64) -> MetadataScanEvent {
        let text = format!(
            r#"{{"bucket":"b","head_concurrency":16,"head_errors":0,"heads":{heads},"metadata":{{"names":{{}},"objects":{heads},"other_names":0,"without_metadata":{heads}}},"missing":0,"phase":{{"index":0,"name":"scan","round":null,"section":"after"}},"seconds":0.25}}"#
        );
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn old_shards_merge_their_listers_and_head_workers_added_up() {
        let mut merged = old_listing(3);
        add_listing(&mut merged, old_listing(2));
        assert_eq!(merged.listers, 8, "two parts of 4 listers each");
        // A part that listed nothing (a serial listing's other shards) adds none.
        add_listing(&mut merged, old_listing(0));
        assert_eq!(merged.listers, 8);

        let mut scan = old_scan(5);
        add_scan(&mut scan, &old_scan(7));
        add_scan(&mut scan, &old_scan(0));
        assert_eq!(scan.head_workers, 32, "two parts of 16 HEAD workers each");
        assert_eq!(scan.heads, 12);
    }
}
