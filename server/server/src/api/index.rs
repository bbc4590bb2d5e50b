//! `GET /api/runs/{id}/index`: the bucket-index story of a run — reshard events, write
//! stalls and what polling cost — read from the run's event log, so the detail and
//! compare pages can mark them on the charts.

use axum::Json;
use axum::extract::State;
use keystorm_results::{
    EventReader, IndexPollingEvent, Logged, ReshardEvent, RunEvent, StallEvent,
};
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ApiPath, ApiResult, ErrorBody};
use super::params::RunIdParam;
use super::run_files::run_dir;
use super::state::AppState;

/// A reshard with its id in the run's event log (stalls refer to it by that id).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ReshardRecord {
    pub id: u64,
    #[serde(flatten)]
    pub event: ReshardEvent,
}

/// A stall with its id in the run's event log (reshards refer to it by that id).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StallRecord {
    pub id: u64,
    #[serde(flatten)]
    pub event: StallEvent,
}

#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct IndexReport {
    pub reshards: Vec<ReshardRecord>,
    pub stalls: Vec<StallRecord>,
    /// What polling the bucket index cost (tracked runs that finished).
    pub polling: Option<IndexPollingEvent>,
}

#[utoipa::path(get, path = "/api/runs/{id}/index", operation_id = "run_index", tag = "runs",
    params(RunIdParam),
    responses((status = 200, body = IndexReport), (status = 404, body = ErrorBody)))]
pub async fn index(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
) -> ApiResult<Json<IndexReport>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    Ok(Json(read_index(&dir)))
}

/// Reads the event log line by line, keeping only index events (a handful per run).
pub fn read_index(dir: &std::path::Path) -> IndexReport {
    let mut report = IndexReport::default();
    let Some(mut log) = EventReader::open(dir) else {
        return report;
    };
    // Most lines are intervals: only these events are built.
    while let Some(Logged { id, event }) = log.next_of(&["reshard", "stall", "index_polling"]) {
        match event {
            RunEvent::Reshard(event) => report.reshards.push(ReshardRecord { id, event }),
            RunEvent::Stall(event) => report.stalls.push(StallRecord { id, event }),
            RunEvent::IndexPolling(event) => report.polling = Some(event),
            _ => {}
        }
    }
    report
}
