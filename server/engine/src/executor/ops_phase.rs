//! An operations phase: `workers` closed-loop workers (or an open loop's requests in
//! flight), each issuing the phase's operation or a draw of its mix until the
//! phase's end (see [`super::worker`]).

use std::sync::Arc;

use tokio::task::JoinSet;

use super::context::RunContext;
use super::phase_shared::PhaseShared;
use super::worker::Worker;
use crate::metrics::Recorder;
use crate::plan::PhasePlan;

/// Starts the phase's `workers`; each records into one of `recorders`.
pub(crate) fn start(
    ctx: &RunContext,
    plan: &PhasePlan,
    workers: u32,
    position: usize,
    shared: &Arc<PhaseShared>,
    recorders: &[Recorder],
    tasks: &mut JoinSet<Option<String>>,
) {
    for id in 0..workers {
        let worker = Worker::new(
            ctx,
            plan,
            shared.clone(),
            recorders[id as usize % recorders.len()].clone(),
            position,
            id,
        );
        tasks.spawn(worker.run());
    }
}
