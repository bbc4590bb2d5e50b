//! Tells a long step's progress every second while it goes, and once more when it is
//! done (if it lasted a second): for the listing that gathers a phase's keys, which runs
//! before the phase's own intervals (and their ticks) begin.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use keystorm_results::{PhaseRef, RunEvent};
use tokio_util::sync::CancellationToken;

use super::context::RunContext;
use crate::step_meter::StepMeter;

/// Runs `work`, telling `meter`'s look as a `step` event every second.
pub(crate) async fn ticking<T>(
    ctx: &RunContext,
    phase: &PhaseRef,
    meter: &StepMeter,
    work: impl std::future::Future<Output = T>,
) -> T {
    const EVERY: Duration = Duration::from_secs(1);
    let finished = CancellationToken::new();
    let told = AtomicBool::new(false);
    let (out, ()) = tokio::join!(
        async {
            let out = work.await;
            finished.cancel();
            out
        },
        async {
            let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + EVERY, EVERY);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = finished.cancelled() => break,
                }
                if let Some(step) = meter.look(phase) {
                    told.store(true, Ordering::Relaxed);
                    ctx.emit(RunEvent::Step(step));
                }
            }
        }
    );
    meter.end();
    match meter.look(phase) {
        Some(last) if told.load(Ordering::Relaxed) => {
            ctx.emit(RunEvent::Step(last));
        }
        _ => {}
    }
    out
}
