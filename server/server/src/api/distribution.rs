//! `GET /api/runs/{id}/distribution`: the latency distribution of one phase × round ×
//! operation, read from the merge of its interval histograms (exact, never averaged),
//! at log-spaced percentiles for a "nines" axis.

use axum::Json;
use axum::extract::State;
use hdrhistogram::Histogram;
use keystorm_results::{HLOG_FILE, Section, hlog_tag, read_merged};
use keystorm_types::OpKind;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiPath, ApiQuery, ApiResult, ErrorBody};
use super::params::RunIdParam;
use super::run_files::run_dir;
use super::state::AppState;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DistributionQuery {
    pub section: Section,
    /// Round number (needed with `section=round`, ignored otherwise).
    #[param(format = Int64, minimum = 0, maximum = 4294967295_u32)]
    pub round: Option<u32>,
    pub phase: String,
    pub op: OpKind,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct DistributionPoint {
    /// 0 to 100.
    pub percentile: f64,
    pub latency_us: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Distribution {
    /// Successful operations in the merged histogram.
    pub count: u64,
    pub points: Vec<DistributionPoint>,
}

/// Points per decade of "nines" (90 %, 99 %, 99.9 % ...).
const STEPS_PER_NINE: u32 = 10;
/// Up to 99.9999 %.
const NINES: u32 = 6;

#[utoipa::path(get, path = "/api/runs/{id}/distribution", operation_id = "run_distribution", tag = "runs",
    params(RunIdParam, DistributionQuery),
    responses((status = 200, body = Distribution), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn distribution(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
    ApiQuery(q): ApiQuery<DistributionQuery>,
) -> ApiResult<Json<Distribution>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    let round = match (q.section, q.round) {
        (Section::Round, Some(r)) => r.to_string(),
        (Section::Round, None) => {
            return Err(ApiError::bad_request("round is needed for section=round"));
        }
        _ => "-".to_string(),
    };
    let tag = hlog_tag(&[q.section.as_str(), &round, &q.phase, q.op.as_str()]);
    let path = dir.join(HLOG_FILE);
    let hist = tokio::task::spawn_blocking(move || read_merged(&path, &tag))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| ApiError::internal(format!("cannot read the histogram log: {e}")))?;
    if hist.is_empty() {
        return Err(ApiError::not_found(format!(
            "no {} operations recorded for phase {:?} in that section and round",
            q.op.as_str(),
            q.phase
        )));
    }
    Ok(Json(Distribution {
        count: hist.len(),
        points: points(&hist),
    }))
}

/// Percentiles 0, then log-spaced towards 100 (p = 100·(1 − 10^(−k/STEPS))), then max.
pub fn points(hist: &Histogram<u64>) -> Vec<DistributionPoint> {
    let mut out = Vec::new();
    for k in 0..=(NINES * STEPS_PER_NINE) {
        let p = 100.0 * (1.0 - 10f64.powf(-(k as f64) / STEPS_PER_NINE as f64));
        out.push(DistributionPoint {
            percentile: p,
            latency_us: hist.value_at_quantile(p / 100.0),
        });
    }
    out.push(DistributionPoint {
        percentile: 100.0,
        latency_us: hist.max(),
    });
    out
}
