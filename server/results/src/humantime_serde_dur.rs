//! A duration in plan.json and the event log as people write it (`30s`, `1h 5m`).

use std::time::Duration;

pub fn serialize<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&humantime::format_duration(*d).to_string())
}

/// Read back from the event log (`{"duration": "30s"}`).
pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let text = <String as serde::Deserialize>::deserialize(d)?;
    humantime::parse_duration(&text).map_err(serde::de::Error::custom)
}
