//! `keystorm agent --controller URL`: serve a controller until Ctrl-C (a shard running
//! then writes and sends its results first; a second Ctrl-C leaves at once).

use tokio_util::sync::CancellationToken;

use super::signals::{shutdown_signal, watch_interrupts};
use crate::agent::{AgentConfig, Link, serve};
use crate::cli::AgentArgs;
use crate::{CliError, exit};

pub async fn agent(args: AgentArgs) -> Result<u8, CliError> {
    let link =
        Link::new(&args.controller, args.token.clone(), &args.link).map_err(CliError::bad_input)?;
    let name = args.name.clone().unwrap_or_else(crate::agent::host_name);
    let valid = crate::fleet::protocol::valid_agent_name(&name);
    if !valid {
        return Err(CliError::bad_input(format!(
            "agent name {name:?}: 1-64 letters, digits, '.', '_' or '-' (set --name)"
        )));
    }
    if let Some(e) = &args.endpoint
        && !(e.starts_with("http://") || e.starts_with("https://"))
    {
        return Err(CliError::bad_input(format!(
            "endpoint {e:?} must start with http:// or https://"
        )));
    }
    if let Some(warning) = link.unencrypted_warning() {
        stderrln!("warning: {warning}");
    }
    let stop = CancellationToken::new();
    let watcher = crate::output::spawn(watch_interrupts(
        stop.clone(),
        shutdown_signal(),
        "a shard running here writes and sends its results first",
    ));
    let served = serve(
        link,
        AgentConfig {
            name,
            results_root: args.results.results.clone(),
            endpoint: args.endpoint.clone(),
            progress: args.progress,
        },
        stop,
    )
    .await;
    watcher.abort();
    served.map_err(|e| CliError::failed(e.to_string()))?;
    Ok(exit::OK)
}
