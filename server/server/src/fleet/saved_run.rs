//! The record a controller keeps of the run split over its agents, beside the copies of
//! the shards' folders (`<results>/.incoming/<run>/fleet-run.json`, the copies under
//! `parts/` there: see [`super::incoming`]), so that a controller
//! killed in the middle of a run and started again on the same results folder picks the
//! run up. Agents are named by name, not id: ids belong to one controller's lifetime.
//! Rewritten atomically (temporary file, fsync, rename) on every change that matters,
//! every secret the controller knows redacted; bounded: one entry per shard and the last
//! warnings, nothing per key or operation.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::new_run::NewFleetRun;
use super::run_record::{FleetRun, RunState, Shard};

use keystorm_link::own_names::RECORD_FILE;
/// What an unreadable record is renamed to, so the next start does not trip on it again.
pub const UNREADABLE_SUFFIX: &str = ".unreadable";
/// The record's layout; a controller refuses a record of another.
const FORMAT: u32 = 1;
/// Most warnings kept in the record (the newest).
const MAX_SAVED_WARNINGS: usize = 100;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedRun {
    pub format: u32,
    pub run_id: String,
    pub spec: NewFleetRun,
    pub state: RunState,
    /// Unix ms.
    pub started_at_ms: u64,
    pub stop_reason: Option<String>,
    pub error: Option<String>,
    pub warnings: Vec<String>,
    pub shards: Vec<SavedShard>,
    /// What happened to the run's hosts so far (bounded), so a restart keeps it.
    #[serde(default)]
    pub events: Vec<keystorm_results::FleetEvent>,
    /// The steps its searches chose and how each was judged, by phase.
    #[serde(default)]
    pub searches: std::collections::BTreeMap<u32, super::search_record::FleetSearch>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedShard {
    /// The name of the agent holding the shard.
    pub agent: String,
    pub reached: Option<u32>,
    pub local_run_id: Option<String>,
    pub done: bool,
    pub error: Option<String>,
    pub clock_offset_ms: Option<i64>,
}

impl SavedRun {
    /// The record of `run`; `name_of` turns an agent id into its name.
    pub fn of(run: &FleetRun, name_of: impl Fn(&str) -> String) -> SavedRun {
        let skip = run.warnings.len().saturating_sub(MAX_SAVED_WARNINGS);
        SavedRun {
            format: FORMAT,
            run_id: run.run_id.clone(),
            spec: run.spec.clone(),
            state: run.state,
            started_at_ms: run
                .started_at
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            stop_reason: run.stop_reason.clone(),
            error: run.error.clone(),
            warnings: run.warnings[skip..].to_vec(),
            shards: run
                .shards
                .iter()
                .map(|s| SavedShard {
                    agent: name_of(&s.agent),
                    reached: s.reached,
                    local_run_id: s.local_run_id.clone(),
                    done: s.done,
                    error: s.error.clone(),
                    clock_offset_ms: s.clock_offset_ms,
                })
                .collect(),
            events: run.events.clone(),
            searches: run.searches.clone(),
        }
    }

    /// The run as it was recorded, without its live view; `id_of` gives the id each
    /// holder's name stands for in this controller.
    pub fn into_run(self, id_of: impl Fn(&str) -> String) -> FleetRun {
        FleetRun {
            shards: self
                .shards
                .iter()
                .map(|s| Shard {
                    agent: id_of(&s.agent),
                    reached: s.reached,
                    local_run_id: s.local_run_id.clone(),
                    phase: None,
                    operations: 0,
                    done: s.done,
                    error: s.error.clone(),
                    clock_offset_ms: s.clock_offset_ms,
                    taken_over: None,
                })
                .collect(),
            run_id: self.run_id,
            spec: self.spec,
            state: self.state,
            started_at: UNIX_EPOCH + Duration::from_millis(self.started_at_ms),
            stop_reason: self.stop_reason,
            error: self.error,
            warnings: self.warnings,
            live: None,
            events: self.events,
            searches: self.searches,
        }
    }
}

/// Where the record of the run whose copies are in `incoming` is.
pub fn record_path(incoming: &Path) -> PathBuf {
    incoming.join(RECORD_FILE)
}

/// Why a record could not be written, or cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SavedRunError {
    /// Writing: the file or folder that failed.
    #[error("{}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Encode(serde_json::Error),
    #[error("cannot read it: {0}")]
    Unreadable(std::io::Error),
    #[error("it is not a run record: {0}")]
    NotRecord(serde_json::Error),
    #[error("its format is {0}, this keystorm reads {FORMAT}")]
    OtherFormat(u32),
    #[error("it names {shards} shards for a run on {agents} agents")]
    ShardCount { shards: usize, agents: u32 },
    #[error("it names a shard folder that cannot be one: {0}")]
    ShardFolder(keystorm_link::bounds::BoundsError),
    #[error("it names folder {0} as the folder of two shards")]
    SharedFolder(String),
}

/// Writes the record atomically: a reader (or a controller started after a crash) finds
/// the old record or the new, never half of one. Why not, naming the file that failed.
pub fn write(incoming: &Path, saved: &SavedRun) -> Result<(), SavedRunError> {
    fn failed(path: &Path) -> impl Fn(std::io::Error) -> SavedRunError + '_ {
        move |source| SavedRunError::Write {
            path: path.to_path_buf(),
            source,
        }
    }
    std::fs::create_dir_all(incoming).map_err(failed(incoming))?;
    let path = record_path(incoming);
    let temporary = incoming.join(format!("{RECORD_FILE}.tmp"));
    let json = serde_json::to_string_pretty(saved).map_err(SavedRunError::Encode)?;
    // Whatever the controller knows to be secret (its environment's keys, its tokens)
    // is not written, wherever it appears: a comment of the workload, an agent's error.
    let bytes = keystorm_results::secrets::active()
        .redact_json(&json)
        .into_owned()
        .into_bytes();
    let mut file = std::fs::File::create(&temporary).map_err(failed(&temporary))?;
    file.write_all(&bytes).map_err(failed(&temporary))?;
    file.sync_all().map_err(failed(&temporary))?;
    drop(file);
    std::fs::rename(&temporary, &path).map_err(failed(&path))?;
    // The rename itself survives a power cut once the folder is synced.
    if let Ok(dir) = std::fs::File::open(incoming) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Reads a record; why it cannot be used, if it cannot.
pub fn read(path: &Path) -> Result<SavedRun, SavedRunError> {
    let bytes = std::fs::read(path).map_err(SavedRunError::Unreadable)?;
    let saved: SavedRun = serde_json::from_slice(&bytes).map_err(SavedRunError::NotRecord)?;
    if saved.format != FORMAT {
        return Err(SavedRunError::OtherFormat(saved.format));
    }
    if saved.shards.len() != saved.spec.agents as usize || saved.shards.is_empty() {
        return Err(SavedRunError::ShardCount {
            shards: saved.shards.len(),
            agents: saved.spec.agents,
        });
    }
    // Each names a folder beside the record, which the merge reads and writes, and a
    // folder is one shard's.
    let mut folders = std::collections::BTreeSet::new();
    for folder in saved.shards.iter().filter_map(|s| s.local_run_id.as_ref()) {
        keystorm_link::bounds::check_part_name("folder", folder)
            .map_err(SavedRunError::ShardFolder)?;
        if !folders.insert(folder) {
            return Err(SavedRunError::SharedFolder(folder.clone()));
        }
    }
    Ok(saved)
}
