//! The spans of a run's clock in which it did not run: stopped (Ctrl-C, a stop
//! request) or killed and resumed, a shard paused while its controller was gone, a lost
//! host's shard waiting to be taken over. Each is an event of the run, so charts break
//! their lines over it and shade it with its reason, `show` lists it, and a row's rate
//! (which divides by the time the phase ran) can be told from its wall-clock rate.

use std::path::Path;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::events::{EventReader, Logged, RunEvent};
use crate::manifest::Manifest;
use crate::phase_ref::PhaseRef;
use crate::run_status::RunStatus;

/// Why a run (or one shard of it) did not run for a while.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PauseReason {
    /// Stopped (Ctrl-C, a stop request), then resumed.
    Interrupted,
    /// Its process died (kill -9, a crash, a reboot), then it was resumed.
    Killed,
    /// A shard's agent lost its controller and paused the shard until it came back.
    ControllerGone,
    /// A lost agent's shard waited for another agent to take it over.
    TakenOver,
}

impl PauseReason {
    pub fn as_str(self) -> &'static str {
        match self {
            PauseReason::Interrupted => "interrupted",
            PauseReason::Killed => "killed",
            PauseReason::ControllerGone => "controller gone",
            PauseReason::TakenOver => "taken over",
        }
    }
}

/// A span of the run's clock in which it (or a shard of it) did not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PauseEvent {
    /// Seconds from the run's first start: when it stopped and when it went on.
    pub from_t_s: f64,
    pub to_t_s: f64,
    pub reason: PauseReason,
    /// The phase it stopped in (none when it stopped between phases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<PhaseRef>,
    /// In a merged run: the shard that paused (`1/4`); none: the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// What happened, in words: `resumed with keystorm run --resume … on host-a`.
    pub detail: String,
}

impl PauseEvent {
    pub fn seconds(&self) -> f64 {
        (self.to_t_s - self.from_t_s).max(0.0)
    }

    /// `paused 6.0 s (interrupted) at 12.3 s-18.3 s: resumed …`.
    pub fn describe(&self) -> String {
        let shard = self
            .shard
            .as_ref()
            .map_or_else(String::new, |s| format!("shard {s} "));
        let phase = self
            .phase
            .as_ref()
            .map_or_else(String::new, |p| match p.round {
                Some(r) => format!(" in round {r} {}", p.name),
                None => format!(" in {} {}", p.section.as_str(), p.name),
            });
        format!(
            "{shard}paused {:.1} s ({}) at {:.1} s-{:.1} s{phase}: {}",
            self.seconds(),
            self.reason.as_str(),
            self.from_t_s,
            self.to_t_s,
            self.detail
        )
    }
}

/// The pause a run being resumed now (`resumed_at`) went through since it last ran:
/// from when it ended (as its manifest says; for a process that died, the end of the
/// last interval it recorded, or else the last thing it wrote) to now. `None` for a
/// run that is not being resumed.
pub fn pause_before_resume(
    dir: &Path,
    before: &Manifest,
    resumed_at: SystemTime,
    phase: Option<PhaseRef>,
    detail: String,
) -> Option<PauseEvent> {
    let started = humantime::parse_rfc3339(&before.started_at).ok()?;
    let t = |at: SystemTime| at.duration_since(started).map_or(0.0, |d| d.as_secs_f64());
    let stopped = match before
        .ended_at
        .as_deref()
        .and_then(|t| humantime::parse_rfc3339(t).ok())
    {
        Some(ended) => t(ended),
        None => last_interval_end(dir).or_else(|| last_written(dir).map(t))?,
    };
    Some(PauseEvent {
        from_t_s: stopped,
        to_t_s: t(resumed_at).max(stopped),
        reason: match before.status {
            RunStatus::Interrupted => PauseReason::Interrupted,
            _ => PauseReason::Killed,
        },
        phase,
        shard: None,
        detail,
    })
}

/// Where the last interval the run in `dir` recorded ends, in seconds from its start
/// (a copy of a lost host's folder has the times of the copy, not of the loss: its
/// intervals say when it stopped). Reads the file's tail only.
fn last_interval_end(dir: &Path) -> Option<f64> {
    use std::io::{Read, Seek, SeekFrom};
    const TAIL: u64 = 256 * 1024;
    let mut file = std::fs::File::open(dir.join(crate::INTERVALS_FILE)).ok()?;
    let length = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(length.saturating_sub(TAIL)))
        .ok()?;
    let mut tail = Vec::new();
    file.take(TAIL).read_to_end(&mut tail).ok()?;
    String::from_utf8_lossy(&tail)
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<crate::IntervalRecord>(line).ok())
        .map(|r| r.t_s + r.duration_s)
}

/// When the run in `dir` last wrote its event log or intervals.
fn last_written(dir: &Path) -> Option<SystemTime> {
    [crate::EVENTS_FILE, crate::INTERVALS_FILE]
        .iter()
        .filter_map(|f| {
            std::fs::metadata(dir.join(f))
                .and_then(|m| m.modified())
                .ok()
        })
        .max()
}

/// Every pause the run in `dir` logged, in order.
pub fn read_pauses(dir: &Path) -> Vec<PauseEvent> {
    let mut pauses = Vec::new();
    if let Some(mut log) = EventReader::open(dir) {
        while let Some(Logged { event, .. }) = log.next_of(&["pause"]) {
            if let RunEvent::Pause(p) = event {
                pauses.push(p);
            }
        }
    }
    pauses
}
