//! `GET /api/status`: the server's version, the run going now, whether the API needs
//! a token and what the caller's token lets it do.

use axum::extract::State;
use axum::{Extension, Json};
use serde::Serialize;
use utoipa::ToSchema;

use super::security::Access;
use super::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
pub struct Status {
    pub version: String,
    /// The run going now, if any.
    pub running: Option<String>,
    /// Whether API calls need a bearer token.
    pub token_required: bool,
    /// What the caller may do: `open` (the server has no token), `read` (the
    /// read-only token) or `write` (the full token).
    pub access: Access,
}

#[utoipa::path(get, path = "/api/status", operation_id = "status", tag = "status",
    responses((status = 200, body = Status)))]
pub async fn status(
    State(state): State<AppState>,
    Extension(access): Extension<Access>,
) -> Json<Status> {
    Json(Status {
        version: env!("CARGO_PKG_VERSION").to_string(),
        running: state.active.current().and_then(|a| a.run_id),
        token_required: state.config.token.is_some(),
        access,
    })
}
