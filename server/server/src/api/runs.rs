//! `/api/runs`: past and current runs — list, read, start, stop, annotate, delete —
//! and the per-second series of a run.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use keystorm_engine::executor::RunOptions;
use keystorm_results::{
    IntervalQuery, IntervalRecord, Manifest, ResultStore, RunVerdict, Section, Summary, SummaryRow,
    WORKLOAD_FILE, list_runs, read_intervals,
};
use keystorm_workload::spec::{SpecError, parse_workload};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::active::{StartRequest, check_labels};
use super::error::{ApiError, ApiJson, ApiPath, ApiQuery, ApiResult, ErrorBody};
use super::params::{RunIdParam, labels_schema, optional_labels_schema};
use super::run_files::{
    RunInfo, read_annotations, read_summary, run_dir, run_info, write_annotations,
};
use super::state::AppState;
use super::workloads::{problem_of, read_workload};

#[derive(Debug, Serialize, ToSchema)]
pub struct RunDetail {
    pub info: RunInfo,
    pub manifest: Manifest,
    /// Null until the first phase finished.
    pub summary: Option<Summary>,
    /// The workload as given (inline secrets redacted).
    pub workload_text: String,
    /// One row per phase × round × operation over all its parts: where a phase was
    /// stopped and resumed, its parts' rows added up (latency from their histograms
    /// merged). What charts across rounds draw; `summary.rows` keeps the parts.
    pub phases: Vec<SummaryRow>,
    /// The run's verdict: completed as asked, fell behind, not as written, missed a
    /// threshold, had errors, resumed, taken over.
    pub verdict: RunVerdict,
    /// Every threshold of the workload's `expect:` judged on every phase it applies to.
    pub thresholds: Vec<keystorm_results::threshold::ThresholdCheck>,
    /// Each phase row's throughput, bandwidth and latency percentiles with their 95 %
    /// intervals (a bootstrap over the phase's seconds; docs/intervals.md), or why a
    /// row has none.
    pub intervals: Vec<keystorm_results::uncertainty::RowIntervals>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StartRunRequest {
    /// A workload of the workloads folder, by name (give this or `yaml`).
    #[schema(pattern = r"^[A-Za-z0-9_-]{1,64}(\.yaml)?$")]
    pub workload: Option<String>,
    /// Workload YAML text (give this or `workload`).
    pub yaml: Option<String>,
    /// Use this endpoint instead of the workload's.
    #[schema(pattern = "^https?://")]
    pub endpoint: Option<String>,
    #[serde(default)]
    #[schema(schema_with = labels_schema)]
    pub labels: BTreeMap<String, String>,
    /// Split the run over this many of the agents connected to this server (each runs
    /// shard I of N with its own credentials); absent: this server runs it itself.
    #[schema(minimum = 1, maximum = 1024)]
    pub agents: Option<u32>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RunStarted {
    pub run_id: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EditRunRequest {
    /// Replaces the run's labels.
    #[schema(schema_with = optional_labels_schema)]
    pub labels: Option<BTreeMap<String, String>>,
    /// Replaces the run's notes (at most 64 KiB).
    pub notes: Option<String>,
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct IntervalFilter {
    pub section: Option<Section>,
    #[param(format = Int64, minimum = 0, maximum = 4294967295_u32)]
    pub round: Option<u32>,
    pub phase: Option<String>,
    /// At most this many points per phase (default 2000): longer phases come back with
    /// consecutive intervals merged into one point each (`merged` says how many), their
    /// latency percentiles read from the merged histograms. Every interval as recorded:
    /// the `intervals.csv` and `histograms.hlog` exports.
    #[param(format = Int64, minimum = 1, maximum = 4294967295_u32)]
    pub max_points: Option<u32>,
}

/// Points per phase the intervals API returns unless asked otherwise: more than a chart
/// can show, a small fraction of a day-long phase's 86,400 intervals.
pub const DEFAULT_MAX_POINTS: usize = 2000;

impl IntervalFilter {
    fn max_points(&self) -> ApiResult<usize> {
        match self.max_points.map_or(DEFAULT_MAX_POINTS, |n| n as usize) {
            0 => Err(ApiError::bad_request(
                "max_points must be at least 1 (every interval: the intervals.csv export)",
            )),
            n => Ok(n),
        }
    }
}

/// Which runs the list holds.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RunFilter {
    /// Only runs that worked on this bucket (wrote it, or read it from a listing or a
    /// key file).
    #[param(max_length = 255)]
    pub bucket: Option<String>,
}

#[utoipa::path(get, path = "/api/runs", operation_id = "list_runs", tag = "runs",
    params(RunFilter),
    responses((status = 200, body = [RunInfo]), (status = 400, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    ApiQuery(filter): ApiQuery<RunFilter>,
) -> ApiResult<Json<Vec<RunInfo>>> {
    if filter
        .bucket
        .as_ref()
        .is_some_and(|b| b.chars().count() > 255)
    {
        return Err(ApiError::bad_request(
            "bucket is a bucket name: at most 255 characters",
        ));
    }
    let mut runs: Vec<RunInfo> = list_runs(&state.config.results_dir)?
        .iter()
        .map(|(dir, m)| run_info(dir, m))
        .filter(|r| {
            filter
                .bucket
                .as_deref()
                .is_none_or(|b| r.buckets.iter().any(|x| x == b))
        })
        .collect();
    runs.reverse();
    Ok(Json(runs))
}

#[utoipa::path(get, path = "/api/runs/{id}", operation_id = "read_run", tag = "runs",
    params(RunIdParam),
    responses((status = 200, body = RunDetail), (status = 404, body = ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
) -> ApiResult<Json<RunDetail>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    let detail = tokio::task::spawn_blocking(move || detail_of(&dir))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))??;
    Ok(Json(detail))
}

/// Everything the run page shows of the run in `dir` first (the intervals are a
/// bootstrap: blocking work).
pub fn detail_of(dir: &std::path::Path) -> ApiResult<RunDetail> {
    let manifest = ResultStore::read_manifest(dir)?;
    let summary = read_summary(dir);
    let phases = summary
        .as_ref()
        .map(|s| keystorm_results::whole_phase_rows(dir, &s.rows))
        .unwrap_or_default();
    Ok(RunDetail {
        verdict: RunVerdict::read(dir, &manifest, &phases),
        thresholds: keystorm_results::threshold_judge::judge_in(dir, &manifest.expect, &phases),
        intervals: keystorm_results::uncertainty::row_intervals(dir, &phases),
        info: run_info(dir, &manifest),
        summary,
        workload_text: workload_text(dir),
        manifest,
        phases,
    })
}

/// The run's workload as it ran, secrets left out: stored redacted by the engine, and
/// redacted again for folders from elsewhere.
pub fn workload_text(dir: &std::path::Path) -> String {
    keystorm_workload::spec::redact_secrets(
        &std::fs::read_to_string(dir.join(WORKLOAD_FILE)).unwrap_or_default(),
    )
}

#[utoipa::path(post, path = "/api/runs", operation_id = "start_run", tag = "runs",
    request_body = StartRunRequest,
    responses((status = 201, body = RunStarted), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 422, body = ErrorBody)))]
pub async fn start(
    State(state): State<AppState>,
    ApiJson(req): ApiJson<StartRunRequest>,
) -> ApiResult<(StatusCode, Json<RunStarted>)> {
    start_run(&state, req, None).await
}

/// Starts the run `req` asks for; its manifest records `started_by` as the command
/// line, or, for a run started through the API, the `keystorm run` that would do the
/// same.
pub async fn start_run(
    state: &AppState,
    req: StartRunRequest,
    started_by: Option<Vec<String>>,
) -> ApiResult<(StatusCode, Json<RunStarted>)> {
    check_labels(&req.labels)?;
    // One spelling of each URL (lower case, no trailing '/'), none twice.
    let endpoint = req
        .endpoint
        .as_ref()
        .or(state.config.default_endpoint.as_ref())
        .map(|list| keystorm_types::endpoint_urls(list).map(|urls| urls.join(",")))
        .transpose()
        .map_err(|refusal| ApiError::bad_request(refusal.to_string()))?;
    let (text, file) = match (&req.workload, &req.yaml) {
        (Some(name), None) => {
            let (path, text) = read_workload(&state.config.workloads_dir, name)?;
            (text, Some(path.display().to_string()))
        }
        (None, Some(yaml)) => (yaml.clone(), None),
        _ => {
            return Err(ApiError::bad_request(
                "give exactly one of `workload` (a name) or `yaml` (workload text)",
            ));
        }
    };
    let invalid = |e: SpecError| {
        let p = problem_of(&e);
        ApiError::invalid_workload(p.line, p.column, p.message)
    };
    let shown = file.as_deref().unwrap_or("workload");
    let (plan, _warnings) = parse_workload(&text, shown).map_err(invalid)?;
    // A run here reads its key files from this server's disk (on agents, from theirs).
    if req.agents.is_none() {
        keystorm_engine::keyfile::check_key_files(&plan, shown).map_err(invalid)?;
    }
    // A download or upload reads or writes any folder the server's user can: that is
    // for the command line, not for whoever can reach the API.
    let phases = plan
        .before
        .iter()
        .chain(&plan.rounds.phases)
        .chain(&plan.after);
    if let Some(p) = phases.into_iter().find(|p| p.kind.transfer().is_some()) {
        return Err(ApiError::bad_request(format!(
            "phase {:?} downloads or uploads a local folder: run that workload with \
             `keystorm run` on the machine whose disk it should use, not through the server",
            p.name
        )));
    }
    let mut command_line = vec![
        "keystorm".to_string(),
        "run".to_string(),
        file.clone().unwrap_or_else(|| WORKLOAD_FILE.to_string()),
    ];
    if let Some(e) = &endpoint {
        command_line.extend(["--endpoint".to_string(), e.clone()]);
    }
    for (k, v) in &req.labels {
        command_line.extend(["--label".to_string(), format!("{k}={v}")]);
    }
    if let Some(agents) = req.agents {
        command_line.extend(["--agents".to_string(), agents.to_string()]);
    }
    let command_line = started_by.unwrap_or(command_line);
    // A run that said it finished is only closing: the next may start (one at a time).
    state.active.let_ended_run_leave().await;
    if let Some(agents) = req.agents {
        let run_id = super::fleet_runs::start(
            state,
            super::fleet_runs::Split {
                plan,
                text,
                file,
                endpoint,
                labels: req.labels,
                agents,
                command_line,
            },
        )?;
        return Ok((StatusCode::CREATED, Json(RunStarted { run_id })));
    }
    let options = RunOptions {
        results_root: state.config.results_dir.clone(),
        labels: req.labels.clone(),
        overrides: keystorm_results::RunOverrides {
            endpoint,
            ..Default::default()
        },
        resume: None,
        workload_file: file,
        command_line,
        embedded: Some(std::sync::Arc::new(keystorm_embedded::SimTargets)),
        start_at: None,
        gate: None,
        taken_over: false,
        paused_because: None,
        warnings: Vec::new(),
    };
    let run_id = state
        .active
        .start(
            StartRequest {
                plan,
                text,
                options,
            },
            state.metrics.clone(),
        )
        .await?;
    Ok((StatusCode::CREATED, Json(RunStarted { run_id })))
}

#[utoipa::path(post, path = "/api/runs/{id}/stop", operation_id = "stop_run", tag = "runs",
    params(RunIdParam),
    responses((status = 202, body = RunStarted), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn stop(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
) -> ApiResult<(StatusCode, Json<RunStarted>)> {
    if state.fleet.stop(&id, "the run was stopped") {
        return Ok((StatusCode::ACCEPTED, Json(RunStarted { run_id: id })));
    }
    run_dir(&state.config.results_dir, &id)?;
    if state.active.stop(&id) {
        Ok((StatusCode::ACCEPTED, Json(RunStarted { run_id: id })))
    } else {
        Err(ApiError::conflict(
            "not_running",
            format!("run {id} is not going; there is nothing to stop"),
        ))
    }
}

#[utoipa::path(patch, path = "/api/runs/{id}", operation_id = "edit_run", tag = "runs",
    params(RunIdParam),
    request_body = EditRunRequest,
    responses((status = 200, body = RunInfo), (status = 404, body = ErrorBody)))]
pub async fn edit(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
    ApiJson(req): ApiJson<EditRunRequest>,
) -> ApiResult<Json<RunInfo>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    let mut a = read_annotations(&dir);
    if let Some(labels) = req.labels {
        check_labels(&labels)?;
        a.labels = Some(labels);
    }
    if let Some(notes) = req.notes {
        if notes.len() > 64 * 1024 {
            return Err(ApiError::bad_request("notes are limited to 64 KiB"));
        }
        super::active::refuse_secret("the notes", &notes)?;
        a.notes = notes;
    }
    write_annotations(&dir, &a)?;
    let manifest = ResultStore::read_manifest(&dir)?;
    Ok(Json(run_info(&dir, &manifest)))
}

#[utoipa::path(delete, path = "/api/runs/{id}", operation_id = "delete_run", tag = "runs",
    params(RunIdParam),
    responses((status = 204), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
) -> ApiResult<StatusCode> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    if state.active.is_running(&id) {
        return Err(ApiError::conflict(
            "run_in_progress",
            format!("run {id} is still going; stop it before deleting its results"),
        ));
    }
    std::fs::remove_dir_all(&dir)
        .map_err(|e| ApiError::internal(format!("cannot delete run {id}: {e}")))?;
    // Its heatmaps kept for viewers go with it, rather than waiting to be pushed out.
    state.heatmaps.forget(&id);
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(get, path = "/api/runs/{id}/intervals", operation_id = "run_intervals", tag = "runs",
    params(RunIdParam, IntervalFilter),
    responses((status = 200, body = [IntervalRecord]), (status = 404, body = ErrorBody)))]
pub async fn intervals(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
    ApiQuery(filter): ApiQuery<IntervalFilter>,
) -> ApiResult<Json<Vec<IntervalRecord>>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    let max_points = filter.max_points()?;
    let records = tokio::task::spawn_blocking(move || {
        let query = IntervalQuery {
            section: filter.section.map(Section::as_str),
            round: filter.round,
            phase: filter.phase.as_deref(),
            max_points: Some(max_points),
        };
        read_intervals(&dir, &query)
    })
    .await
    .map_err(|e| ApiError::internal(format!("reading intervals failed: {e}")))?;
    Ok(Json(records))
}
