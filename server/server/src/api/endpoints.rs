//! `GET /api/runs/{id}/endpoints`: when the endpoints of a run that drives several were
//! lost and came back — the run page's list of them and the marks on its charts.

use axum::Json;
use axum::extract::State;
use keystorm_results::{EndpointsReport, read_endpoint_events};

use super::error::{ApiPath, ApiResult, ErrorBody};
use super::params::RunIdParam;
use super::run_files::run_dir;
use super::state::AppState;

#[utoipa::path(get, path = "/api/runs/{id}/endpoints", operation_id = "run_endpoints", tag = "runs",
    params(RunIdParam),
    responses((status = 200, body = EndpointsReport), (status = 404, body = ErrorBody)))]
pub async fn endpoints(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
) -> ApiResult<Json<EndpointsReport>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    Ok(Json(read_endpoint_events(&dir)))
}
