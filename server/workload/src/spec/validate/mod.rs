//! Raw workload -> [`Plan`]: defaults filled in, every rule checked, every error
//! pointing at the line and column of the value at fault. One file per section of the
//! workload; this one puts the sections together and checks what spans them.

mod access;
mod audit;
mod buckets;
mod end;
mod expect;
mod gateways;
mod keys;
mod keyspace;
mod listing;
mod objects;
mod parallel;
mod phase;
mod phases;
mod search;
mod select;
mod sweep;
mod tail_marks;
mod target;
mod transfer;
mod values;
mod window;
mod work;

use std::time::Duration;

use super::SpecWarning;
use super::raw::*;
use crate::plan::*;
use buckets::buckets;
use keyspace::keyspace;
use objects::objects;
use phases::{PhaseAt, RoundsAt, phases};
use target::target;
use window::check_window;

pub(super) use access::{credentials, endpoint_url};
pub(super) use values::{Located, R, at, duration, in_range, loc_of, positive, shown_name};

/// How often a running phase saves its progress unless `checkpoint_every` says.
const DEFAULT_CHECKPOINT_EVERY: Duration = Duration::from_secs(5);
const MIN_CHECKPOINT_EVERY: Duration = Duration::from_secs(1);
const MAX_CHECKPOINT_EVERY: Duration = Duration::from_secs(3600);

pub fn validate(raw: RawWorkload, warnings: &mut Vec<SpecWarning>) -> R<Plan> {
    let name = shown_name(&raw.name, "`name`")?;
    let buckets = buckets(raw.buckets)?;
    let target = target(raw.target, buckets.index.is_some(), warnings)?;
    let stalls = super::rgw::stalls(raw.stalls)?;
    let checkpoint_every = match &raw.checkpoint_every {
        Some(v) => {
            let every = duration(v, "checkpoint_every")?;
            if !(MIN_CHECKPOINT_EVERY..=MAX_CHECKPOINT_EVERY).contains(&every) {
                return at(
                    loc_of(v),
                    "`checkpoint_every` is between 1s and 1h: a crash costs at most this much work",
                );
            }
            every
        }
        None => DEFAULT_CHECKPOINT_EVERY,
    };
    let agents = agents(raw.agents)?;
    let keyspace = keyspace(raw.keyspace)?;
    let objects = objects(raw.objects)?;

    let before = phases(
        raw.before.unwrap_or_default(),
        "before",
        &buckets.names,
        warnings,
    )?;
    let rounds = match raw.rounds {
        Some(r) => {
            let loc = *loc_of(&r);
            let count = match &r.value.count {
                Some(c) => positive(c, "rounds.count")? as u32,
                None => 1,
            };
            if r.value.phases.is_empty() {
                return at(
                    &loc,
                    "`rounds.phases` is empty: give the phases each round runs",
                );
            }
            RoundsAt {
                count,
                phases: phases(r.value.phases, "rounds", &buckets.names, warnings)?,
            }
        }
        None => RoundsAt {
            count: 0,
            phases: Vec::new(),
        },
    };
    let after = phases(
        raw.after.unwrap_or_default(),
        "after",
        &buckets.names,
        warnings,
    )?;
    if before.is_empty() && rounds.phases.is_empty() && after.is_empty() {
        return at(
            loc_of(&raw.name),
            "the workload has no phases: add `before`, `rounds` or `after`",
        );
    }
    if buckets.names.len() > 1
        && let Some((_, loc)) = before
            .iter()
            .chain(&rounds.phases)
            .chain(&after)
            .find(|(p, _)| p.kind.transfer().is_some())
    {
        return at(
            loc,
            format!(
                "a download or upload phase works on one bucket, and the workload names {}",
                buckets.names.len()
            ),
        );
    }
    let cleanup_loc = raw
        .cleanup
        .as_ref()
        .map_or(*loc_of(&raw.name), |c| *loc_of(c));
    let cleanup = raw
        .cleanup
        .map(|c| CleanupPlan {
            objects: c.value.objects.unwrap_or(false),
            buckets: c.value.buckets.unwrap_or(false),
        })
        .unwrap_or_default();
    let every: Vec<(&PhasePlan, &serde_saphyr::Location)> = before
        .iter()
        .chain(&rounds.phases)
        .chain(&after)
        .map(|(p, l)| (p, l))
        .collect();
    keys::read_only(&every, &buckets.names, &cleanup, &cleanup_loc)?;
    let workload_expect = expect::thresholds(raw.expect.as_ref())?;
    let abort_after = expect::abort_after(raw.expect_abort_after.as_ref())?;
    expect::refuse_idle_abort_after(
        &workload_expect,
        raw.expect_abort_after.as_ref().map(loc_of),
        &every,
    )?;
    check_window(keyspace.existing, &before, &rounds, &after)?;
    let first_verify = before
        .iter()
        .chain(&rounds.phases)
        .chain(&after)
        .find(|(p, _)| p.verify)
        .map(|(_, loc)| *loc);
    let strip = |v: Vec<PhaseAt>| v.into_iter().map(|(p, _)| p).collect();
    let mut plan = Plan {
        name,
        description: raw.description,
        target,
        buckets,
        keyspace,
        objects,
        before: strip(before),
        rounds: RoundsPlan {
            count: rounds.count,
            phases: strip(rounds.phases),
        },
        after: strip(after),
        cleanup,
        stalls,
        checkpoint_every,
        agents,
        expect: workload_expect,
        tail_marks: tail_marks::tail_marks(raw.tail_marks.as_ref())?,
    };
    if let (Some(msg), Some(loc)) = (plan.verify_refusal(), first_verify) {
        return at(&loc, msg);
    }
    expect::inherit_abort_after(&mut plan, abort_after);
    Ok(plan)
}

/// `agents: { on_loss: continue | abort }`.
fn agents(raw: Option<S<RawAgents>>) -> R<AgentsPlan> {
    let Some(raw) = raw else {
        return Ok(AgentsPlan::default());
    };
    let on_loss = match &raw.value.on_loss {
        None => OnAgentLoss::Continue,
        Some(v) => match v.value.as_str() {
            "continue" => OnAgentLoss::Continue,
            "abort" => OnAgentLoss::Abort,
            other => {
                return at(
                    loc_of(v),
                    format!(
                        "`agents.on_loss` is `continue` (the other shards go on) or `abort` \
                         (the run stops), not {other:?}"
                    ),
                );
            }
        },
    };
    Ok(AgentsPlan { on_loss })
}
