//! `GET /api/compare`: runs compared with a base, each metric's change judged against
//! the noise (the results crate's `comparison`, as `keystorm compare` prints it): the
//! compare page draws this, never a difference of its own.

use axum::Json;
use axum::extract::State;
use keystorm_results::comparison::{self, CompareOptions, Comparison};
use serde::Deserialize;
use utoipa::IntoParams;

use super::error::{ApiError, ApiQuery, ApiResult, ErrorBody};
use super::run_files::run_dir;
use super::state::AppState;

/// Runs compared at once, the base aside.
pub const MAX_COMPARED: usize = 8;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CompareQuery {
    /// The base run's id.
    pub base: String,
    /// The compared runs' ids, comma-separated (at most 8).
    pub new: String,
    /// Changes within ± this share are no change (0.02, the default, is ±2 %).
    #[param(minimum = 0.0, maximum = 0.99)]
    pub noise_floor: Option<f64>,
    /// Judge only these metrics, comma-separated: ops_per_sec, mib_per_sec, p50, p99,
    /// p99.9, error_rate, tails, over_1s, over_10s.
    pub metrics: Option<String>,
    /// Judge only these operations, comma-separated: put, get, head, list, delete.
    pub ops: Option<String>,
}

fn words(list: &Option<String>) -> Vec<String> {
    list.as_deref()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The options the query asks for, every name checked.
fn options_of(q: &CompareQuery) -> Result<CompareOptions, ApiError> {
    let floor = q.noise_floor.unwrap_or(comparison::DEFAULT_NOISE_FLOOR);
    if !(floor.is_finite() && (0.0..1.0).contains(&floor)) {
        return Err(ApiError::bad_request(format!(
            "noise_floor {floor} is not a share under 1 (0.02 is ±2 %)"
        )));
    }
    CompareOptions::from_names(floor, &words(&q.metrics), &words(&q.ops))
        .map_err(|e| ApiError::bad_request(e.to_string()))
}

#[utoipa::path(get, path = "/api/compare", operation_id = "compare_runs", tag = "runs",
    params(CompareQuery),
    responses((status = 200, body = Comparison), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn compare(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<CompareQuery>,
) -> ApiResult<Json<Comparison>> {
    let options = options_of(&q)?;
    let root = &state.config.results_dir;
    let base = run_dir(root, &q.base)?;
    let ids = words(&Some(q.new.clone()));
    if ids.is_empty() {
        return Err(ApiError::bad_request(
            "new names no run: give run ids, comma-separated",
        ));
    }
    if ids.len() > MAX_COMPARED {
        return Err(ApiError::bad_request(format!(
            "{} runs to compare: at most {MAX_COMPARED} at once",
            ids.len()
        )));
    }
    let news = ids
        .iter()
        .map(|id| run_dir(root, id))
        .collect::<Result<Vec<_>, _>>()?;
    let comparison =
        tokio::task::spawn_blocking(move || comparison::compare_dirs(&base, &news, &options))
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?
            .map_err(|e| ApiError::internal(format!("cannot read a run to compare: {e}")))?;
    Ok(Json(comparison))
}
