//! Saving the run's checkpoint: the one place that writes `checkpoint.json`, from the
//! phase loop (a phase ended or stopped) and from a running phase (every
//! `checkpoint_every`).

use crate::keyspace::WindowState;
use keystorm_results::{Checkpoint, FORMAT_VERSION, PhasePosition, PhaseRef, ResultsError};

use super::context::RunContext;

/// Saves where the run stands: the window's watermarks (writes above them are redone by
/// a resume), `completed` phases done, and the phase running with how far it got.
pub(crate) fn save_checkpoint(
    ctx: &RunContext,
    window: WindowState,
    completed: usize,
    current: Option<(PhaseRef, PhasePosition)>,
) -> Result<(), ResultsError> {
    let (current, position) = match current {
        Some((phase, position)) => (Some(phase), Some(position)),
        None => (None, None),
    };
    let store = ctx.store();
    // Taken with the store held, so no interval is written in between: the marks are
    // what was recorded when the checkpoint was.
    let logs = Some(store.log_marks()?);
    store.write_checkpoint(&Checkpoint {
        format_version: FORMAT_VERSION,
        window,
        current,
        completed,
        position,
        logs,
    })
}
