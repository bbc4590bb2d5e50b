//! One endpoint's health: consecutive connection failures or timeouts mark it down, a
//! down endpoint rests and is probed by one request at a time with a doubling back-off,
//! and the first answer from it marks it up again. Lock-free: workers report every
//! attempt, so this sits on the hot path.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::plan::GatewaysPlan;
use keystorm_types::ErrorClass;

/// A change of an endpoint's state, to be written to the run's events.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    pub endpoint: usize,
    pub down: bool,
    pub at: Instant,
    /// Down: the failures in a row that marked it; up: the probes that failed before.
    pub failures: u32,
    pub detail: String,
}

#[derive(Debug, Default)]
pub(crate) struct Health {
    failures: AtomicU32,
    down: AtomicBool,
    /// Milliseconds since the set's start at which the next probe may go.
    next_probe_ms: AtomicU64,
    /// Current rest between probes, milliseconds.
    backoff_ms: AtomicU64,
    /// A probe is in flight.
    probing: AtomicBool,
    /// Probes that failed since it went down.
    failed_probes: AtomicU32,
    /// When it went down, milliseconds since the set's start.
    down_since_ms: AtomicU64,
}

/// Whether a failure says the endpoint itself is lost (rather than the request
/// refused): no connection, a reset, no answer in time.
pub(crate) fn is_loss(class: ErrorClass) -> bool {
    matches!(class, ErrorClass::Connection | ErrorClass::Timeout)
}

impl Health {
    /// An answer from an endpoint that is up: its run of failures ends (written only
    /// when there was one, so answers touch no shared line).
    pub fn answered(&self) {
        if self.failures.load(Ordering::Relaxed) != 0 {
            self.failures.store(0, Ordering::Relaxed);
        }
    }

    pub fn is_down(&self) -> bool {
        self.down.load(Ordering::Relaxed)
    }

    /// Claims the probe of a down endpoint when its rest is over: one request may go.
    pub fn claim_probe(&self, now_ms: u64) -> bool {
        now_ms >= self.next_probe_ms.load(Ordering::Relaxed)
            && self
                .probing
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
    }

    /// An attempt sent to the endpoint at `sent_ms` (`probe`: the one a down endpoint
    /// let through) finished with `failure` (`None`: it answered). Returns the change it
    /// made. An answer to a request sent before the endpoint went down says nothing of
    /// it now (it was on its way when the endpoint was lost).
    pub fn report(
        &self,
        endpoint: usize,
        failure: Option<(ErrorClass, &str)>,
        (probe, sent_ms): (bool, u64),
        now: (Instant, u64),
        plan: &GatewaysPlan,
    ) -> Option<Change> {
        let (at, now_ms) = now;
        match failure {
            Some((class, message)) if is_loss(class) => {
                let n = self.failures.fetch_add(1, Ordering::Relaxed) + 1;
                if self.is_down() {
                    if probe {
                        let rest = (self.backoff_ms.load(Ordering::Relaxed) * 2)
                            .min(millis(plan.probe_max));
                        self.backoff_ms.store(rest, Ordering::Relaxed);
                        self.next_probe_ms.store(now_ms + rest, Ordering::Relaxed);
                        self.failed_probes.fetch_add(1, Ordering::Relaxed);
                        self.probing.store(false, Ordering::Release);
                    }
                    return None;
                }
                if n < plan.down_after {
                    return None;
                }
                // One reporter wins the change.
                if self
                    .down
                    .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                    .is_err()
                {
                    return None;
                }
                let rest = millis(plan.probe);
                self.backoff_ms.store(rest, Ordering::Relaxed);
                self.next_probe_ms.store(now_ms + rest, Ordering::Relaxed);
                self.failed_probes.store(0, Ordering::Relaxed);
                self.down_since_ms.store(now_ms, Ordering::Relaxed);
                self.probing.store(false, Ordering::Release);
                Some(Change {
                    endpoint,
                    down: true,
                    at,
                    failures: n,
                    detail: message.to_string(),
                })
            }
            _ => {
                if probe {
                    self.probing.store(false, Ordering::Release);
                }
                if self.is_down() && sent_ms < self.down_since_ms.load(Ordering::Relaxed) {
                    return None;
                }
                self.failures.store(0, Ordering::Relaxed);
                if !self.is_down()
                    || self
                        .down
                        .compare_exchange(true, false, Ordering::AcqRel, Ordering::Relaxed)
                        .is_err()
                {
                    return None;
                }
                let since = self.down_since_ms.load(Ordering::Relaxed);
                let secs = now_ms.saturating_sub(since) as f64 / 1000.0;
                Some(Change {
                    endpoint,
                    down: false,
                    at,
                    failures: self.failed_probes.swap(0, Ordering::Relaxed),
                    detail: format!("answered again after {secs:.1} s down"),
                })
            }
        }
    }
}

fn millis(d: Duration) -> u64 {
    d.as_millis().min(u128::from(u64::MAX)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> GatewaysPlan {
        GatewaysPlan {
            down_after: 3,
            probe: Duration::from_millis(100),
            probe_max: Duration::from_millis(350),
            ..GatewaysPlan::default()
        }
    }

    #[test]
    fn down_after_failures_in_a_row_probed_with_back_off_up_on_an_answer() {
        let (h, p, t) = (Health::default(), plan(), Instant::now());
        let lost = Some((ErrorClass::Connection, "connection refused"));
        assert_eq!(h.report(0, lost, (false, 0), (t, 0), &p), None);
        // An answer in between starts the count again.
        assert_eq!(h.report(0, None, (false, 1), (t, 1), &p), None);
        // A 503 is the endpoint answering.
        let busy = Some((ErrorClass::SlowDown, "503"));
        assert_eq!(h.report(0, busy, (false, 1), (t, 1), &p), None);
        assert_eq!(h.report(0, lost, (false, 2), (t, 2), &p), None);
        assert_eq!(h.report(0, lost, (false, 3), (t, 3), &p), None);
        let down = h.report(0, lost, (false, 4), (t, 4), &p).expect("down");
        assert!(down.down && h.is_down());
        // An answer to a request sent before it went down (at 3 ms) does not bring it up.
        assert_eq!(h.report(0, None, (false, 3), (t, 5), &p), None);
        assert!(h.is_down());
        assert_eq!(down.failures, 3);
        assert_eq!(down.detail, "connection refused");
        // Rests 100 ms, then one probe at a time.
        assert!(!h.claim_probe(103));
        assert!(h.claim_probe(104));
        assert!(!h.claim_probe(104), "one probe in flight");
        // Requests sent before it went down fail on: no change, no back-off.
        assert_eq!(h.report(0, lost, (false, 105), (t, 105), &p), None);
        assert!(!h.claim_probe(105));
        // The probe fails: the rest doubles (200 ms), then is capped at 350 ms.
        assert_eq!(h.report(0, lost, (true, 110), (t, 110), &p), None);
        assert!(!h.claim_probe(309));
        assert!(h.claim_probe(310));
        assert_eq!(h.report(0, lost, (true, 310), (t, 310), &p), None);
        assert!(!h.claim_probe(659));
        assert!(h.claim_probe(660));
        let up = h.report(0, None, (true, 700), (t, 700), &p).expect("up");
        assert!(!up.down && !h.is_down());
        assert_eq!(up.failures, 2, "two probes failed");
        assert_eq!(up.detail, "answered again after 0.7 s down");
    }
}
