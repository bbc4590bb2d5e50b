//! `keystorm run W --controller URL --agents N`: the workload split over a
//! controller's agents. The workload is checked here, sent to the controller, and
//! followed until the merged run is written; the tables are the merged run's, plus
//! each shard's own throughput and tail latency.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use keystorm_results::{Manifest, RunStatus, Summary};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::signals::{shutdown_signal, watch_interrupts};
use crate::CliError;
use crate::cli::RunArgs;
use keystorm_console::exit;
use keystorm_link::client::{Link, LinkError};
use keystorm_server::fleet::AgentsView;

#[derive(Serialize)]
struct StartRequest<'a> {
    yaml: &'a str,
    endpoint: Option<&'a str>,
    labels: BTreeMap<String, String>,
    agents: u32,
}

#[derive(Deserialize)]
struct Started {
    run_id: String,
}

#[derive(Deserialize)]
struct RunDetail {
    manifest: Manifest,
    summary: Option<Summary>,
    verdict: Option<keystorm_results::RunVerdict>,
}

pub async fn run(args: RunArgs) -> Result<u8, CliError> {
    let url = args.controller.as_deref().unwrap_or_default();
    let agents = args.agents.unwrap_or(1);
    let token = super::token_source::token(
        &super::token_source::TOKEN,
        args.token.clone(),
        args.token_file.as_deref(),
    )?;
    let link = Link::new(url, token, &args.link.client_tls())
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    if let Some(warning) = link.unencrypted_warning() {
        stderrln!("warning: {warning}");
    }
    let Some(path) = &args.workload else {
        return Err(CliError::bad_input("a workload file is needed"));
    };
    let (plan, text) = super::inputs::load(path)?;
    if let Some(refusal) = keystorm_server::fleet::inline_keys_refusal(&plan) {
        return Err(CliError::bad_input(refusal));
    }
    let endpoint = super::target::endpoint_list(&args.endpoint)?;
    let request = StartRequest {
        yaml: &text,
        endpoint: endpoint.as_deref(),
        labels: args.labels.iter().cloned().collect(),
        agents,
    };
    let run_id = start(&link, &request, args.wait_agents).await?;
    stderrln!("run {run_id}: split over {agents} agents of {url}");
    let stop = CancellationToken::new();
    let watcher = keystorm_console::output::spawn(watch_interrupts(
        stop.clone(),
        shutdown_signal(),
        "the agents finish in-flight requests and send their results",
    ));
    let followed = follow(&link, &run_id, &stop).await;
    watcher.abort();
    let view = followed?;
    for warning in &view.warnings {
        stderrln!("warning: {warning}");
    }
    if view.state != "completed" {
        return Err(CliError::failed(format!(
            "run {run_id} {}: {}",
            view.state,
            view.error.unwrap_or_default()
        )));
    }
    let detail: RunDetail = link
        .get(&format!("/api/runs/{run_id}"))
        .await
        .map_err(|e| CliError::failed(e.to_string()))?;
    if let Some(summary) = detail.summary.filter(|s| !s.rows.is_empty()) {
        stdout!("{}", keystorm_console::table::summary_text(&summary.rows));
        stdout!("{}", keystorm_console::table::curves_text(&summary));
        stdout!(
            "\n{}",
            super::merge::per_shard_table(&detail.manifest.merged_from)
        );
    }
    stderrln!(
        "run {run_id} {} across {agents} agents; merged results in the controller's results \
         folder (shards under its shards/)",
        detail.verdict.as_ref().map_or_else(
            || detail.manifest.status.as_str().to_string(),
            |v| v.headline()
        )
    );
    Ok(match detail.manifest.status {
        RunStatus::Completed => {
            super::exit_code::completed_code(detail.verdict.as_ref(), args.allow_not_as_written)
        }
        RunStatus::Interrupted => exit::INTERRUPTED,
        _ => exit::FAILED,
    })
}

/// Starts the run, waiting (up to `wait`) for enough agents to be idle.
async fn start(
    link: &Link,
    request: &StartRequest<'_>,
    wait: Duration,
) -> Result<String, CliError> {
    let deadline = Instant::now() + wait;
    let mut told = false;
    loop {
        match link.post::<_, Started>("/api/runs", request).await {
            Ok(started) => return Ok(started.run_id),
            Err(e) if e.code() == Some("not_enough_agents") && Instant::now() < deadline => {
                if !told {
                    stderrln!("waiting for agents: {e}");
                    told = true;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(
                e @ LinkError::Refused {
                    status: 400 | 422, ..
                },
            ) => {
                return Err(CliError::bad_input(e.to_string()));
            }
            Err(e) => return Err(CliError::failed(e.to_string())),
        }
    }
}

/// What was last said of a shard: its state, phase, and whom it was taken over from.
type ShownShard = (String, Option<String>, Option<String>);

/// Prints each shard's phase as it changes until the run is merged (or failed).
async fn follow(
    link: &Link,
    run_id: &str,
    stop: &CancellationToken,
) -> Result<keystorm_server::fleet::FleetRunView, CliError> {
    let mut shown: Vec<ShownShard> = Vec::new();
    let mut events_shown: u64 = 0;
    let mut stop_sent = false;
    let mut away_since: Option<Instant> = None;
    loop {
        if stop.is_cancelled() && !stop_sent {
            stop_sent = true;
            if let Err(e) = link
                .post::<_, Started>(&format!("/api/runs/{run_id}/stop"), &())
                .await
            {
                stderrln!("cannot stop run {run_id}: {e}");
            }
        }
        let view: AgentsView = match link.get("/api/agents").await {
            Ok(v) => {
                away_since = None;
                v
            }
            Err(e) if e.is_transient() => {
                let since = *away_since.get_or_insert_with(Instant::now);
                if since.elapsed() > Duration::from_secs(60) {
                    return Err(CliError::failed(format!(
                        "{e}; the run goes on there: see its Agents page"
                    )));
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
            Err(e) => return Err(CliError::failed(e.to_string())),
        };
        let Some(run) = view.run.filter(|r| r.run_id == run_id) else {
            return Err(CliError::failed(format!(
                "the controller no longer knows run {run_id} (did it restart?)"
            )));
        };
        let now: Vec<ShownShard> = run
            .shards
            .iter()
            .map(|s| (s.state.clone(), s.phase.clone(), s.taken_over_from.clone()))
            .collect();
        for (shard, state) in run.shards.iter().zip(&now) {
            if shown.get(shard.index as usize) != Some(state) {
                let taken = shown
                    .get(shard.index as usize)
                    .is_some_and(|before| before.2 != shard.taken_over_from);
                stderrln!(
                    "shard {}/{} ({}): {}{}{}",
                    shard.index,
                    run.shards.len(),
                    shard.agent,
                    shard.state,
                    shard
                        .phase
                        .as_ref()
                        .map(|p| format!(", {p}"))
                        .unwrap_or_default(),
                    match (&shard.taken_over_from, taken) {
                        (Some(from), true) => format!(
                            " (taken over from {from}{})",
                            keystorm_server::fleet::waited_words(Duration::from_secs_f64(
                                shard.waited_s.unwrap_or(0.0)
                            ))
                        ),
                        _ if shard.state == "lost" => {
                            ", waiting for an idle agent to take it over".to_string()
                        }
                        _ => String::new(),
                    }
                );
            }
        }
        shown = now;
        events_shown = say_new_events(&run, events_shown);
        if matches!(run.state.as_str(), "completed" | "failed") {
            return Ok(run);
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
            _ = stop.cancelled(), if !stop_sent => {}
        }
    }
}

/// Prints the run's fleet events past the first `shown` (agents lost and back, the
/// controller cut off or restarted); how many have been shown now.
fn say_new_events(run: &keystorm_server::fleet::FleetRunView, shown: u64) -> u64 {
    let first_listed = run.events_total - run.events.len() as u64;
    for (i, event) in run.events.iter().enumerate() {
        // A takeover is said on its shard's line, with how long the shard waited.
        if first_listed + i as u64 >= shown
            && event.kind != keystorm_results::FleetEventKind::Takeover
        {
            stderrln!("{}", event.describe());
        }
    }
    run.events_total.max(shown)
}
