//! Starting a run split over the agents connected to this server: checked here like
//! any run (and for what a shard cannot do), then handed to the fleet.

use std::collections::BTreeMap;

use keystorm_results::{RunOverrides, Shard};
use keystorm_workload::plan::{Endpoint, OnAgentLoss, Plan};

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::fleet::NewFleetRun;

/// Most agents one run is split over.
pub const MAX_AGENTS: u32 = 1024;

/// A validated run to split.
pub struct Split {
    pub plan: Plan,
    pub text: String,
    pub file: Option<String>,
    pub endpoint: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub agents: u32,
    pub command_line: Vec<String>,
}

/// Splits the run over `agents` idle agents; its id (the merged run's, once written).
pub fn start(state: &AppState, split: Split) -> ApiResult<String> {
    let Split {
        mut plan,
        text,
        file,
        endpoint,
        labels,
        agents,
        command_line,
    } = split;
    if !(1..=MAX_AGENTS).contains(&agents) {
        return Err(ApiError::bad_request(format!(
            "agents must be 1 to {MAX_AGENTS}, got {agents}"
        )));
    }
    let cannot = |message: String| {
        ApiError::new(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            "cannot_start",
            message,
        )
    };
    if matches!(plan.target.endpoint, Endpoint::Embedded { .. }) && endpoint.is_none() {
        return Err(cannot(
            "agents need a target they all reach, and the embedded target lives inside one \
             process: give an endpoint (e.g. a `keystorm sim` or your store)"
                .to_string(),
        ));
    }
    if let Some(refusal) = crate::fleet::inline_keys_refusal(&plan) {
        return Err(cannot(refusal));
    }
    plan.apply_overrides(&RunOverrides {
        endpoint: endpoint.clone(),
        ..Default::default()
    })
    .map_err(|e| cannot(e.to_string()))?;
    // What a shard cannot do is refused now, not on every agent.
    plan.clone()
        .for_shard(Shard {
            index: 0,
            count: agents,
        })
        .map_err(|e| cannot(e.to_string()))?;
    let plan_json = serde_json::to_value(&plan)
        .map_err(|e| ApiError::internal(format!("cannot write the plan: {e}")))?;
    // The endpoint the agents are sent to: the run's own, else the workload's (the
    // plan's overrides leave the endpoint to the connection).
    let target = match &endpoint {
        Some(url) => url.clone(),
        None => plan.target.endpoint.describe(),
    };
    let spec = NewFleetRun {
        workload: plan.name.clone(),
        // What the agents are sent and the controller keeps: nothing a secret could be.
        text: keystorm_workload::spec::redact_secrets(&text),
        workload_file: file,
        endpoint,
        labels,
        agents,
        plan: plan_json,
        command_line,
        target,
        client: format!("{:?}", plan.target.client).to_lowercase(),
        seed: plan.keyspace.seed,
        phases: keystorm_engine::executor::schedule(&plan).len(),
        searches: crate::fleet::SearchSpec::of_schedule(&keystorm_engine::executor::schedule(
            &plan,
        )),
        abort_on_loss: plan.agents.on_loss == OnAgentLoss::Abort,
        buckets: plan.bucket_names(),
    };
    state
        .active
        .adopt_fleet_run(&state.fleet, spec, state.metrics.clone())
}
