//! The simulator wired in as the embedded target of runs. The engine is a client of
//! stores and knows the embedded target only through the workload model's
//! [`EmbeddedTargets`] trait; the simulator knows nothing of workloads. This crate is the one place that knows both: it turns a
//! plan's `target.embedded` section (index imitation, latency, faults, memory budget)
//! into a [`SimConfig`] and starts the simulator with it.

use keystorm_workload::embedded_target::{EmbeddedTarget, EmbeddedTargets, Starting};
use std::collections::BTreeMap;

use keystorm_sim::{FaultConfig, IndexConfig, LatencyConfig, ObjectOp, SimConfig, SimHandle};
use keystorm_types::OpKind;
use keystorm_workload::plan::{DelayPlan, EmbeddedPlan, EmbeddedStorage, FaultsPlan};

/// Starts the simulator for runs whose workload says `endpoint: embedded`.
#[derive(Debug, Default, Clone, Copy)]
pub struct SimTargets;

impl EmbeddedTargets for SimTargets {
    fn start<'a>(
        &'a self,
        plan: &'a EmbeddedPlan,
        storage: EmbeddedStorage,
        access_key: &'a str,
        secret_key: &'a str,
    ) -> Starting<'a> {
        Box::pin(async move {
            let config = SimConfig {
                storage: match storage {
                    EmbeddedStorage::Memory => keystorm_sim::Storage::Memory,
                    EmbeddedStorage::SizeOnly => keystorm_sim::Storage::SizeOnly,
                },
                credentials: Some((access_key.to_string(), secret_key.to_string())),
                ..sim_config(plan)
            };
            let addr = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
            let handle = keystorm_sim::start(addr, config).await?;
            Ok(Box::new(Running(handle)) as Box<dyn EmbeddedTarget>)
        })
    }
}

/// A started simulator; dropping the handle stops it.
struct Running(SimHandle);

impl EmbeddedTarget for Running {
    fn endpoint(&self) -> String {
        self.0.endpoint()
    }
}

/// The simulator's configuration for a plan's embedded section (storage and
/// credentials are left at their defaults for the caller to set). The one translation
/// from keystorm's settings to the simulator's: a workload's `target.embedded` and
/// `keystorm sim`'s flags both come through here.
pub fn sim_config(plan: &EmbeddedPlan) -> SimConfig {
    let i = &plan.index;
    SimConfig {
        index: IndexConfig {
            default_shards: i.shards,
            dynamic: i.dynamic,
            max_objs_per_shard: i.max_objs_per_shard,
            check_interval: i.check_interval,
            reshard_time_per_object: i.reshard_time_per_object,
            retry_step: i.retry_step,
            list_time_per_shard: i.list_time_per_shard,
        },
        latency: sim_latency(&plan.latency),
        faults: sim_faults(&plan.faults),
        max_memory: plan.max_memory,
        max_inflight: plan.max_inflight,
        ..Default::default()
    }
}

/// The simulator's injected faults (the target's, or a port's of `keystorm sim`).
pub fn sim_faults(faults: &FaultsPlan) -> FaultConfig {
    FaultConfig {
        slow_down: faults.slow_down,
        internal_error: faults.internal_error,
        reset: faults.reset,
        stall: faults.stall,
        key_error: faults.key_error,
        corrupt: faults.corrupt,
        lose_on_reshard: faults.lose_on_reshard,
        list_twice: faults.list_twice,
        stall_time: faults.stall_time,
        seed: faults.seed,
        ops: faults.ops.iter().map(|&op| object_op(op)).collect(),
    }
}

/// The simulator's added latency per operation.
pub fn sim_latency(latency: &BTreeMap<OpKind, DelayPlan>) -> LatencyConfig {
    let delay = |op| latency.get(&op).map(|d| d.delay);
    LatencyConfig {
        put: delay(OpKind::Put),
        get: delay(OpKind::Get),
        head: delay(OpKind::Head),
        list: delay(OpKind::List),
        delete: delay(OpKind::Delete),
    }
}

/// The injection group of a phase operation.
fn object_op(op: OpKind) -> ObjectOp {
    match op {
        OpKind::Put => ObjectOp::Put,
        OpKind::Get => ObjectOp::Get,
        OpKind::Head => ObjectOp::Head,
        OpKind::List => ObjectOp::List,
        OpKind::Delete => ObjectOp::Delete,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_without_an_index_section_starts_the_simulator_with_its_defaults() {
        let from_plan = sim_config(&EmbeddedPlan::default()).index;
        let sim = IndexConfig::default();
        assert_eq!(from_plan.default_shards, sim.default_shards);
        assert_eq!(from_plan.dynamic, sim.dynamic);
        assert_eq!(from_plan.max_objs_per_shard, sim.max_objs_per_shard);
        assert_eq!(from_plan.check_interval, sim.check_interval);
        assert_eq!(
            from_plan.reshard_time_per_object,
            sim.reshard_time_per_object
        );
        assert_eq!(from_plan.retry_step, sim.retry_step);
        assert_eq!(from_plan.list_time_per_shard, sim.list_time_per_shard);
    }

    #[test]
    fn every_written_latency_reaches_its_operation() {
        let written = |text: &str| DelayPlan {
            text: text.to_string(),
            delay: text.parse().unwrap(),
        };
        let latency = BTreeMap::from([
            (OpKind::Get, written("2ms")),
            (OpKind::List, written("lognormal:2ms,20ms")),
        ]);
        let sim = sim_latency(&latency);
        assert_eq!(sim.get, Some(latency[&OpKind::Get].delay));
        assert_eq!(sim.list, Some(latency[&OpKind::List].delay));
        assert_eq!((sim.put, sim.head, sim.delete), (None, None, None));
    }
}
