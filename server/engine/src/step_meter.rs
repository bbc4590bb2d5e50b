//! A meter for a long step without requests of its own (the listing that gathers a
//! phase's keys, an audit's comparison): what step, of which bucket, how many keys done
//! of how many. The step counts as it goes; whoever ticks every second (the phase's
//! intervals, or the key listing's own ticker) reads a [`StepEvent`] from it. Atomics
//! and one small lock: nothing grows with the keys.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use keystorm_results::{PhaseRef, StepEvent, StepKind};

use crate::listing::{PageEvent, PageObserver};

/// The step under way, or the last one until it was told as finished.
struct Running {
    step: StepKind,
    bucket: String,
    started: Instant,
    total: Option<u64>,
    /// Ended, its last look not yet told.
    ended: Option<Instant>,
}

/// See the module's header.
#[derive(Default)]
pub struct StepMeter {
    running: Mutex<Option<Running>>,
    done: AtomicU64,
}

impl StepMeter {
    /// A step begins (the one before, if any, is left untold).
    pub fn begin(&self, step: StepKind, bucket: &str, total: Option<u64>) {
        self.done.store(0, Ordering::Relaxed);
        *self.lock() = Some(Running {
            step,
            bucket: bucket.to_string(),
            started: Instant::now(),
            total,
            ended: None,
        });
    }

    /// Keys done so far in the step under way.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// `n` more keys done.
    pub fn add(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    /// The step is done: its next look is its last.
    pub fn end(&self) {
        if let Some(r) = self.lock().as_mut() {
            r.ended.get_or_insert_with(Instant::now);
        }
    }

    /// How far the step has got, for `phase`; `None` when no step is under way (or its
    /// last look was told).
    pub fn look(&self, phase: &PhaseRef) -> Option<StepEvent> {
        let mut running = self.lock();
        let r = running.as_ref()?;
        let now = r.ended.unwrap_or_else(Instant::now);
        let elapsed_s = now.saturating_duration_since(r.started).as_secs_f64();
        let done = self.done.load(Ordering::Relaxed);
        let per_sec = if elapsed_s > 0.0 {
            done as f64 / elapsed_s
        } else {
            0.0
        };
        let finished = r.ended.is_some();
        let event = StepEvent {
            phase: phase.clone(),
            step: r.step,
            bucket: r.bucket.clone(),
            done,
            total: r.total,
            elapsed_s,
            per_sec,
            eta_s: match r.total {
                Some(t) if per_sec > 0.0 && !finished => {
                    Some(t.saturating_sub(done) as f64 / per_sec)
                }
                _ => None,
            },
            finished,
        };
        if finished {
            *running = None;
        }
        Some(event)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Running>> {
        self.running.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl std::fmt::Debug for StepMeter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepMeter")
            .field("done", &self.done())
            .finish()
    }
}

/// A listing's pages count their keys.
impl PageObserver for StepMeter {
    fn page(&self, e: PageEvent) {
        if let Ok(keys) = e.outcome {
            self.add(keys);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keystorm_results::Section;

    fn phase() -> PhaseRef {
        PhaseRef {
            section: Section::Round,
            round: Some(1),
            index: 0,
            name: "read".into(),
        }
    }

    #[test]
    fn a_step_is_told_as_it_goes_and_once_more_when_done() {
        let meter = StepMeter::default();
        assert!(meter.look(&phase()).is_none());
        meter.begin(StepKind::AuditCompare, "b", Some(1000));
        meter.add(250);
        let look = meter.look(&phase()).unwrap();
        assert_eq!(
            (look.done, look.total, look.finished),
            (250, Some(1000), false)
        );
        assert!(look.eta_s.is_some_and(|s| s > 0.0), "{look:?}");
        meter.add(750);
        meter.end();
        let last = meter.look(&phase()).unwrap();
        assert_eq!((last.done, last.finished, last.eta_s), (1000, true, None));
        assert!(
            last.describe()
                .contains("audit: comparing of bucket b: 1000 keys of 1000")
        );
        // Told once: nothing more until the next step begins.
        assert!(meter.look(&phase()).is_none());
    }
}
