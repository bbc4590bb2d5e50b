//! `GET /api/runs/{id}/timeline`: everything that happened in the middle of a run, in
//! time order — pauses with their reason, endpoints lost and back, reshards, write
//! stalls — for the run page's timeline and the gaps its charts leave over a pause.

use axum::Json;
use axum::extract::State;
use keystorm_results::{Timeline, read_timeline};

use super::error::{ApiPath, ApiResult, ErrorBody};
use super::params::RunIdParam;
use super::run_files::run_dir;
use super::state::AppState;

#[utoipa::path(get, path = "/api/runs/{id}/timeline", operation_id = "run_timeline", tag = "runs",
    params(RunIdParam),
    responses((status = 200, body = Timeline), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn timeline(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
) -> ApiResult<Json<Timeline>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    Ok(Json(read_timeline(&dir)))
}
