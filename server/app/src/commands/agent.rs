//! `keystorm agent --controller URL`: serve a controller until Ctrl-C (a shard running
//! then writes and sends its results first; a second Ctrl-C leaves at once).

use tokio_util::sync::CancellationToken;

use super::signals::{shutdown_signal, watch_interrupts};
use crate::CliError;
use crate::cli::AgentArgs;
use keystorm_agent::{AgentConfig, serve};
use keystorm_console::exit;
use keystorm_link::bounds::{MAX_HOST_CHARS, check_host, clip, shown, valid_agent_name};
use keystorm_link::client::Link;

pub async fn agent(args: AgentArgs) -> Result<u8, CliError> {
    let token = super::token_source::token(
        &super::token_source::TOKEN,
        args.token.clone(),
        args.token_file.as_deref(),
    )?;
    let link = Link::new(&args.controller, token, &args.link.client_tls())
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    let host = keystorm_agent::host_name();
    let name = args.name.clone().unwrap_or_else(|| host.clone());
    if !valid_agent_name(&name) {
        return Err(CliError::bad_input(format!(
            "agent name {}: 1-64 letters, digits, '.', '_' or '-', not only dots (set --name)",
            shown(&name)
        )));
    }
    // The host is only shown: one the controller would refuse is sent made printable.
    let host = match check_host(&host) {
        Ok(()) => host,
        Err(e) => {
            let clipped = clip(&host, MAX_HOST_CHARS, false);
            stderrln!("warning: this machine's {e}; the controller is told {clipped:?}");
            clipped
        }
    };
    if keystorm_results::secrets::active().finds_in(&name) {
        return Err(CliError::bad_input(
            "the agent's name holds the value of a secret (a key of this host's environment, \
             or the controller's token), and names are shown to everyone who reads the \
             controller: set another --name",
        ));
    }
    let endpoint = super::target::endpoint_list(&args.endpoint)?;
    if let Some(warning) = link.unencrypted_warning() {
        stderrln!("warning: {warning}");
    }
    let stop = CancellationToken::new();
    let watcher = keystorm_console::output::spawn(watch_interrupts(
        stop.clone(),
        shutdown_signal(),
        "a shard running here writes and sends its results first",
    ));
    let served = serve(
        link,
        AgentConfig {
            name,
            host,
            results_root: args.results.results.clone(),
            endpoint: endpoint.clone(),
            progress: args.progress,
        },
        stop,
    )
    .await;
    watcher.abort();
    served.map_err(|e| CliError::failed(e.to_string()))?;
    Ok(exit::OK)
}
