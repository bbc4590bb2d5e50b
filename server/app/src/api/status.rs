//! `GET /api/status`: the server's version, the run going now and whether changes
//! need a token.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use super::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
pub struct Status {
    pub version: String,
    /// The run going now, if any.
    pub running: Option<String>,
    /// Whether state-changing calls need a bearer token.
    pub token_required: bool,
}

#[utoipa::path(get, path = "/api/status", operation_id = "status", tag = "status",
    responses((status = 200, body = Status)))]
pub async fn status(State(state): State<AppState>) -> Json<Status> {
    Json(Status {
        version: env!("CARGO_PKG_VERSION").to_string(),
        running: state.active.current().and_then(|a| a.run_id),
        token_required: state.config.token.is_some(),
    })
}
