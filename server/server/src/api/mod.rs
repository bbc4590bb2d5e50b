//! `keystorm serve`: the HTTP API (one module per resource) and the embedded web UI.
//!
//! Routes live under `/api`, plus `/metrics` for Prometheus; anything else is the UI.
//! Every error is JSON (`{error, detail}`); every request passes the [`security`]
//! browser guard (a `Host` this server answers to; for calls that change state, no
//! other site's page), the API and `/metrics` the token guard (the agent link its own,
//! and a registered agent's calls the [`agent_key`] guard); request bodies are capped,
//! and every answer carries the [`security_headers`].

mod active;
mod agent_key;
mod agents;
mod allowed_hosts;
mod compare;
mod distribution;
mod endpoints;
mod error;
mod events;
mod exports;
mod fleet_runs;
mod heatmap;
mod heatmap_cache;
mod heatmap_filter;
mod hub;
mod index;
mod integrity;
mod listings;
mod metrics;
mod openapi;
mod openapi_errors;
mod openapi_security;
mod params;
mod prometheus;
pub mod reports;
mod run_files;
mod runs;
mod security;
mod security_headers;
mod state;
mod status;
mod streamed;
mod timeline;
mod ui;
mod workloads;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::{Json, Router};

pub use active::Active;
pub use allowed_hosts::{AllowedHostError, AllowedHosts};
pub use error::{ApiError, ErrorBody};
pub use openapi::openapi_json;
pub use security::Access;
pub use state::{AppState, ServeConfig};
pub use status::Status;

/// Largest request body accepted (workload YAML is far smaller).
pub const BODY_LIMIT: usize = 1024 * 1024;

/// The whole application: API, metrics and UI.
pub fn router(state: AppState) -> Router {
    // The calls of a registered agent: each with the key it was given.
    let agents_own_calls = Router::new()
        .route("/agents/{id}/heartbeat", post(agents::heartbeat))
        .route("/agents/{id}/barrier", post(agents::barrier))
        .route("/agents/{id}/search", post(agents::search_step))
        .route("/agents/{id}/done", post(agents::done))
        .route("/agents/{id}/leave", post(agents::leave))
        .route(
            "/agents/{id}/parts/{run}/{local}",
            get(agents::part_listing),
        )
        .route(
            "/agents/{id}/parts/{run}/{local}/{file}",
            // A part's files are streamed to disk, whatever their size.
            axum::routing::put(agents::part_file)
                .layer(DefaultBodyLimit::disable())
                .get(agents::part_file_read),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            agent_key::agent_key_guard,
        ));
    // The agent link: only agents call it, with the full token.
    let agent_link = Router::new()
        .route("/agents/register", post(agents::register))
        .merge(agents_own_calls)
        .route_layer(axum::middleware::from_fn(security::agents_only));
    let api = Router::new()
        .route("/status", get(status::status))
        .route("/openapi.json", get(openapi::serve))
        .route("/workloads", get(workloads::list))
        .route("/workloads/validate", post(workloads::validate))
        .route(
            "/workloads/{name}",
            get(workloads::read).put(workloads::save),
        )
        .route("/runs", get(runs::list).post(runs::start))
        .route(
            "/runs/{id}",
            get(runs::read).patch(runs::edit).delete(runs::delete),
        )
        .route("/compare", get(compare::compare))
        .route("/runs/{id}/stop", post(runs::stop))
        .route("/runs/{id}/events", get(events::stream))
        .route("/runs/{id}/intervals", get(runs::intervals))
        .route("/runs/{id}/index", get(index::index))
        .route("/runs/{id}/listings", get(listings::listings))
        .route("/runs/{id}/integrity", get(integrity::integrity))
        .route("/runs/{id}/timeline", get(timeline::timeline))
        .route("/runs/{id}/endpoints", get(endpoints::endpoints))
        .route("/runs/{id}/distribution", get(distribution::distribution))
        .route("/runs/{id}/heatmap", get(heatmap::heatmap_of_run))
        .route("/runs/{id}/export/{file}", get(exports::export))
        .route("/agents", get(agents::list))
        .merge(agent_link)
        .fallback(api_not_found)
        .method_not_allowed_fallback(method_not_allowed);
    // Everything with data needs the token (when the server has one); the UI's files
    // do not, so the page can load and ask for it.
    let with_data = Router::new()
        .nest("/api", api)
        .route("/metrics", get(metrics::metrics))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            security::token_guard,
        ));
    let (policy, frames, sniffing, referrer) =
        security_headers::layers(state.config.ui_dev_url.is_some());
    Router::new()
        .merge(with_data)
        .fallback(ui::serve)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            security::browser_guard,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(policy)
        .layer(frames)
        .layer(sniffing)
        .layer(referrer)
        .with_state(state)
}

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{method} is not allowed on {}", uri.path()),
    )
}

async fn api_not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no API route {}", uri.path()))
}

/// Starts a workload of the workloads folder by name (as `POST /api/runs` does).
pub async fn start_named(state: &AppState, name: &str) -> Result<String, ApiError> {
    // The command that started it, as a user typed it (less the server's other
    // options, such as its token).
    let started_by = ["keystorm", "serve", "--start", name]
        .map(String::from)
        .to_vec();
    let (status, Json(started)) = runs::start_run(
        state,
        runs::StartRunRequest {
            workload: Some(name.to_string()),
            yaml: None,
            endpoint: None,
            labels: Default::default(),
            agents: None,
        },
        Some(started_by),
    )
    .await?;
    debug_assert_eq!(status, axum::http::StatusCode::CREATED);
    Ok(started.run_id)
}
