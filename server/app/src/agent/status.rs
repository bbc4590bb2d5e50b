//! What an agent tells its controller about its shard in every heartbeat, kept up to
//! date from the run's events (and shown on the agent's terminal as `keystorm run`
//! shows a run).

use std::sync::{Arc, Mutex};

use keystorm_engine::executor::{Observer, RunEvent};
use keystorm_engine::results::PhaseRef;

use crate::fleet::protocol::ShardReport;
use crate::progress::Progress;

/// The shard's state, shared by the run's observer and the heartbeat loop.
#[derive(Clone, Default)]
pub struct ShardStatus(Arc<Mutex<Option<ShardReport>>>);

impl ShardStatus {
    pub fn report(&self) -> Option<ShardReport> {
        self.lock().clone()
    }

    pub fn set(&self, report: Option<ShardReport>) {
        *self.lock() = report;
    }

    fn update(&self, change: impl FnOnce(&mut ShardReport)) {
        if let Some(r) = self.lock().as_mut() {
            change(r);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<ShardReport>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Feeds the status and shows progress.
pub struct AgentObserver {
    pub status: ShardStatus,
    pub progress: Progress,
}

fn label(p: &PhaseRef) -> String {
    match p.round {
        Some(r) => format!("round {r} · {}", p.name),
        None => format!("{} · {}", p.section.as_str(), p.name),
    }
}

impl Observer for AgentObserver {
    fn event(&self, id: u64, event: &RunEvent) {
        self.progress.event(id, event);
        match event {
            RunEvent::Started { run_id, .. } => self.status.update(|r| {
                r.local_run_id = Some(run_id.clone());
            }),
            RunEvent::PhaseStarted { phase, .. } => self.status.update(|r| {
                r.phase = Some(label(phase));
                r.operations = 0;
            }),
            RunEvent::Interval { progress, .. } => self.status.update(|r| {
                r.operations = progress.ops;
            }),
            _ => {}
        }
    }
}
