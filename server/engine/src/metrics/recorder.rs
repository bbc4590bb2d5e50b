//! A worker's private accumulator for the current interval; the collector swaps it out
//! once a second, so recording on the hot path takes an uncontended lock.

use std::sync::{Arc, Mutex};

use keystorm_results::metrics::IntervalStats;

/// Shared between one worker (records) and the collector (drains).
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    current: Arc<Mutex<IntervalStats>>,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder::default()
    }

    /// Runs `f` on the current interval's stats.
    pub fn with<R>(&self, f: impl FnOnce(&mut IntervalStats) -> R) -> R {
        let mut g = self.current.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut g)
    }

    /// Takes the interval's stats, leaving empty ones behind.
    pub fn drain_into(&self, into: &mut IntervalStats) {
        let mut fresh = IntervalStats::default();
        {
            let mut g = self.current.lock().unwrap_or_else(|p| p.into_inner());
            std::mem::swap(&mut *g, &mut fresh);
        }
        into.merge(&fresh);
    }
}
