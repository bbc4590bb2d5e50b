//! What agents and their controller say to each other, as JSON over HTTP. Agents dial
//! the controller (they need no open port): they register, then heartbeat; the reply
//! to a heartbeat carries the controller's orders. Target credentials never cross
//! this link: an agent reads its own (environment, profile, mounted secret).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How often an agent heartbeats.
pub const HEARTBEAT_MS: u64 = 500;
/// An agent silent this long is lost.
pub const LOST_AFTER_MS: u64 = 5_000;
/// A clock offset past this is a warning: intervals are one second long.
pub const OFFSET_WARNING_MS: i64 = 250;
/// At most this much news goes in one heartbeat (a backlog drains over a few).
pub const MAX_NEWS_PER_BEAT: usize = 32;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "name": "agent-0", "host": "client-a", "version": env!("CARGO_PKG_VERSION"), "cores": 8
}))]
pub struct RegisterRequest {
    /// Unique among the controller's agents; an agent restarted under its name takes
    /// its shard back. Not only dots.
    #[schema(
        pattern = r"^[A-Za-z0-9._-]*[A-Za-z0-9_-][A-Za-z0-9._-]*$",
        min_length = 1,
        max_length = 64
    )]
    pub name: String,
    /// The agent's host name, as the Agents page shows it: printable (no control
    /// character, invisible format character, line separator or noncharacter; past
    /// U+FFFF too, where the pattern does not reach).
    #[schema(
        pattern = r"^[^\x00-\x1F\x7F-\x9F\xAD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFDD0-\uFDEF\uFEFF\uFFF9-\uFFFB\uFFFE\uFFFF]*$",
        max_length = 255
    )]
    pub host: String,
    /// The agent's keystorm version: it must be the controller's. Printable.
    #[schema(
        pattern = r"^[^\x00-\x1F\x7F-\x9F\xAD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFDD0-\uFDEF\uFEFF\uFFF9-\uFFFB\uFFFE\uFFFF]+$",
        max_length = 64
    )]
    pub version: String,
    #[serde(deserialize_with = "crate::whole_number::deserialize")]
    #[schema(format = Int64, maximum = 4294967295.0)]
    pub cores: u32,
    /// The endpoint it uses in place of the run's (`keystorm agent --endpoint`), if it
    /// was given one: the Agents page shows which store each agent drives. A URL
    /// without credentials. Printable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(
        pattern = r"^[^\x00-\x1F\x7F-\x9F\xAD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFDD0-\uFDEF\uFEFF\uFFF9-\uFFFB\uFFFE\uFFFF@]+$",
        max_length = 2048
    )]
    pub endpoint: Option<String>,
}

/// The header every call of a registered agent carries its key in (see
/// [`Registered::agent_key`]).
pub const AGENT_KEY_HEADER: &str = "X-Keystorm-Agent-Key";

#[derive(Clone, Serialize, Deserialize, ToSchema)]
pub struct Registered {
    pub agent_id: String,
    /// The agent's own secret for this registration (64 hex digits): every later call
    /// of the agent (`/api/agents/{agent_id}/...`) carries it in the
    /// `X-Keystorm-Agent-Key` header, so no other caller can act as this agent. The
    /// controller keeps only its digest, and gives a new one with every registration.
    #[schema(pattern = r"^[0-9a-f]{64}$")]
    pub agent_key: String,
    /// Milliseconds between heartbeats.
    pub heartbeat_ms: u64,
    /// The controller's clock (Unix ms) when it answered.
    pub controller_ms: u64,
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered")
            .field("agent_id", &self.agent_id)
            .field("agent_key", &"<secret>")
            .field("heartbeat_ms", &self.heartbeat_ms)
            .field("controller_ms", &self.controller_ms)
            .finish()
    }
}

/// What an agent is doing, as it says in each heartbeat.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    /// The agent's clock (Unix ms) when it sent this.
    #[serde(deserialize_with = "crate::whole_number::deserialize")]
    pub sent_ms: u64,
    /// Its clock's offset to the controller's (controller minus agent, ms), measured
    /// from the previous heartbeat's round trip.
    #[serde(default, deserialize_with = "crate::whole_number::option")]
    pub offset_ms: Option<i64>,
    /// The target's `Date` header minus the agent's clock (ms), when known.
    #[serde(default, deserialize_with = "crate::whole_number::option")]
    pub target_skew_ms: Option<i64>,
    /// The shard it runs, if any.
    pub shard: Option<ShardReport>,
}

/// How an agent's shard is getting on.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShardReport {
    #[schema(pattern = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")]
    pub run_id: String,
    #[serde(deserialize_with = "crate::whole_number::deserialize")]
    #[schema(format = Int64, maximum = 4294967295.0)]
    pub index: u32,
    /// The agent's own run folder (its id in the agent's results folder).
    #[schema(pattern = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")]
    pub local_run_id: Option<String>,
    /// The phase it runs ("round 2 · write"), if one has started. Printable.
    #[schema(
        pattern = r"^[^\x00-\x1F\x7F-\x9F\xAD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFDD0-\uFDEF\uFEFF\uFFF9-\uFFFB\uFFFE\uFFFF]*$",
        max_length = 256
    )]
    pub phase: Option<String>,
    /// Operations done in the running phase.
    #[serde(deserialize_with = "crate::whole_number::deserialize")]
    pub operations: u64,
    /// Names this run of the shard on this agent (a restart picks another), so news
    /// numbers start again with it.
    #[serde(default, deserialize_with = "crate::whole_number::deserialize")]
    pub stream: u64,
    /// What the shard did since the news the controller last took, oldest first: the
    /// controller merges it into the run's live view.
    #[serde(default)]
    #[schema(max_items = 32)]
    pub news: Vec<ShardNews>,
}

/// One piece of a shard's news: an interval or an event. Both are read leniently: what
/// the controller cannot read is left out of the live view (the merge at the end reads
/// the shard's own files).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShardNews {
    /// Numbers the stream's news from 0: news sent again (its answer was lost) counts
    /// once.
    #[serde(deserialize_with = "crate::whole_number::deserialize")]
    pub seq: u64,
    /// An interval with its histograms: `{at_ms, record, progress, histograms}`, where
    /// `at_ms` is its start on the controller's clock, `record` an `IntervalRecord`,
    /// `progress` a `PhaseProgress`, and `histograms` the latency histogram (µs) of
    /// each operation in HdrHistogram's compressed encoding, base64.
    #[serde(default, deserialize_with = "object_or_null")]
    #[schema(value_type = Option<Object>)]
    pub interval: Option<serde_json::Value>,
    /// A phase start, warning, reshard or stall, as a `RunEvent` (`{event, data}`).
    #[serde(default, deserialize_with = "object_or_null")]
    #[schema(value_type = Option<Object>)]
    pub event: Option<serde_json::Value>,
}

/// An object, or null: news is read leniently inside the object, but anything else
/// (a number, a string) is refused as the document says.
fn object_or_null<'de, D>(d: D) -> Result<Option<serde_json::Value>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    match Option::<serde_json::Value>::deserialize(d)? {
        None => Ok(None),
        Some(object @ serde_json::Value::Object(_)) => Ok(Some(object)),
        Some(other) => Err(serde::de::Error::custom(format!(
            "expected an object or null, not {other}"
        ))),
    }
}

/// One interval of a shard with its latency histograms, as news carries it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentInterval {
    /// Its start on the controller's clock (Unix ms): the agent's clock corrected by
    /// its measured offset.
    pub at_ms: u64,
    pub record: keystorm_results::IntervalRecord,
    pub progress: keystorm_results::PhaseProgress,
    /// Per operation, its latency histogram (µs) in HdrHistogram's compressed
    /// encoding, base64.
    pub histograms: BTreeMap<keystorm_types::OpKind, String>,
    /// A shard that drives several endpoints: each one's histograms, by URL and
    /// operation, encoded the same way.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub endpoint_histograms: Vec<(String, keystorm_types::OpKind, String)>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct HeartbeatReply {
    /// The controller's clock (Unix ms) when it answered.
    pub controller_ms: u64,
    pub order: Option<Order>,
}

/// What the controller wants an agent to do.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Order {
    /// Run one shard of a run.
    Run(Assignment),
    /// Stop the shard of this run (finish in-flight requests, write and send results).
    Stop { run_id: String },
}

/// One shard of a run, given to an agent.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Assignment {
    pub run_id: String,
    pub index: u32,
    pub count: u32,
    /// The workload's YAML text.
    pub workload: String,
    /// Where it came from (for the agent's manifest).
    pub workload_file: Option<String>,
    /// The endpoint the run uses instead of the workload's, if any.
    pub endpoint: Option<String>,
    pub labels: BTreeMap<String, String>,
    /// The shard's run folder to resume: the agent's own if it has it (a restarted
    /// agent), otherwise the copy the controller holds (an agent taking a lost shard
    /// over).
    pub resume: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BarrierRequest {
    #[schema(pattern = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")]
    pub run_id: String,
    /// The phase's number in the run's schedule (0-based).
    #[serde(deserialize_with = "crate::whole_number::deserialize")]
    #[schema(format = Int64, maximum = 4294967295.0)]
    pub phase: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BarrierReply {
    /// Every shard is there: start the phase. `false`: ask again.
    pub open: bool,
    /// The run was stopped or aborted: do not start the phase.
    pub abort: Option<String>,
}

/// A shard's search asks for its next step: the controller chooses every step of a
/// search run over agents, on all the shards' measures of the steps before merged.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchStepRequest {
    #[schema(pattern = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")]
    pub run_id: String,
    /// The search phase's number in the run's schedule (0-based).
    #[serde(deserialize_with = "crate::whole_number::deserialize")]
    #[schema(format = Int64, maximum = 4294967295.0)]
    pub phase: u32,
    /// How many steps of the search the shard has run whole (its rows hold them).
    #[serde(deserialize_with = "crate::whole_number::deserialize")]
    #[schema(format = Int64, maximum = 4294967295.0)]
    pub step: u32,
    /// What it measured of the step it ran since it last asked, if it ran one.
    #[serde(default)]
    pub report: Option<SentStep>,
}

/// One shard's measure of one step of a search.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SentStep {
    /// The step's number, as the controller gave it.
    #[serde(deserialize_with = "crate::whole_number::deserialize")]
    #[schema(format = Int64, maximum = 4294967295.0)]
    pub step: u32,
    /// The shard's summary rows of the step, one per operation.
    #[schema(max_items = 5)]
    pub rows: Vec<keystorm_results::SummaryRow>,
    /// Per operation, its latency histogram (µs, warm-up left out) in HdrHistogram's
    /// compressed encoding, base64.
    pub histograms: BTreeMap<keystorm_types::OpKind, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SearchStepReply {
    /// What the shard does next; none: the step before is not judged yet (some shard
    /// has not reported it): ask again.
    pub order: Option<SearchStepOrder>,
    /// The run was stopped or aborted: do not run another step.
    pub abort: Option<String>,
}

/// A search's next step, or its end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SearchStepOrder {
    /// Run step `step` at `rate` operations a second (the whole run's: each of N shards
    /// sends a Nth), its `repeat`-th run at that rate.
    Run { step: u32, rate: f64, repeat: u32 },
    /// The search ended: its result, for the shard's summary.
    Done {
        result: keystorm_results::SearchResult,
    },
}

/// A shard ended and its files were sent.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShardDone {
    #[schema(pattern = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")]
    pub run_id: String,
    /// The agent's run folder of the shard (sent file by file before this).
    #[schema(pattern = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")]
    pub local_run_id: Option<String>,
    /// Why the shard could not run (or its results could not be sent whole), if so.
    /// Printable, but for newlines and tabs.
    #[schema(
        pattern = r"^[^\x00-\x08\x0B-\x1F\x7F-\x9F\xAD\u0600-\u0605\u061C\u06DD\u070F\u0890\u0891\u08E2\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFDD0-\uFDEF\uFEFF\uFFF9-\uFFFB\uFFFE\uFFFF]*$",
        max_length = 4096
    )]
    pub error: Option<String>,
}

/// What the controller holds of a shard's run folder: the files the agent sent so far
/// and their lengths. An agent sends what is beyond them; one taking the shard over
/// fetches them to resume it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PartListing {
    pub files: Vec<PartFileLength>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PartFileLength {
    pub name: String,
    pub length: u64,
}

/// Unix milliseconds now.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::{Registered, ShardNews};

    #[test]
    fn a_registrations_key_is_never_in_its_debug_output() {
        let registered = Registered {
            agent_id: "agent-1-1".to_string(),
            agent_key: "0123456789abcdef".repeat(4),
            heartbeat_ms: 500,
            controller_ms: 1,
        };
        let shown = format!("{registered:?}");
        assert!(shown.contains("agent-1-1"), "{shown}");
        assert!(!shown.contains("0123456789abcdef"), "{shown}");
    }

    #[test]
    fn news_is_an_object_or_null() {
        let read = |text: &str| serde_json::from_str::<ShardNews>(text);
        assert!(read(r#"{"seq": 1, "event": {"event": "warning", "data": {}}}"#).is_ok());
        assert!(read(r#"{"seq": 1, "interval": null}"#).is_ok());
        assert!(read(r#"{"seq": 1}"#).is_ok());
        let refused = read(r#"{"seq": 1, "event": 70}"#).unwrap_err();
        assert!(
            refused.to_string().contains("expected an object or null"),
            "{refused}"
        );
        assert!(read(r#"{"seq": 1, "interval": "x"}"#).is_err());
    }
}
