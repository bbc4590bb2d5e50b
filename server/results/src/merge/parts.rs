//! The runs a merge reads: each one's manifest, summary, plan, workload and start time,
//! checked to be shards of one workload.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::error::ResultsError;
use crate::files::{PLAN_FILE, WORKLOAD_FILE};
use crate::manifest::Manifest;
use crate::merged_part::MergedPart;
use crate::run_status::RunStatus;
use crate::shard::Shard;
use crate::store::ResultStore;
use crate::summary::Summary;

/// Why runs cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("nothing to merge: give the run folders of a workload's shards")]
    NoRuns,
    #[error("{0}: not a run folder (it has no manifest.json)")]
    NotARun(PathBuf),
    #[error(
        "{first} ran workload {first_workload:?} and {other} ran {other_workload:?}: only the \
         shards of one workload merge"
    )]
    OtherWorkload {
        first: String,
        first_workload: String,
        other: String,
        other_workload: String,
    },
    #[error(
        "{first} and {other} ran different workload files under one name: only the shards of \
         one workload merge"
    )]
    OtherWorkloadText { first: String, other: String },
    #[error("{first} and {other} are both shard {shard}")]
    SameShard {
        first: String,
        other: String,
        shard: Shard,
    },
    #[error(
        "{first} is shard {first_shard} and {other} is shard {other_shard}: a merge takes shards of one split"
    )]
    OtherSplit {
        first: String,
        first_shard: Shard,
        other: String,
        other_shard: Shard,
    },
    #[error("{0} exists: a merge writes a new run folder")]
    OutputExists(PathBuf),
    #[error("{path}: {message}")]
    Unreadable { path: PathBuf, message: String },
    #[error(transparent)]
    Results(#[from] ResultsError),
}

/// One run being merged.
pub(super) struct Part {
    pub dir: PathBuf,
    pub run_id: String,
    pub manifest: Manifest,
    pub summary: Summary,
    pub plan: serde_json::Value,
    pub workload_text: String,
    pub shard: Shard,
    /// When the run started, in milliseconds since the epoch: its interval times count
    /// from here.
    pub start_epoch_ms: u64,
}

impl Part {
    pub fn describe(&self) -> MergedPart {
        MergedPart {
            run_id: self.run_id.clone(),
            shard: self.shard,
            host: self.manifest.host.clone(),
            status: self.manifest.observed_status(),
            started_at: self.manifest.started_at.clone(),
            resumed_at: self.manifest.resumed_at.clone(),
            totals: self.summary.totals.clone(),
        }
    }
}

fn unreadable(path: &Path, message: impl ToString) -> MergeError {
    MergeError::Unreadable {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// The runs in `dirs`; each one's times moved by its entry in `clock_offsets_ms` (the
/// reference clock minus its host's, ms; none given: 0).
pub(super) fn load(dirs: &[PathBuf], clock_offsets_ms: &[i64]) -> Result<Vec<Part>, MergeError> {
    if dirs.is_empty() {
        return Err(MergeError::NoRuns);
    }
    let mut parts = Vec::with_capacity(dirs.len());
    for (i, dir) in dirs.iter().enumerate() {
        if !dir.join(crate::MANIFEST_FILE).is_file() {
            return Err(MergeError::NotARun(dir.clone()));
        }
        let manifest = ResultStore::read_manifest(dir)?;
        let summary = ResultStore::read_summary_or_empty(dir, &manifest.run_id)?;
        let plan_path = dir.join(PLAN_FILE);
        let plan = std::fs::read_to_string(&plan_path)
            .map_err(|e| unreadable(&plan_path, e))
            .and_then(|t| serde_json::from_str(&t).map_err(|e| unreadable(&plan_path, e)))?;
        let workload_path = dir.join(WORKLOAD_FILE);
        let workload_text =
            std::fs::read_to_string(&workload_path).map_err(|e| unreadable(&workload_path, e))?;
        let started = humantime::parse_rfc3339(&manifest.started_at)
            .map_err(|e| unreadable(&dir.join(crate::MANIFEST_FILE), format!("started_at: {e}")))?;
        let start_epoch_ms = started
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
            .saturating_add(clock_offsets_ms.get(i).copied().unwrap_or(0))
            .max(0) as u64;
        parts.push(Part {
            dir: dir.clone(),
            run_id: manifest.run_id.clone(),
            shard: manifest.run_overrides().shard.unwrap_or(Shard::WHOLE),
            manifest,
            summary,
            plan,
            workload_text,
            start_epoch_ms,
        });
    }
    parts.sort_by_key(|p| (p.shard.index, p.start_epoch_ms));
    Ok(parts)
}

/// Refuses parts that are not shards of one workload; warns of what is missing.
pub(super) fn check(parts: &[Part]) -> Result<Vec<String>, MergeError> {
    let first = &parts[0];
    let mut seen: BTreeMap<u32, &str> = BTreeMap::new();
    let mut warnings = Vec::new();
    for part in parts {
        if part.manifest.workload != first.manifest.workload {
            return Err(MergeError::OtherWorkload {
                first: first.run_id.clone(),
                first_workload: first.manifest.workload.clone(),
                other: part.run_id.clone(),
                other_workload: part.manifest.workload.clone(),
            });
        }
        if part.workload_text != first.workload_text {
            return Err(MergeError::OtherWorkloadText {
                first: first.run_id.clone(),
                other: part.run_id.clone(),
            });
        }
        if part.shard.count != first.shard.count {
            return Err(MergeError::OtherSplit {
                first: first.run_id.clone(),
                first_shard: first.shard,
                other: part.run_id.clone(),
                other_shard: part.shard,
            });
        }
        if let Some(earlier) = seen.insert(part.shard.index, &part.run_id) {
            return Err(MergeError::SameShard {
                first: earlier.to_string(),
                other: part.run_id.clone(),
                shard: part.shard,
            });
        }
        let status = part.manifest.observed_status();
        if status != RunStatus::Completed {
            warnings.push(format!(
                "{} (shard {}) is {}: the merge holds what it recorded",
                part.run_id,
                part.shard,
                status.as_str()
            ));
        }
    }
    let missing: Vec<String> = (0..first.shard.count)
        .filter(|i| !seen.contains_key(i))
        .map(|i| format!("{i}/{}", first.shard.count))
        .collect();
    if !missing.is_empty() {
        warnings.push(format!(
            "shard{} {} missing: the merged run covers {} of {} shards",
            if missing.len() == 1 { " is" } else { "s are" },
            missing.join(", "),
            parts.len(),
            first.shard.count
        ));
    }
    Ok(warnings)
}

/// The labels every part carries alike (the shard label aside), and `shards=N`.
pub(super) fn common_labels(parts: &[Part]) -> BTreeMap<String, String> {
    let mut labels = parts[0].manifest.labels.clone();
    labels.remove("shard");
    labels.retain(|k, v| parts.iter().all(|p| p.manifest.labels.get(k) == Some(v)));
    labels.insert("shards".to_string(), parts[0].shard.count.to_string());
    labels
}

/// The endpoints the parts sent to, in the parts' order, each once: one for a run whose
/// processes all reached the store one way, a comma list where hosts had their own.
pub(super) fn endpoints(parts: &[Part]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for p in parts {
        if !seen.contains(&p.manifest.endpoint.as_str()) {
            seen.push(&p.manifest.endpoint);
        }
    }
    seen.join(", ")
}

/// The endpoints each part drove, by the part's numbering (`@E` in its histogram
/// log): its list, or its one endpoint (none for the embedded target).
pub(super) fn part_endpoints(part: &Part) -> Vec<String> {
    if !part.manifest.endpoints.is_empty() {
        part.manifest.endpoints.clone()
    } else if part.manifest.endpoint == "embedded" {
        Vec::new()
    } else {
        vec![part.manifest.endpoint.clone()]
    }
}

/// Every endpoint of the parts, each once, in the parts' order, when there are several
/// (the merged run's results break down by them); empty for one.
pub(super) fn endpoint_list(parts: &[Part]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for url in parts.iter().flat_map(part_endpoints) {
        if !seen.contains(&url) {
            seen.push(url);
        }
    }
    if seen.len() > 1 { seen } else { Vec::new() }
}

/// The buckets the parts worked on, each once, in the parts' order.
pub(super) fn buckets(parts: &[Part]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for b in parts.iter().flat_map(|p| &p.manifest.buckets) {
        if !seen.contains(b) {
            seen.push(b.clone());
        }
    }
    seen
}

/// Completed when every part completed; otherwise how the worst part ended.
pub(super) fn merged_status(parts: &[Part]) -> RunStatus {
    let rank = |s: RunStatus| match s {
        RunStatus::Completed => 0,
        RunStatus::Running => 1,
        RunStatus::Interrupted => 2,
        RunStatus::Killed => 3,
        RunStatus::Aborted => 4,
        RunStatus::Failed => 5,
    };
    parts
        .iter()
        .map(|p| p.manifest.observed_status())
        .max_by_key(|s| rank(*s))
        .unwrap_or(RunStatus::Completed)
}

/// Copies the files of a run folder (and its sub-folders) to `to`.
pub(super) fn copy_dir(from: &Path, to: &Path) -> Result<(), MergeError> {
    std::fs::create_dir_all(to).map_err(|e| unreadable(to, e))?;
    let entries = std::fs::read_dir(from).map_err(|e| unreadable(from, e))?;
    let names: BTreeSet<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    for path in names {
        let target = to.join(path.file_name().unwrap_or_default());
        if path.is_dir() {
            copy_dir(&path, &target)?;
        } else {
            std::fs::copy(&path, &target).map_err(|e| unreadable(&path, e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::timestamp;
    use crate::manifest::{Manifest, RunStatus};

    fn run_folder(root: &Path, run_id: &str, started_ms: u64) -> PathBuf {
        let manifest = Manifest {
            format_version: crate::FORMAT_VERSION,
            run_id: run_id.to_string(),
            keystorm_version: "0".to_string(),
            workload: "w".to_string(),
            workload_file: None,
            host: "h".to_string(),
            endpoint: "http://127.0.0.1:1".to_string(),
            endpoints: Vec::new(),
            client: "aws".to_string(),
            seed: 1,
            labels: Default::default(),
            started_at: timestamp(
                std::time::UNIX_EPOCH + std::time::Duration::from_millis(started_ms),
            ),
            ended_at: None,
            status: RunStatus::Completed,
            error: None,
            created_buckets: Vec::new(),
            buckets: Vec::new(),
            resumed_at: Vec::new(),
            command_line: Vec::new(),
            overrides: Default::default(),
            peak_rss_kib: None,
            peak_rss_anon_kib: None,
            process: None,
            cleanup: None,
            merged_from: Vec::new(),
            findings: None,
            expect: Vec::new(),
            stopped_by_threshold: None,
            latency_clock: None,
        };
        ResultStore::create(root, &manifest, "name: w", &serde_json::json!({}), 0.0).unwrap();
        root.join(run_id)
    }

    #[test]
    fn the_merged_endpoint_names_each_parts_endpoint_once() {
        let dir = tempfile::tempdir().unwrap();
        let folders: Vec<PathBuf> = ["a", "b", "c"]
            .iter()
            .map(|id| run_folder(dir.path(), id, 1_764_000_000_000))
            .collect();
        let parts = load(&folders, &[]).unwrap();
        assert_eq!(endpoints(&parts), "http://127.0.0.1:1");
        let mut manifest = ResultStore::read_manifest(&folders[1]).unwrap();
        manifest.endpoint = "http://127.0.0.1:2".to_string();
        ResultStore::open_append(&folders[1])
            .unwrap()
            .write_manifest(&manifest)
            .unwrap();
        let parts = load(&folders, &[]).unwrap();
        assert_eq!(endpoints(&parts), "http://127.0.0.1:1, http://127.0.0.1:2");
    }

    #[test]
    fn each_part_is_timed_on_the_reference_clock_by_its_offset() {
        let dir = tempfile::tempdir().unwrap();
        let started = 1_764_000_000_000;
        let a = run_folder(dir.path(), "a", started);
        let b = run_folder(dir.path(), "b", started);
        let parts = load(&[a.clone(), b.clone()], &[1_500, -2_000]).unwrap();
        let mut starts: Vec<u64> = parts.iter().map(|p| p.start_epoch_ms).collect();
        starts.sort();
        assert_eq!(starts, vec![started - 2_000, started + 1_500]);
        let parts = load(&[a, b], &[]).unwrap();
        assert!(parts.iter().all(|p| p.start_epoch_ms == started));
    }
}
