//! One line of the event log, encoded and decoded: the only place that knows the
//! `{"id", "event", "data"}` layout.

use std::borrow::Cow;

use serde::Deserialize;

use super::RunEvent;

/// An event with its id in the run's log.
#[derive(Debug, Clone)]
pub struct Logged<E = RunEvent> {
    pub id: u64,
    pub event: E,
}

/// An event as logged, not interpreted: its id, its name and its data as JSON text
/// (what a live stream passes on, whatever version of keystorm wrote it).
#[derive(Debug, Clone, PartialEq)]
pub struct RawEvent {
    pub id: u64,
    pub name: String,
    pub data: String,
}

/// Just the id and name of a logged event (the data is skipped, not built).
#[derive(Debug, Clone, PartialEq)]
pub struct EventHead {
    pub id: u64,
    pub name: String,
}

#[derive(Deserialize)]
struct Head<'a> {
    id: u64,
    #[serde(borrow)]
    event: Cow<'a, str>,
}

/// The object written for an event: its fields (`event`, `data`) after `id`.
fn encode_object(id: u64, event: &RunEvent) -> Option<serde_json::Map<String, serde_json::Value>> {
    match serde_json::to_value(event) {
        Ok(serde_json::Value::Object(fields)) => {
            let mut record = serde_json::Map::with_capacity(3);
            record.insert("id".into(), id.into());
            record.extend(fields);
            Some(record)
        }
        _ => None,
    }
}

/// The log line for an event, without its line break, with the secrets of the runs
/// going redacted.
pub(super) fn encode(id: u64, event: &RunEvent) -> Option<String> {
    let line = serde_json::Value::Object(encode_object(id, event)?).to_string();
    Some(crate::secrets::active().redact_json(&line).into_owned())
}

impl RawEvent {
    /// The event as it is logged, for passing on live what readers of the log will see.
    pub fn of(id: u64, event: &RunEvent) -> Option<RawEvent> {
        decode_raw(encode(id, event)?.as_bytes())
    }
}

fn raw_of(value: &serde_json::Value) -> Option<RawEvent> {
    Some(RawEvent {
        id: value.get("id")?.as_u64()?,
        name: value.get("event")?.as_str()?.to_string(),
        data: value.get("data").map(|d| d.to_string()).unwrap_or_default(),
    })
}

/// Any well-formed line, whatever its event; `None` for a torn or foreign line.
pub(super) fn decode_raw(line: &[u8]) -> Option<RawEvent> {
    raw_of(&serde_json::from_slice(line).ok()?)
}

pub(super) fn decode_head(line: &[u8]) -> Option<EventHead> {
    let head: Head<'_> = serde_json::from_slice(line).ok()?;
    Some(EventHead {
        id: head.id,
        name: head.event.into_owned(),
    })
}

/// A known event, when its name is among `names` (all known events without `names`);
/// `None` for a torn line or an event this version does not know.
pub(super) fn decode(line: &[u8], names: Option<&[&str]>) -> Option<Logged> {
    let head: Head<'_> = serde_json::from_slice(line).ok()?;
    if names.is_some_and(|names| !names.contains(&head.event.as_ref())) {
        return None;
    }
    let event = serde_json::from_slice(line).ok()?;
    Some(Logged { id: head.id, event })
}
