//! `GET /api/runs/{id}/integrity`: what a run proved about the store — the GETs its
//! verifying phases checked, the objects found corrupt or missing, and the first of
//! them by name: the run page's verdict beside its errors.

use axum::Json;
use axum::extract::State;
use keystorm_results::{IntegrityReport, read_integrity, whole_phase_rows};

use super::error::{ApiPath, ApiResult, ErrorBody};
use super::params::RunIdParam;
use super::run_files::{read_summary, run_dir};
use super::state::AppState;

#[utoipa::path(get, path = "/api/runs/{id}/integrity", operation_id = "run_integrity", tag = "runs",
    params(RunIdParam),
    responses((status = 200, body = IntegrityReport), (status = 404, body = ErrorBody)))]
pub async fn integrity(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
) -> ApiResult<Json<IntegrityReport>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    Ok(Json(report_of(&dir)))
}

/// The integrity report of the run in `dir` (for the API and the offline report).
pub fn report_of(dir: &std::path::Path) -> IntegrityReport {
    let rows = read_summary(dir)
        .map(|s| whole_phase_rows(dir, &s.rows))
        .unwrap_or_default();
    read_integrity(dir, &rows)
}
