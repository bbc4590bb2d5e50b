//! `/api/agents`: the controller's side of the agent link (register, heartbeat,
//! barrier, the shard folders they send and fetch, done) and the Agents page's view.
//! Every call that changes state passes the token guard like the rest of the API, and
//! every call of a registered agent its key guard ([`super::agent_key`]); what an agent
//! says is checked against the bounds of `keystorm_link::bounds`, what it sends of its
//! shard folders is kept within the controller's caps (`fleet::copies`), and it reaches
//! only its own shard's folder (`fleet::shard_folders`).

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use futures_util::StreamExt;
use serde::Deserialize;
use tokio::io::AsyncWriteExt;
use utoipa::IntoParams;

use super::error::{ApiError, ApiJson, ApiPath, ApiQuery, ApiResult, ErrorBody};
use super::state::AppState;
use crate::fleet::{AgentsView, FleetError};
use keystorm_link::protocol::{
    BarrierReply, BarrierRequest, Heartbeat, HeartbeatReply, PartFileLength, PartListing,
    RegisterRequest, Registered, SearchStepReply, SearchStepRequest, ShardDone,
};

/// How long a barrier call waits before the agent asks again.
const BARRIER_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

impl From<FleetError> for ApiError {
    fn from(e: FleetError) -> ApiError {
        let (status, code) = match &e {
            FleetError::VersionMismatch { .. } => (StatusCode::CONFLICT, "version_mismatch"),
            FleetError::Bounds(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            FleetError::FileOverCap { .. } => (StatusCode::PAYLOAD_TOO_LARGE, "file_over_cap"),
            FleetError::RunOverCap { .. } => (StatusCode::PAYLOAD_TOO_LARGE, "run_over_cap"),
            FleetError::NameTaken(_) => (StatusCode::CONFLICT, "name_taken"),
            FleetError::PartBehind { .. } => (StatusCode::CONFLICT, "part_behind"),
            FleetError::UnknownAgent(_) => (StatusCode::NOT_FOUND, "unknown_agent"),
            FleetError::AgentKeyMissing(_) => (StatusCode::FORBIDDEN, "agent_key_required"),
            FleetError::WrongAgentKey(_) => (StatusCode::FORBIDDEN, "wrong_agent_key"),
            FleetError::NotShardFolder(_) => (StatusCode::FORBIDDEN, "not_shard_folder"),
            FleetError::NotEnoughAgents(_) => (StatusCode::CONFLICT, "not_enough_agents"),
            FleetError::RunInProgress(_) => (StatusCode::CONFLICT, "run_in_progress"),
            FleetError::UnknownRun(_) => (StatusCode::NOT_FOUND, "unknown_run"),
            FleetError::Full(_) => (StatusCode::SERVICE_UNAVAILABLE, "too_many_agents"),
            FleetError::Io(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        ApiError::new(status, code, e.to_string())
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct AgentIdParam {
    /// The id the controller gave the agent when it registered.
    pub id: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct PartFileParam {
    pub id: String,
    pub run: String,
    /// The agent's own run folder of the shard.
    #[param(pattern = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")]
    pub local: String,
    /// A file of that folder.
    #[param(pattern = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")]
    pub file: String,
}

#[utoipa::path(get, path = "/api/agents", operation_id = "list_agents", tag = "agents",
    responses((status = 200, body = AgentsView)))]
pub async fn list(State(state): State<AppState>) -> Json<AgentsView> {
    Json(state.fleet.view())
}

#[utoipa::path(post, path = "/api/agents/register", operation_id = "register_agent", tag = "agents",
    request_body = RegisterRequest,
    responses((status = 200, body = Registered), (status = 400, body = ErrorBody),
        (status = 409, body = ErrorBody)))]
pub async fn register(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<RegisterRequest>,
) -> ApiResult<Json<Registered>> {
    Ok(Json(state.fleet.register(request)?))
}

#[utoipa::path(post, path = "/api/agents/{id}/heartbeat", operation_id = "agent_heartbeat", tag = "agents",
    params(AgentIdParam), request_body = Heartbeat,
    responses((status = 200, body = HeartbeatReply), (status = 404, body = ErrorBody)))]
pub async fn heartbeat(
    State(state): State<AppState>,
    ApiPath(AgentIdParam { id }): ApiPath<AgentIdParam>,
    ApiJson(beat): ApiJson<Heartbeat>,
) -> ApiResult<Json<HeartbeatReply>> {
    Ok(Json(state.fleet.heartbeat(&id, beat)?))
}

#[utoipa::path(post, path = "/api/agents/{id}/barrier", operation_id = "agent_barrier", tag = "agents",
    params(AgentIdParam), request_body = BarrierRequest,
    responses((status = 200, body = BarrierReply), (status = 404, body = ErrorBody)))]
pub async fn barrier(
    State(state): State<AppState>,
    ApiPath(AgentIdParam { id }): ApiPath<AgentIdParam>,
    ApiJson(request): ApiJson<BarrierRequest>,
) -> ApiResult<Json<BarrierReply>> {
    Ok(Json(
        state
            .fleet
            .barrier(&id, &request.run_id, request.phase, BARRIER_WAIT)
            .await?,
    ))
}

#[utoipa::path(post, path = "/api/agents/{id}/search", operation_id = "agent_search_step", tag = "agents",
    params(AgentIdParam), request_body = SearchStepRequest,
    responses((status = 200, body = SearchStepReply), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn search_step(
    State(state): State<AppState>,
    ApiPath(AgentIdParam { id }): ApiPath<AgentIdParam>,
    ApiJson(request): ApiJson<SearchStepRequest>,
) -> ApiResult<Json<SearchStepReply>> {
    Ok(Json(
        state
            .fleet
            .search_step(&id, request, crate::fleet::SEARCH_WAIT)
            .await?,
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct PartParam {
    pub id: String,
    pub run: String,
    /// The agent's own run folder of the shard.
    #[param(pattern = r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$")]
    pub local: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PartOffset {
    /// Where the body goes in the file: the file ends after it. Without it the body is
    /// the whole file.
    pub offset: Option<u64>,
}

#[utoipa::path(put, path = "/api/agents/{id}/parts/{run}/{local}/{file}", operation_id = "agent_part_file", tag = "agents",
    params(PartFileParam, PartOffset),
    // Empty is a file's whole content too (or, at an offset, where a log now ends).
    request_body(content = Option<Vec<u8>>, content_type = "application/octet-stream"),
    responses((status = 204), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody),
        (status = 413, body = ErrorBody, description = "past the controller's cap of a file \
            (`file_over_cap`, `serve --max-shard-file-size`) or of a run's copies \
            (`run_over_cap`, `serve --max-run-copy-size`), or a piece of a log over 8 MiB: \
            nothing was written")))]
pub async fn part_file(
    State(state): State<AppState>,
    ApiPath(PartFileParam {
        id,
        run,
        local,
        file,
    }): ApiPath<PartFileParam>,
    ApiQuery(PartOffset { offset }): ApiQuery<PartOffset>,
    headers: axum::http::HeaderMap,
    body: Body,
) -> ApiResult<StatusCode> {
    let fleet = state.fleet.clone();
    if let Some(at) = offset {
        // A piece of a growing log: small (what a second or so added), written in one go.
        let piece = axum::body::to_bytes(body, MAX_PIECE).await.map_err(|_| {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!("a piece of a log is at most {MAX_PIECE} bytes"),
            )
        })?;
        blocking(move || fleet.write_part_piece(&id, &run, &local, &file, at, &piece)).await?;
        return Ok(StatusCode::NO_CONTENT);
    }
    // A whole file, streamed to disk (a day-long run's log need not fit in memory) and
    // put in place once complete.
    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let upload = fleet.begin_part_upload(&id, &run, &local, &file, declared)?;
    let failed = |e: std::io::Error| {
        ApiError::from(FleetError::Io(format!(
            "cannot write {}: {e}",
            upload.temporary.display()
        )))
    };
    let mut out = tokio::fs::File::create(&upload.temporary)
        .await
        .map_err(failed)?;
    let mut received = 0u64;
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ApiError::bad_request(format!("upload broke off: {e}")))?;
        received += chunk.len() as u64;
        if received > upload.cap {
            return Err(upload.over_cap(received).into());
        }
        out.write_all(&chunk).await.map_err(failed)?;
    }
    out.flush().await.map_err(failed)?;
    drop(out);
    blocking(move || fleet.finish_part_upload(upload)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Runs a blocking step of the fleet off the async threads.
async fn blocking(step: impl FnOnce() -> Result<(), FleetError> + Send + 'static) -> ApiResult<()> {
    tokio::task::spawn_blocking(step)
        .await
        .map_err(|e| ApiError::from(FleetError::Io(e.to_string())))?
        .map_err(ApiError::from)
}

/// The largest piece of a log an agent sends in one call (its pieces are 1 MiB).
const MAX_PIECE: usize = 8 << 20;

#[utoipa::path(get, path = "/api/agents/{id}/parts/{run}/{local}", operation_id = "agent_part_listing", tag = "agents",
    params(PartParam),
    responses((status = 200, body = PartListing), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn part_listing(
    State(state): State<AppState>,
    ApiPath(PartParam { id, run, local }): ApiPath<PartParam>,
) -> ApiResult<Json<PartListing>> {
    let dir = state.fleet.part_dir(&id, &run, &local)?;
    let mut files = Vec::new();
    // Nothing sent yet is an empty part.
    if let Ok(mut entries) = tokio::fs::read_dir(&dir).await {
        while let Ok(Some(entry)) = entries.next_entry().await {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(meta) = entry.metadata().await else {
                continue;
            };
            if meta.is_file() {
                files.push(PartFileLength {
                    name,
                    length: meta.len(),
                });
            }
        }
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Json(PartListing { files }))
}

#[utoipa::path(get, path = "/api/agents/{id}/parts/{run}/{local}/{file}", operation_id = "agent_part_file_read", tag = "agents",
    params(PartFileParam),
    responses((status = 200, content_type = "application/octet-stream", body = Vec<u8>),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn part_file_read(
    State(state): State<AppState>,
    ApiPath(PartFileParam {
        id,
        run,
        local,
        file,
    }): ApiPath<PartFileParam>,
) -> ApiResult<axum::response::Response> {
    let path = state.fleet.part_file(&id, &run, &local, &file)?;
    let opened = tokio::fs::File::open(&path).await.map_err(|_| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("the controller holds no {file} of {local}"),
        )
    })?;
    // Streamed from disk, whatever its size.
    let body = Body::from_stream(tokio_util::io::ReaderStream::new(opened));
    axum::response::Response::builder()
        .header(axum::http::header::CONTENT_TYPE, "application/octet-stream")
        .body(body)
        .map_err(|e| ApiError::from(FleetError::Io(e.to_string())))
}

#[utoipa::path(post, path = "/api/agents/{id}/done", operation_id = "agent_shard_done", tag = "agents",
    params(AgentIdParam), request_body = ShardDone,
    responses((status = 204), (status = 404, body = ErrorBody)))]
pub async fn done(
    State(state): State<AppState>,
    ApiPath(AgentIdParam { id }): ApiPath<AgentIdParam>,
    ApiJson(done): ApiJson<ShardDone>,
) -> ApiResult<StatusCode> {
    state.fleet.shard_done(&id, done)?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(post, path = "/api/agents/{id}/leave", operation_id = "agent_leave", tag = "agents",
    params(AgentIdParam),
    responses((status = 204), (status = 404, body = ErrorBody)))]
pub async fn leave(
    State(state): State<AppState>,
    ApiPath(AgentIdParam { id }): ApiPath<AgentIdParam>,
) -> ApiResult<StatusCode> {
    state.fleet.leave(&id)?;
    Ok(StatusCode::NO_CONTENT)
}
