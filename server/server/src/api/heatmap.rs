//! `GET /api/runs/{id}/heatmap`: one operation's latency heatmap — time in columns,
//! latency in log-spaced rows, the operations in each cell — from the run's interval
//! histograms (exact, every operation once), for the whole run or one phase, with
//! where each phase begins on the same time axis. A long run's seconds are merged into
//! at most `max_columns` columns (counts added), so the answer's size does not grow
//! with the run's length. Answers are built on from the last one asked the same
//! ([`super::heatmap_cache`]): a live page's refresh reads what the log gained since.

use axum::Json;
use axum::extract::State;
use keystorm_results::{HLOG_FILE, HeatmapGrid, Section, heatmap, hlog_tag, row_bounds_us};
use keystorm_types::OpKind;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiPath, ApiQuery, ApiResult, ErrorBody};
use super::heatmap_cache::{CachedHeatmap, HeatmapKey};
pub use super::heatmap_filter::HeatmapFilter;
use super::heatmap_filter::PartLines;
use super::params::RunIdParam;
use super::run_files::run_dir;
use super::state::AppState;

/// Columns when the query does not say; a two-hour run at one second each.
const DEFAULT_COLUMNS: u32 = 7_200;
const MAX_COLUMNS: u32 = 20_000;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HeatmapQuery {
    pub op: OpKind,
    /// Narrows the heatmap to one section (with `round` and `phase`, to one phase);
    /// the whole run without.
    pub section: Option<Section>,
    #[param(format = Int64, minimum = 0, maximum = 4294967295_u32)]
    pub round: Option<u32>,
    pub phase: Option<String>,
    /// At most this many columns (1 to 20,000; 7,200 by default): seconds are merged
    /// beyond it.
    #[param(format = Int64, minimum = 1, maximum = 20000)]
    pub max_columns: Option<u32>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Heatmap {
    pub op: OpKind,
    /// Each row's upper bound (µs), lowest first: ten rows a decade from 10 µs to
    /// 100 s (faster and slower operations count in the first and last).
    pub rows_us: Vec<u64>,
    /// Recorded intervals each column holds: 1 (an interval, about a second), or a
    /// power of two more for a run longer than `max_columns`.
    pub merged: u64,
    /// Each column's start and end, in seconds from the run's start, in time order:
    /// where its intervals really ran (a phase's first column starts when the phase
    /// did; a column can be shorter or longer than a second, and phases leave gaps).
    pub spans_s: Vec<[f64; 2]>,
    /// Operations per column and row: `counts[column][row]`.
    pub counts: Vec<Vec<u64>>,
    /// The largest cell.
    pub max_count: u64,
    /// Where each phase begins, on the same time axis.
    pub phases: Vec<HeatmapPhase>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HeatmapPhase {
    /// Seconds from the run's start.
    pub t_s: f64,
    pub section: String,
    pub round: Option<u32>,
    pub phase: String,
}

#[utoipa::path(get, path = "/api/runs/{id}/heatmap", operation_id = "run_heatmap", tag = "runs",
    params(RunIdParam, HeatmapQuery),
    responses((status = 200, body = Heatmap), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn heatmap_of_run(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
    ApiQuery(q): ApiQuery<HeatmapQuery>,
) -> ApiResult<Json<Heatmap>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    let columns = q.max_columns.unwrap_or(DEFAULT_COLUMNS);
    if !(1..=MAX_COLUMNS).contains(&columns) {
        return Err(ApiError::bad_request(format!(
            "max_columns is between 1 and {MAX_COLUMNS}"
        )));
    }
    let op = q.op;
    // Each field given narrows the heatmap (a phase name in every round, say); none
    // gives the whole run.
    let filter = HeatmapFilter {
        section: q.section.map(|s| s.as_str().to_string()),
        round: q.round.map(|r| r.to_string()),
        phase: q.phase.map(|p| hlog_tag(&[&p])),
    };
    let narrowed = filter.section.is_some() || filter.round.is_some() || filter.phase.is_some();
    let path = dir.join(HLOG_FILE);
    let cached = state.heatmaps.entry(HeatmapKey {
        run: id,
        op,
        filter: filter.clone(),
        columns,
    });
    let heat = tokio::task::spawn_blocking(move || {
        CachedHeatmap::lock(&cached).refresh(
            &path,
            PartLines {
                filter: &filter,
                op,
            },
        )
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
    .map_err(|e| ApiError::internal(format!("cannot read the histogram log: {e}")))?;
    heat.map(|grid| Json(answer(op, grid))).ok_or_else(|| {
        ApiError::not_found(format!(
            "no {} operations recorded{}",
            op.as_str(),
            if narrowed {
                " in that part of the run"
            } else {
                ""
            }
        ))
    })
}

/// The heatmap of `op` in the log at `path`, over the part of the run `filter` says;
/// `None` if none was recorded there.
pub fn read_heatmap(
    path: &std::path::Path,
    op: OpKind,
    filter: &HeatmapFilter,
    columns: u32,
) -> std::io::Result<Option<Heatmap>> {
    let grid = heatmap(path, PartLines { filter, op }, columns as usize)?;
    Ok(grid.map(|grid| answer(op, grid)))
}

/// The API's heatmap of `op` from its grid.
fn answer(op: OpKind, grid: HeatmapGrid) -> Heatmap {
    Heatmap {
        op,
        rows_us: row_bounds_us(),
        merged: grid.merged,
        spans_s: grid
            .spans
            .iter()
            .map(|&(a, b)| [a as f64 / 1000.0, b as f64 / 1000.0])
            .collect(),
        max_count: grid.counts.iter().flatten().copied().max().unwrap_or(0),
        counts: grid.counts,
        phases: grid
            .phases
            .into_iter()
            .map(|(ms, tag)| {
                let mut parts = tag.splitn(3, '.');
                let section = parts.next().unwrap_or_default().to_string();
                let round = parts.next().and_then(|r| r.parse().ok());
                HeatmapPhase {
                    t_s: ms as f64 / 1000.0,
                    section,
                    round,
                    phase: parts.next().unwrap_or_default().to_string(),
                }
            })
            .collect(),
    }
}
