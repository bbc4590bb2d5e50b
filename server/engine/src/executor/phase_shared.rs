//! What a phase's workers share while it runs: the operations issued, the open-loop
//! slots, the stop token, and the run's first errors and integrity findings. The phase builds it and the
//! workers read it, so it stands apart from both and neither imports the other for it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

/// State shared by a phase's workers.
pub(crate) struct PhaseShared {
    /// Operations started (for operation-count ends and open-loop slots); a resumed
    /// phase starts at the operations its earlier parts finished.
    pub issued: AtomicU64,
    /// How long this part of a `duration` phase runs: the duration, less what earlier
    /// parts ran.
    pub run_for: Option<Duration>,
    /// Open-loop schedule slots handed out.
    pub slots: AtomicU64,
    /// An open-loop phase's workers wait for their slots on these.
    pub alarms: Option<keystorm_timer::Alarms>,
    pub stop: CancellationToken,
    pub start: Instant,
    /// Set once a worker found nothing to read, so the warning is given once.
    pub empty_warned: AtomicBool,
    /// The run's first failure of each error class (shown as warnings).
    pub first_errors: Arc<super::first_errors::FirstErrors>,
    /// The run's first objects found corrupt or missing (written to the events).
    pub integrity: Arc<super::integrity::Examples>,
    /// The keys a phase reading a key file or a listing picks from.
    pub keys: Option<Arc<crate::keyset::KeySet>>,
    /// An `epochs` phase's picks.
    pub epochs: Option<Arc<crate::keyset::EpochPicks>>,
    /// A long step of the phase without requests of its own (an audit's comparison),
    /// told with its intervals.
    pub step: Arc<crate::step_meter::StepMeter>,
}

impl PhaseShared {
    /// The next open-loop slot number.
    pub fn slot(&self) -> u64 {
        self.slots.fetch_add(1, Ordering::Relaxed)
    }

    /// When this part of a `duration` phase ends.
    pub fn deadline(&self) -> Option<Instant> {
        self.run_for.map(|d| self.start + d)
    }

    /// Whether this part of a `duration` phase has reached its deadline.
    pub fn past_deadline(&self) -> bool {
        self.deadline().is_some_and(|at| Instant::now() >= at)
    }
}
