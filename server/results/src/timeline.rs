//! Everything that happened in the middle of a run, in one list ordered by time: pauses
//! (stopped and resumed, a controller gone, a shard waiting to be taken over), agents
//! lost and back, shards taken over, a controller cut off or restarted, endpoints lost
//! and back, the bucket index resharded, writes stalled. `keystorm show`
//! prints it, the API serves it, and the run page and the report draw it: read from the
//! event log, bounded, so a run that flaps for days does not grow the answer.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::FleetEventKind;
use crate::endpoints::EndpointState;
use crate::events::{EventReader, Logged, RunEvent};

/// At most this many entries are listed; the rest are counted.
pub const MAX_TIMELINE_ENTRIES: usize = 1_000;

/// What kind of thing happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TimelineKind {
    /// The run (or a shard of it) did not run from `t_s` to `until_t_s`.
    Pause,
    EndpointDown,
    EndpointUp,
    /// A bucket's index changed its shard count between `t_s` and `until_t_s`.
    Reshard,
    /// Writes stalled from `t_s` to `until_t_s`.
    Stall,
    /// In a run across agents: an agent stopped heartbeating (`shard`: the one it held).
    AgentLost,
    AgentBack,
    /// A lost agent's shard given to another agent.
    Takeover,
    /// No agent heard for long: the controller itself was cut off or stalled.
    ControllerCutOff,
    /// The controller started again and picked the run up.
    ControllerRestart,
}

impl From<FleetEventKind> for TimelineKind {
    fn from(kind: FleetEventKind) -> TimelineKind {
        match kind {
            FleetEventKind::AgentLost => TimelineKind::AgentLost,
            FleetEventKind::AgentBack => TimelineKind::AgentBack,
            FleetEventKind::Takeover => TimelineKind::Takeover,
            FleetEventKind::ControllerCutOff => TimelineKind::ControllerCutOff,
            FleetEventKind::ControllerRestart => TimelineKind::ControllerRestart,
        }
    }
}

/// One thing that happened, when, in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TimelineEntry {
    /// Seconds from the run's first start.
    pub t_s: f64,
    /// Where it lasted: when it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_t_s: Option<f64>,
    pub kind: TimelineKind,
    /// A pause: why (`interrupted`, `killed`, `controller_gone`, `taken_over`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<crate::PauseReason>,
    /// In a merged run, the shard it concerns (`1/2`): a shard's pause is time the
    /// other shards went on; none: the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    pub text: String,
}

/// A run's timeline.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Timeline {
    /// In the order of `t_s`, the first 1,000.
    pub entries: Vec<TimelineEntry>,
    /// Entries past those, counted but not listed.
    pub omitted: u64,
}

impl Timeline {
    /// The pauses: the spans charts break their lines over.
    pub fn pauses(&self) -> impl Iterator<Item = &TimelineEntry> {
        self.entries
            .iter()
            .filter(|e| e.kind == TimelineKind::Pause)
    }
}

/// The timeline of the run in `dir` (empty before it logged anything).
pub fn read_timeline(dir: &Path) -> Timeline {
    let mut timeline = Timeline::default();
    let Some(mut log) = EventReader::open(dir) else {
        return timeline;
    };
    while let Some(Logged { event, .. }) =
        log.next_of(&["pause", "endpoint", "reshard", "stall", "fleet"])
    {
        let Some(entry) = entry_of(&event) else {
            continue;
        };
        if timeline.entries.len() < MAX_TIMELINE_ENTRIES {
            timeline.entries.push(entry);
        } else {
            timeline.omitted += 1;
        }
    }
    timeline.entries.sort_by(|a, b| a.t_s.total_cmp(&b.t_s));
    timeline
}

fn entry_of(event: &RunEvent) -> Option<TimelineEntry> {
    Some(match event {
        RunEvent::Pause(p) => TimelineEntry {
            t_s: p.from_t_s,
            until_t_s: Some(p.to_t_s),
            kind: TimelineKind::Pause,
            reason: Some(p.reason),
            shard: p.shard.clone(),
            text: p.describe(),
        },
        RunEvent::Endpoint(e) => TimelineEntry {
            t_s: e.t_s,
            until_t_s: None,
            kind: match e.state {
                EndpointState::Down => TimelineKind::EndpointDown,
                EndpointState::Up => TimelineKind::EndpointUp,
            },
            reason: None,
            shard: None,
            text: e.describe(),
        },
        RunEvent::Reshard(r) => TimelineEntry {
            t_s: r.start_t_s,
            until_t_s: Some(r.end_t_s),
            kind: TimelineKind::Reshard,
            reason: None,
            shard: None,
            text: format!(
                "bucket {}: index resharded {} -> {} shards at {} objects",
                r.bucket, r.from_shards, r.to_shards, r.objects
            ),
        },
        RunEvent::Stall(s) => TimelineEntry {
            t_s: s.start_t_s,
            until_t_s: Some(s.end_t_s),
            kind: TimelineKind::Stall,
            reason: None,
            shard: None,
            text: format!(
                "{}: writes stalled ({})",
                match s.phase.round {
                    Some(r) => format!("round {r} {}", s.phase.name),
                    None => format!("{} {}", s.phase.section.as_str(), s.phase.name),
                },
                s.figures()
            ),
        },
        RunEvent::Fleet(f) => TimelineEntry {
            t_s: f.t_s,
            until_t_s: None,
            kind: f.kind.into(),
            reason: None,
            shard: f.shard.clone(),
            // Its kind and time have columns of their own.
            text: f.detail.clone(),
        },
        _ => return None,
    })
}

/// `  12.3 s-18.3 s  paused 6.0 s (interrupted) …`: one line per entry, for `show`.
pub fn timeline_text(t: &Timeline) -> String {
    let mut out = String::new();
    for e in &t.entries {
        let when = match e.until_t_s {
            Some(u) => format!("{:.1} s-{u:.1} s", e.t_s),
            None => format!("{:.1} s", e.t_s),
        };
        out.push_str(&format!("  {when:>17}  {}\n", e.text));
    }
    if t.omitted > 0 {
        out.push_str(&format!("  ({} more in the run's events)\n", t.omitted));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EndpointEvent, EventWriter, PauseEvent, PauseReason};

    #[test]
    fn pauses_and_endpoint_changes_are_read_back_in_time_order() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_timeline(dir.path()), Timeline::default());
        let mut log = EventWriter::open(dir.path()).unwrap();
        log.append(&RunEvent::Endpoint(EndpointEvent {
            endpoint: "http://gw2:7480".into(),
            state: EndpointState::Down,
            t_s: 20.0,
            phase: None,
            failures: 3,
            detail: "PUT: Connection reset by peer".into(),
        }));
        log.append(&RunEvent::Pause(PauseEvent {
            from_t_s: 4.0,
            to_t_s: 10.0,
            reason: PauseReason::Interrupted,
            phase: None,
            shard: None,
            detail: "resumed on h".into(),
        }));
        drop(log);
        let t = read_timeline(dir.path());
        let kinds: Vec<_> = t.entries.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [TimelineKind::Pause, TimelineKind::EndpointDown]);
        assert_eq!(t.pauses().count(), 1);
        let text = timeline_text(&t);
        assert!(
            text.contains("4.0 s-10.0 s  paused 6.0 s (interrupted) at 4.0 s-10.0 s: resumed on h"),
            "{text}"
        );
        assert!(
            text.contains(
                "20.0 s  endpoint http://gw2:7480 down at 20.0 s after 3 failures (PUT: \
                 Connection reset by peer)"
            ),
            "{text}"
        );
    }
}
