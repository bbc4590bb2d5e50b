//! `GET /metrics`: the live run's counters and latency quantiles in the Prometheus text
//! format (kept by [`super::prometheus::LiveMetrics`]).

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;

use super::state::AppState;

/// The Prometheus exposition of the run the server drives (or drove last).
pub async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.metrics.render(),
    )
}
