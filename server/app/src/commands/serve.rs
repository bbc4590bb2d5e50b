//! `keystorm serve`: the HTTP API and web UI (over HTTPS with `--tls-cert`) until
//! Ctrl-C; a run in progress is then stopped cleanly (its results written) before the
//! server exits.

use std::net::SocketAddr;

use crate::api::{AppState, ServeConfig, router};
use crate::cli::ServeArgs;
use crate::{CliError, exit};

pub async fn serve(args: ServeArgs) -> Result<u8, CliError> {
    let token = args.token.filter(|t| !t.is_empty());
    if !args.bind.is_loopback() && token.is_none() {
        return Err(CliError::bad_input(format!(
            "binding to {} exposes the API beyond this machine: set --token (or KEYSTORM_TOKEN) \
             so that only holders of the token can start load",
            args.bind
        )));
    }
    if token.as_ref().is_some_and(|t| t.len() < 16) {
        return Err(CliError::bad_input(
            "the token must be at least 16 characters",
        ));
    }
    let tls = super::serve_tls::prepare(&args.tls, args.bind)?;
    let state = AppState::new(ServeConfig {
        workloads_dir: args.workloads.clone(),
        results_dir: args.results.results.clone(),
        token,
        ui_dev_url: args.ui_dev_url.clone(),
        default_endpoint: args.default_endpoint.clone(),
    });
    // A run across agents this results folder was serving when the server was killed
    // (or its host went down) goes on: the agents register again and carry on.
    state
        .active
        .pick_up_fleet_run(&state.fleet, state.metrics.clone());
    let addr = SocketAddr::new(args.bind, args.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| CliError::failed(format!("cannot listen on {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| CliError::failed(e.to_string()))?;
    let stop = super::signals::shutdown_signal();
    // One line that scripts can wait for and parse.
    let scheme = if tls.is_some() { "https" } else { "http" };
    stdoutln!("keystorm serving {scheme}://{local}");

    if let Some(name) = &args.start {
        crate::api::start_named(&state, name)
            .await
            .map_err(|e| CliError::failed(format!("cannot start {name}: {}", e.body.detail)))?;
    }

    let active = state.active.clone();
    let app = router(state);
    let shutdown = async move {
        stop.await;
        match active.current() {
            Some(run) => {
                match &run.run_id {
                    Some(id) => stderrln!("stopping: letting run {id} write its results"),
                    None => stderrln!("stopping: letting the run being set up end"),
                }
                active.stop_and_wait().await;
            }
            None => stderrln!("stopping: no run in progress"),
        }
    };
    let served = match tls {
        Some(pair) => {
            let listener = crate::tls::TlsListener::new(listener, pair)
                .map_err(|e| CliError::failed(format!("cannot listen on {local}: {e}")))?;
            axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await
        }
        None => {
            axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await
        }
    };
    served.map_err(|e| CliError::failed(format!("server error: {e}")))?;
    Ok(exit::OK)
}
