//! The controller's state: the agents and the run split over them, behind one lock,
//! with a signal for whoever waits on a change (barriers).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

use super::agent_record::Agent;
use super::caps::{Ledger, PartCaps};
use super::run_record::FleetRun;

/// The agents and the run split over them.
pub struct Fleet {
    pub(super) inner: Mutex<Inner>,
    /// Woken on every change a barrier or a waiting client may care about.
    pub(super) changed: Notify,
    /// Where merged runs are written; the parts arrive under `.incoming/<run>/parts/`.
    pub(super) results_dir: PathBuf,
    /// This keystorm's version; agents must run the same.
    pub(super) version: String,
    /// Names this controller's lifetime in the ids it gives agents, so an agent still
    /// using an id of an earlier lifetime is never taken for another agent.
    pub(super) life: String,
    /// Whether writing the run's record failed last time (said once, not every time).
    pub(super) save_failing: AtomicBool,
    /// How much of a run's shard folders the controller keeps.
    pub(super) caps: PartCaps,
    /// The bytes of the current run's copies.
    pub(super) ledger: Mutex<Ledger>,
}

#[derive(Default)]
pub(super) struct Inner {
    pub agents: Vec<Agent>,
    pub next_agent: u64,
    pub run: Option<FleetRun>,
    /// When any agent was last heard.
    pub last_heard: Option<std::time::Instant>,
    /// Lost agents' shards go to no other agent before this (see `silence`).
    pub hold_handovers_until: Option<std::time::Instant>,
}

impl Fleet {
    pub fn new(results_dir: PathBuf) -> Arc<Fleet> {
        Fleet::with_caps(results_dir, PartCaps::default())
    }

    /// A controller keeping at most `caps` of a run's shard folders.
    pub fn with_caps(results_dir: PathBuf, caps: PartCaps) -> Arc<Fleet> {
        Arc::new(Fleet {
            inner: Mutex::default(),
            changed: Notify::new(),
            results_dir,
            version: env!("CARGO_PKG_VERSION").to_string(),
            life: format!("{:x}", keystorm_link::protocol::now_ms()),
            save_failing: AtomicBool::new(false),
            caps,
            ledger: Mutex::default(),
        })
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn notify(&self) {
        self.changed.notify_waiters();
    }

    /// `answer`'s answer once it has one, looking again on every change and at least
    /// every 250 ms (lost agents are noticed by time, not by an event); none after
    /// `at_most`.
    pub(super) async fn answer_within<T>(
        &self,
        at_most: std::time::Duration,
        mut answer: impl FnMut() -> Result<Option<T>, super::error::FleetError>,
    ) -> Result<Option<T>, super::error::FleetError> {
        let deadline = tokio::time::Instant::now() + at_most;
        loop {
            let notified = self.changed.notified();
            if let Some(found) = answer()? {
                return Ok(Some(found));
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let look_again = (deadline - now).min(std::time::Duration::from_millis(250));
            let _ = tokio::time::timeout(look_again, notified).await;
        }
    }

    /// The controller's folder of run `run_id`: its record, and the parts it receives
    /// (see [`super::incoming`]).
    pub(super) fn incoming(&self, run_id: &str) -> PathBuf {
        self.results_dir.join(".incoming").join(run_id)
    }
}

impl Inner {
    /// Run `run_id`, called about by agent `agent`, which must be registered.
    pub fn agents_run(
        &mut self,
        agent: &str,
        run_id: &str,
    ) -> Result<&mut FleetRun, super::error::FleetError> {
        use super::error::FleetError;
        if !self.knows(agent) {
            return Err(FleetError::UnknownAgent(agent.to_string()));
        }
        self.run
            .as_mut()
            .filter(|r| r.run_id == run_id)
            .ok_or_else(|| FleetError::UnknownRun(run_id.to_string()))
    }

    /// The shards of the run still sending: not ended, their agent not lost.
    pub fn sending_shards(&self) -> Vec<usize> {
        let Some(run) = self.run.as_ref() else {
            return Vec::new();
        };
        (0..run.shards.len())
            .filter(|&i| !run.shards[i].done && !self.is_lost(&run.shards[i].agent))
            .collect()
    }

    /// Logs the merged seconds of the run's live view now ready: those every shard still
    /// sending has passed, and those past the grace.
    pub fn publish_live(&mut self) {
        let sending = self.sending_shards();
        if let Some(live) = self.run.as_mut().and_then(|r| r.live.as_mut()) {
            live.publish(&sending);
        }
    }

    /// Whether `id` is an agent registered with this controller (not one known only
    /// from a run's record, waiting to come back).
    pub fn knows(&self, id: &str) -> bool {
        self.agents.iter().any(|a| a.id == id && !a.awaiting)
    }

    /// Whether the agent `id` is lost (or gone from the registry).
    pub fn is_lost(&self, id: &str) -> bool {
        self.agents
            .iter()
            .find(|a| a.id == id)
            .is_none_or(|a| a.is_lost())
    }
}
