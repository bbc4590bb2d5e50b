//! Reading a run's folder for the API: checked run ids (so no request reaches outside
//! the results folder), the run's headline, and the annotations edited after the run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use keystorm_results::{
    ANNOTATIONS_FILE, EVENTS_FILE, MANIFEST_FILE, Manifest, ResultStore, RunStatus, RunVerdict,
    Summary,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::ApiError;

/// Throughput and p99 of one operation over the whole run.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Headline {
    pub op: String,
    pub ops_per_sec: f64,
    pub p99_us: u64,
}

/// One run as the runs table shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunInfo {
    pub run_id: String,
    pub workload: String,
    pub status: RunStatus,
    /// Labels (as edited after the run, if they were).
    pub labels: BTreeMap<String, String>,
    pub notes: String,
    pub started_at: String,
    pub ended_at: Option<String>,
    /// Wall-clock seconds from start to end (or to now while running).
    pub duration_s: f64,
    /// `embedded` or the endpoint URL.
    pub endpoint: String,
    pub headline: Vec<Headline>,
    /// Why the run stopped before its end (failed or aborted), as it recorded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The buckets the run worked on: the workload's, and those it read from a listing
    /// or a key file (empty for runs recorded before keystorm kept them).
    pub buckets: Vec<String>,
    /// The run's verdict (as recorded when it ended; for a run that recorded none, what
    /// its summary rows say).
    pub verdict: RunVerdict,
}

/// Labels and notes edited after the run; the manifest stays as recorded.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Annotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub notes: String,
}

/// Run ids as keystorm makes them: letters, digits, `-` and `_`, in parts joined by
/// single dots (so never `.`, `..` or a hidden name); at most 128 characters. The
/// OpenAPI document states the same rule ([`super::params::RunIdParam`]).
pub fn is_run_id(id: &str) -> bool {
    id.len() <= 128
        && id.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        })
}

pub fn run_dir(root: &Path, id: &str) -> Result<PathBuf, ApiError> {
    if !is_run_id(id) {
        return Err(ApiError::bad_request(format!("bad run id {id:?}")));
    }
    let dir = root.join(id);
    if dir.join(MANIFEST_FILE).is_file() {
        Ok(dir)
    } else {
        Err(ApiError::not_found(format!("no run {id:?}")))
    }
}

pub fn read_annotations(dir: &Path) -> Annotations {
    std::fs::read_to_string(dir.join(ANNOTATIONS_FILE))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

pub fn write_annotations(dir: &Path, a: &Annotations) -> Result<(), ApiError> {
    let path = dir.join(ANNOTATIONS_FILE);
    let tmp = dir.join(format!("{ANNOTATIONS_FILE}.tmp"));
    let text = serde_json::to_vec_pretty(a).map_err(|e| ApiError::internal(e.to_string()))?;
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, &path))
        .map_err(|e| ApiError::internal(format!("cannot save annotations: {e}")))
}

pub fn read_summary(dir: &Path) -> Option<Summary> {
    ResultStore::read_summary(dir).ok()
}

/// The runs-table view of a run folder. A run whose manifest still says `running` but
/// whose process on this host is gone shows as `killed`, ended at its last event.
pub fn run_info(dir: &Path, manifest: &Manifest) -> RunInfo {
    let annotations = read_annotations(dir);
    let summary = read_summary(dir);
    let verdict = RunVerdict::listed(
        manifest,
        summary
            .as_ref()
            .map(|s| s.rows.as_slice())
            .unwrap_or_default(),
    );
    let headline = summary
        .map(|s| {
            s.totals
                .iter()
                .map(|t| Headline {
                    op: t.op.as_str().to_string(),
                    ops_per_sec: t.stats.ops_per_sec,
                    p99_us: t.stats.latency_us.p99,
                })
                .collect()
        })
        .unwrap_or_default();
    let status = manifest.observed_status();
    let start = humantime::parse_rfc3339(&manifest.started_at).ok();
    let end = manifest
        .ended_at
        .as_deref()
        .and_then(|e| humantime::parse_rfc3339(e).ok())
        .or_else(|| match status {
            RunStatus::Running => Some(std::time::SystemTime::now()),
            // Killed: the last thing the run wrote.
            _ => std::fs::metadata(dir.join(EVENTS_FILE))
                .and_then(|m| m.modified())
                .ok(),
        });
    let duration_s = match (start, end) {
        (Some(s), Some(e)) => e.duration_since(s).map(|d| d.as_secs_f64()).unwrap_or(0.0),
        _ => 0.0,
    };
    RunInfo {
        verdict,
        run_id: manifest.run_id.clone(),
        workload: manifest.workload.clone(),
        status,
        labels: annotations
            .labels
            .clone()
            .unwrap_or_else(|| manifest.labels.clone()),
        notes: annotations.notes,
        started_at: manifest.started_at.clone(),
        ended_at: manifest.ended_at.clone(),
        duration_s,
        endpoint: manifest.endpoint.clone(),
        headline,
        error: manifest.error.clone(),
        buckets: if manifest.buckets.is_empty() {
            planned_buckets(dir)
        } else {
            manifest.buckets.clone()
        },
    }
}

/// The workload's buckets as its `plan.json` names them, for runs whose manifest does
/// not list them.
fn planned_buckets(dir: &Path) -> Vec<String> {
    #[derive(Deserialize)]
    struct Plan {
        buckets: Buckets,
    }
    #[derive(Deserialize)]
    struct Buckets {
        names: Vec<String>,
    }
    std::fs::read(dir.join(keystorm_results::PLAN_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice::<Plan>(&b).ok())
        .map(|p| p.buckets.names)
        .unwrap_or_default()
}
