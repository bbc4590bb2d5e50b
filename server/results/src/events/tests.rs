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
    let mut log = EventReader::new(Cursor::new(FIXTURE.as_bytes()));
    for line in FIXTURE.lines() {
        let logged = log.next_event().unwrap();
        assert_eq!(
            super::line::encode(logged.id, &logged.event).as_deref(),
            Some(line)
        );
    }
}
