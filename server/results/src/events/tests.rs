//! The log's format kept: a log written by an earlier run reads back (past a torn last
//! line and events this version does not know), and what the writer appends reads back
//! as it was.

use std::io::Cursor;

use super::*;
use crate::{EVENTS_FILE, RunStatus};

/// A demo run's log, trimmed to its first phase's start and end and its last phase.
const FIXTURE: &str = include_str!("../../tests/fixtures/events.jsonl");

fn names(log: &mut EventReader<impl std::io::BufRead>) -> Vec<(u64, String)> {
    std::iter::from_fn(|| log.next_event())
        .map(|l| {
            let raw = serde_json::to_value(&l.event).unwrap();
            (l.id, raw["event"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn reads_a_recorded_log_past_a_torn_line_and_unknown_events() {
    let unknown = r#"{"data":{"x":1},"event":"from_a_newer_version","id":67}"#;
    let last = FIXTURE.lines().last().unwrap();
    // What a kill -9 in the middle of writing the next line leaves.
    let torn = &last[..last.len() / 2];
    let text = format!("{FIXTURE}{unknown}\n{torn}");
    let mut log = EventReader::new(Cursor::new(text.as_bytes()));
    let read = names(&mut log);
    let expected: Vec<(u64, String)> = [
        (0, "started"),
        (1, "phase_started"),
        (2, "interval"),
        (7, "phase_finished"),
        (62, "phase_started"),
        (63, "interval"),
        (64, "listing"),
        (65, "phase_finished"),
        (66, "finished"),
    ]
    .iter()
    .map(|(id, n)| (*id, n.to_string()))
    .collect();
    assert_eq!(read, expected);

    // The typed events carry the recorded values.
    let mut log = EventReader::new(Cursor::new(FIXTURE.as_bytes()));
    match log.next_of(&["listing"]).map(|l| (l.id, l.event)) {
        Some((64, RunEvent::Listing { phase, outcome })) => {
            assert_eq!(phase.name, "final-list");
            assert!(outcome.complete);
            assert!(outcome.keys > 0);
        }
        other => panic!("expected the listing, got {other:?}"),
    }
    match log.next_event().map(|l| l.event) {
        Some(RunEvent::PhaseFinished { phase, rows }) => {
            assert_eq!(phase.name, "final-list");
            assert!(!rows.is_empty());
        }
        other => panic!("expected the phase's end, got {other:?}"),
    }
    match log.next_event().map(|l| l.event) {
        Some(RunEvent::Finished { status, error }) => {
            assert_eq!(status, RunStatus::Completed);
            assert_eq!(error, None);
        }
        other => panic!("expected the run's end, got {other:?}"),
    }
    assert!(log.next_event().is_none());

    // A raw reader passes every well-formed line on, unknown ones too, not the torn one.
    let mut log = EventReader::new(Cursor::new(text.as_bytes()));
    let raw: Vec<RawEvent> = std::iter::from_fn(|| log.next_raw()).collect();
    assert_eq!(raw.len(), 10);
    assert_eq!(raw[9].name, "from_a_newer_version");
    assert_eq!(raw[9].data, r#"{"x":1}"#);
    assert_eq!(
        raw[8].data, r#"{"error":null,"status":"completed"}"#,
        "the data passed on is the data logged"
    );
}

#[test]
fn reads_back_what_the_writer_appends_and_continues_its_ids() {
    let dir = tempfile::tempdir().unwrap();
    let events = [
        RunEvent::Warning {
            message: "first".into(),
        },
        RunEvent::Finished {
            status: RunStatus::Interrupted,
            error: Some("stopped".into()),
        },
    ];
    let mut writer = EventWriter::open(dir.path()).unwrap();
    assert_eq!(writer.append(&events[0]), 0);
    drop(writer);
    // A resumed run: the torn line a kill left is cut, ids follow on.
    let path = dir.path().join(EVENTS_FILE);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(r#"{"data":{"mess"#);
    std::fs::write(&path, text).unwrap();
    let mut writer = EventWriter::open(dir.path()).unwrap();
    assert_eq!(writer.append(&events[1]), 1);
    drop(writer);

    let written = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), 2, "{written}");
    let head: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(head["id"], 1);
    assert_eq!(head["event"], "finished");

    let mut log = EventReader::open(dir.path()).unwrap();
    let mut raw = EventReader::open(dir.path()).unwrap();
    for (id, sent) in events.iter().enumerate() {
        let read = log.next_event().unwrap();
        assert_eq!(read.id, id as u64);
        assert_eq!(
            serde_json::to_value(&read.event).unwrap(),
            serde_json::to_value(sent).unwrap()
        );
        // What a live stream sends is what a replay of the log sends.
        assert_eq!(raw.next_raw(), RawEvent::of(id as u64, sent));
    }
    assert!(log.next_event().is_none());
    assert!(EventReader::open(&dir.path().join("none")).is_none());
}

#[tokio::test]
async fn the_async_reader_reads_what_the_sync_reader_reads() {
    let last = FIXTURE.lines().last().unwrap();
    let text = format!("{FIXTURE}{}", &last[..10]);
    let mut sync = EventReader::new(Cursor::new(text.as_bytes()));
    let mut log = AsyncEventReader::new(text.as_bytes());
    let mut read = 0;
    while let Some(raw) = log.next_raw().await {
        assert_eq!(Some(raw), sync.next_raw());
        read += 1;
    }
    assert_eq!(sync.next_raw(), None);
    assert_eq!(read, FIXTURE.lines().count());

    let mut log = AsyncEventReader::new(text.as_bytes());
    let mut heads = AsyncEventReader::new(text.as_bytes());
    while let Some(head) = heads.next_head().await {
        let event = log.next_event().await.unwrap();
        assert_eq!(event.id, head.id);
        assert_eq!(
            serde_json::to_value(&event.event).unwrap()["event"],
            head.name
        );
    }
    assert!(log.next_event().await.is_none());
}

#[test]
fn a_recorded_line_read_and_written_again_is_the_same_line() {
    // The fixture was recorded before `concurrency` of a listing was renamed
    // `listers`: written again, its listing has the new name beside the old one.
    let listing = r#""keys":16403,"mode""#;
    let mut log = EventReader::new(Cursor::new(FIXTURE.as_bytes()));
    for line in FIXTURE.lines() {
        let logged = log.next_event().unwrap();
        let expected = match logged.event {
            RunEvent::Listing { .. } => line.replace(listing, r#""keys":16403,"listers":1,"mode""#),
            _ => line.to_string(),
        };
        assert_eq!(
            super::line::encode(logged.id, &logged.event).as_deref(),
            Some(expected.as_str())
        );
    }
}

/// Events as the release before the renames wrote them: one `concurrency` for whatever
/// a phase ran, a listing's `concurrency` and a scan's `head_concurrency`.
const OLD_PHASE_STARTED: &str = r#"{"data":{"concurrency":32,"end":{"until_objects":5000},"objects":0,"phase":{"index":0,"name":"fill","round":null,"section":"before"},"position":0},"event":"phase_started","id":1}"#;
const OLD_LISTING: &str = r#"{"data":{"outcome":{"bucket":"b","bytes":600,"complete":true,"concurrency":4,"cuts":3,"errors":0,"keys":100,"mode":{"alphabet":"ab","depth":1,"mode":"prefix"},"prefix":"p/","ranges":5,"report":null,"requests":9,"seconds":0.5},"phase":{"index":0,"name":"list","round":null,"section":"after"}},"event":"listing","id":3}"#;
const OLD_SCAN: &str = r#"{"data":{"bucket":"b","head_concurrency":16,"head_errors":1,"heads":99,"metadata":{"names":{},"objects":99,"other_names":0,"without_metadata":99},"missing":0,"phase":{"index":1,"name":"scan","round":null,"section":"after"},"seconds":0.25},"event":"metadata_scan","id":2}"#;

fn read_one(line: &str) -> RunEvent {
    EventReader::new(Cursor::new(line.as_bytes()))
        .next_event()
        .unwrap()
        .event
}

#[test]
fn an_old_phase_started_reads_its_one_count_as_the_deprecated_concurrency() {
    match read_one(OLD_PHASE_STARTED) {
        RunEvent::PhaseStarted {
            at_once, objects, ..
        } => {
            assert_eq!(
                at_once,
                AtOnce {
                    concurrency: Some(32),
                    ..AtOnce::default()
                },
                "which count it was the old event does not say"
            );
            assert_eq!(at_once.to_string(), "concurrency 32");
            assert_eq!(objects, 0);
        }
        other => panic!("expected a phase start, got {other:?}"),
    }
    // Written again (as a merge does), it is the line it was.
    let event = read_one(OLD_PHASE_STARTED);
    assert_eq!(
        super::line::encode(1, &event).as_deref(),
        Some(OLD_PHASE_STARTED)
    );
}

#[test]
fn an_old_listing_reads_its_concurrency_as_listers() {
    let event = read_one(OLD_LISTING);
    let RunEvent::Listing { outcome, .. } = &event else {
        panic!("expected a listing, got {event:?}");
    };
    assert_eq!(outcome.listers, 4);
    assert_eq!((outcome.keys, outcome.requests, outcome.cuts), (100, 9, 3));
    let written: serde_json::Value =
        serde_json::from_str(&super::line::encode(3, &event).unwrap()).unwrap();
    let o = &written["data"]["outcome"];
    assert_eq!(o["listers"], 4);
    assert_eq!(o["concurrency"], 4, "the old name, until the next release");
}

#[test]
fn an_old_metadata_scan_reads_its_head_concurrency_as_head_workers() {
    let event = read_one(OLD_SCAN);
    let RunEvent::MetadataScan(scan) = &event else {
        panic!("expected a metadata scan, got {event:?}");
    };
    assert_eq!(scan.head_workers, 16);
    assert_eq!((scan.heads, scan.head_errors), (99, 1));
    let written: serde_json::Value =
        serde_json::from_str(&super::line::encode(2, &event).unwrap()).unwrap();
    assert_eq!(written["data"]["head_workers"], 16);
    assert_eq!(
        written["data"]["head_concurrency"], 16,
        "the old name, until the next release"
    );
}

#[test]
fn a_phase_started_names_each_count_and_the_old_one_until_the_next_release() {
    let event = RunEvent::PhaseStarted {
        phase: crate::PhaseRef {
            section: crate::Section::After,
            round: None,
            index: 0,
            name: "scan".into(),
        },
        position: 3,
        end: crate::PhaseEnd::ListOnce,
        at_once: AtOnce {
            listers: Some(4),
            head_workers: Some(16),
            ..AtOnce::default()
        }
        .with_concurrency(),
        objects: 7,
        index: Vec::new(),
        verify: false,
        rate: None,
    };
    let line = super::line::encode(5, &event).unwrap();
    let data = &serde_json::from_str::<serde_json::Value>(&line).unwrap()["data"];
    assert_eq!(data["listers"], 4);
    assert_eq!(data["head_workers"], 16);
    assert_eq!(
        data["concurrency"], 16,
        "a scan's old count was its HEAD workers"
    );
    match &event {
        RunEvent::PhaseStarted { at_once, .. } => {
            assert_eq!(at_once.to_string(), "listers 4, head_workers 16")
        }
        _ => unreachable!(),
    }
    for absent in ["workers", "in_flight", "parts_in_flight"] {
        assert!(data.get(absent).is_none(), "{absent}: {line}");
    }
    match read_one(&line) {
        RunEvent::PhaseStarted { at_once, .. } => assert_eq!(
            at_once,
            AtOnce {
                listers: Some(4),
                head_workers: Some(16),
                concurrency: Some(16),
                ..AtOnce::default()
            }
        ),
        other => panic!("expected a phase start, got {other:?}"),
    }
}

#[test]
fn the_listings_of_an_old_log_read_under_the_new_names() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{OLD_PHASE_STARTED}\n{OLD_SCAN}\n{OLD_LISTING}\n");
    std::fs::write(dir.path().join(EVENTS_FILE), text).unwrap();
    let report = crate::read_listings(dir.path());
    assert_eq!(report.listings.len(), 1);
    assert_eq!(report.listings[0].outcome.listers, 4);
    assert_eq!(report.lines.len(), 1);
    assert_eq!(report.lines[0].listers, 4);
    assert_eq!(report.metadata_scans.len(), 1);
    assert_eq!(report.metadata_scans[0].scan.head_workers, 16);
    // What the API answers: each count under its name, and the old one beside it.
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["listings"][0]["outcome"]["listers"], 4);
    assert_eq!(json["listings"][0]["outcome"]["concurrency"], 4);
    assert_eq!(json["lines"][0]["listers"], 4);
    assert_eq!(json["lines"][0]["concurrency"], 4);
    assert_eq!(json["metadata_scans"][0]["head_workers"], 16);
    assert_eq!(json["metadata_scans"][0]["head_concurrency"], 16);
    let back: crate::ListingsReport = serde_json::from_value(json).unwrap();
    assert_eq!(back.lines[0].listers, 4);
    assert_eq!(back.metadata_scans[0].scan.head_workers, 16);
}
