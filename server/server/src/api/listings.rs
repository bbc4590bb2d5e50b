//! `GET /api/runs/{id}/listings`: a run's complete listings and, per list phase, list
//! time against key count with a fitted line — the list-scaling experiment's chart.

use axum::Json;
use axum::extract::State;
use keystorm_results::{ListingsReport, read_listings};

use super::error::{ApiPath, ApiResult, ErrorBody};
use super::params::RunIdParam;
use super::run_files::run_dir;
use super::state::AppState;

#[utoipa::path(get, path = "/api/runs/{id}/listings", operation_id = "run_listings", tag = "runs",
    params(RunIdParam),
    responses((status = 200, body = ListingsReport), (status = 404, body = ErrorBody)))]
pub async fn listings(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
) -> ApiResult<Json<ListingsReport>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    Ok(Json(read_listings(&dir)))
}
