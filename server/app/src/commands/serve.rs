//! `keystorm serve`: the HTTP API and web UI (over HTTPS with `--tls-cert`) until
//! Ctrl-C; a run in progress is then stopped cleanly (its results written) before the
//! server exits.

use std::net::SocketAddr;

use super::token_source::{self, READ_TOKEN, TOKEN};
use crate::CliError;
use crate::cli::ServeArgs;
use keystorm_console::exit;
use keystorm_server::api::{AllowedHosts, AppState, ServeConfig, router};

pub async fn serve(args: ServeArgs) -> Result<u8, CliError> {
    let token = token_source::token(&TOKEN, args.token, args.token_file.as_deref())?;
    if !args.bind.is_loopback() && token.is_none() {
        return Err(CliError::bad_input(format!(
            "binding to {} exposes the API beyond this machine: give a token in KEYSTORM_TOKEN \
             or --token-file so that only holders of the token can read results or start load",
            args.bind
        )));
    }
    if token.as_ref().is_some_and(|t| t.len() < 16) {
        return Err(CliError::bad_input(
            "the token must be at least 16 characters",
        ));
    }
    let read_token = read_token(
        token_source::token(
            &READ_TOKEN,
            args.read_token,
            args.read_token_file.as_deref(),
        )?,
        token.as_deref(),
    )?;
    let hosts = AllowedHosts::new(
        args.bind.is_loopback(),
        &args.allowed_host,
        args.public_url.as_slice(),
    )
    .map_err(|e| CliError::bad_input(e.to_string()))?;
    if let Some(list) = &args.default_endpoint {
        keystorm_types::check_endpoint_urls(list)
            .map_err(|refusal| CliError::bad_input(format!("--default-{refusal}")))?;
    }
    let tls = super::serve_tls::prepare(&args.tls, args.bind)?;
    let state = AppState::new(ServeConfig {
        workloads_dir: args.workloads.clone(),
        results_dir: args.results.results.clone(),
        token,
        read_token,
        ui_dev_url: args.ui_dev_url.clone(),
        default_endpoint: args.default_endpoint.clone(),
        part_caps: keystorm_server::fleet::PartCaps {
            file: args.max_shard_file_size,
            run: args.max_run_copy_size,
        },
        hosts,
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
        keystorm_server::api::start_named(&state, name)
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
            let listener = keystorm_link::tls::TlsListener::new(listener, pair)
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

/// The read-only token, checked: only beside a full token, as long as one, and another.
fn read_token(read_token: Option<String>, token: Option<&str>) -> Result<Option<String>, CliError> {
    let Some(read_token) = read_token else {
        return Ok(None);
    };
    let Some(token) = token else {
        return Err(CliError::bad_input(
            "--read-token (or KEYSTORM_READ_TOKEN) only means something beside --token: \
             it opens the reads of a server whose API needs its token. Set --token too, \
             or leave the read-only token out (without --token, on loopback, everything is open)",
        ));
    };
    if read_token.len() < 16 {
        return Err(CliError::bad_input(
            "the read-only token must be at least 16 characters",
        ));
    }
    if read_token == token {
        return Err(CliError::bad_input(
            "the read-only token must differ from --token: the same value would open everything",
        ));
    }
    Ok(Some(read_token))
}
