//! The pause a resumed run went through since it last ran, worked out from what the
//! run left when it stopped: its manifest's end, or, for a process that died, the last
//! interval it recorded.

use std::path::Path;
use std::time::SystemTime;

use crate::manifest::Manifest;
use crate::pause::{PauseEvent, PauseReason};
use crate::phase_ref::PhaseRef;
use crate::run_status::RunStatus;

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
