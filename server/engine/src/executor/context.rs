//! What every part of a running run shares: the plan, the client, the keyspace window,
//! the results store and event log, the observer, the clock, and the index tracker. Each
//! phase kind reads it; it depends on none of them.

use std::sync::Arc;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::first_errors;
use crate::keyspace::{Keyspace, Window};
use crate::plan::Plan;
use crate::rgw::tracker::RunLog;
use keystorm_results::{EventPosition, PhaseRef, ResultStore, RunEvent};
use keystorm_workload::observer::Observer;

/// Everything phases share.
pub(crate) struct RunContext {
    pub plan: Plan,
    pub client: keystorm_s3::S3Client,
    /// Every endpoint, for operation phases (`client` reaches the first).
    pub gateways: Arc<crate::gateways::Gateways>,
    pub keyspace: Keyspace,
    pub window: Arc<Window>,
    pub store: std::sync::Mutex<ResultStore>,
    pub observer: Arc<dyn Observer>,
    pub run_start: Instant,
    /// Time from the run's first start to `run_start` (zero unless resumed), so the
    /// times of a resumed run's intervals follow on from the earlier ones.
    pub time_offset: std::time::Duration,
    pub cancel: CancellationToken,
    /// Polls the bucket index when the target has an admin API to ask.
    pub tracker: Option<crate::rgw::tracker::IndexTracker>,
    /// The running phase and when it started.
    pub current_phase: std::sync::Mutex<Option<(PhaseRef, Instant)>>,
    /// The first failure of each error class, shown once as a warning.
    pub first_errors: Arc<first_errors::FirstErrors>,
    /// The first objects found corrupt or missing, written to the events.
    pub integrity: Arc<super::integrity::Examples>,
    /// The MD5 of each body verified against an ETag, computed once.
    pub md5s: Arc<super::verify::Md5Table>,
    /// When the phases begin (`--start-at`); `None`: at once.
    pub start_at: Option<std::time::SystemTime>,
    /// Asked before each phase (a controller's barrier); `None`: phases follow at once.
    pub gate: Option<Arc<dyn super::gate::PhaseGate>>,
    /// The run resumed a lost process's folder (see `RunOptions::taken_over`).
    pub taken_over: bool,
    /// Operations the client could not time by the kernel's stamps (when it times by
    /// them), since this process began the run.
    pub user_timed: Arc<std::sync::atomic::AtomicU64>,
}

impl RunContext {
    /// Logs the event to `events.jsonl` and tells the observer, secrets redacted from
    /// its text first. A log that cannot be written does not stop the run (the interval
    /// files are what results rely on).
    pub fn emit(&self, mut e: RunEvent) -> u64 {
        e.redact(&keystorm_results::secrets::active());
        let id = self.store().write_event(&e);
        self.observer.event(id, &e);
        id
    }

    /// Seconds from the run's first start to `at`.
    pub fn t_s(&self, at: Instant) -> f64 {
        (at.saturating_duration_since(self.run_start) + self.time_offset).as_secs_f64()
    }

    /// The phase running at `at` and its interval number.
    pub fn position(&self, at: Instant) -> Option<EventPosition> {
        let current = self.current_phase.lock().unwrap_or_else(|p| p.into_inner());
        current.as_ref().map(|(phase, start)| EventPosition {
            phase: phase.clone(),
            interval: at.saturating_duration_since(*start).as_secs(),
        })
    }

    pub fn set_phase(&self, phase: Option<(PhaseRef, Instant)>) {
        *self.current_phase.lock().unwrap_or_else(|p| p.into_inner()) = phase;
    }

    /// The bucket index as last polled (empty without tracking).
    pub fn index_snapshot(&self) -> Vec<keystorm_results::BucketIndex> {
        self.tracker
            .as_ref()
            .map(|t| t.snapshot())
            .unwrap_or_default()
    }

    pub fn store(&self) -> std::sync::MutexGuard<'_, ResultStore> {
        self.store.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl RunLog for RunContext {
    fn t_s(&self, at: Instant) -> f64 {
        RunContext::t_s(self, at)
    }

    fn position(&self, at: Instant) -> Option<EventPosition> {
        RunContext::position(self, at)
    }

    fn emit(&self, e: RunEvent) -> u64 {
        RunContext::emit(self, e)
    }
}
