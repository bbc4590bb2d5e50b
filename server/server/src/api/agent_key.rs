//! The key guard in front of every call a registered agent makes
//! (`/api/agents/{id}/...`): the call carries, in the `X-Keystorm-Agent-Key` header,
//! the key the controller gave agent `{id}` when it registered, or it is refused with
//! 403 before its handler runs. All agents share the server's token, so the token
//! guard alone lets any of them act in another's name; this one does not. An `{id}`
//! the controller does not know is 404 `unknown_agent` as before, so an agent of a
//! controller that restarted registers again.

use axum::extract::rejection::RawPathParamsRejection;
use axum::extract::{RawPathParams, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::state::AppState;
use keystorm_link::protocol::AGENT_KEY_HEADER;

/// Lets the call through only with agent `{id}`'s key.
pub async fn agent_key_guard(
    State(state): State<AppState>,
    params: Result<RawPathParams, RawPathParamsRejection>,
    request: Request,
    next: Next,
) -> Response {
    let params = match params {
        Ok(params) => params,
        Err(e) => return ApiError::bad_request(e.body_text()).into_response(),
    };
    let Some(id) = params
        .iter()
        .find(|(name, _)| *name == "id")
        .map(|(_, v)| v)
    else {
        return ApiError::internal("an agent's route without its {id}").into_response();
    };
    // A header that is not text is no key either.
    let given = request
        .headers()
        .get(AGENT_KEY_HEADER)
        .map(|v| v.to_str().unwrap_or_default());
    match state.fleet.check_agent_key(id, given) {
        Ok(()) => next.run(request).await,
        Err(refused) => ApiError::from(refused).into_response(),
    }
}
