//! What the controller orders and what the agent holds for it: at most one shard
//! running here, and at most one paused because the controller went silent (its
//! folder kept until the controller gives it back or says another agent took it over).
//! An order to run starts a shard (or lets the same one carry on); an order to stop
//! stops the running one, or ends the paused one (its folder sent, its end told).

use std::path::PathBuf;
use std::sync::Arc;

use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use keystorm_link::client::Link;
use keystorm_link::protocol::{Assignment, Order};

use crate::config::AgentConfig;
use crate::contact::{Contact, Paused};
use crate::session::Session;
use crate::shard;
use crate::status::ShardStatus;

/// What the agent's shards are run with.
pub struct Here<'a> {
    pub config: &'a Arc<AgentConfig>,
    pub link: &'a Link,
    pub session: &'a Session,
    pub status: &'a ShardStatus,
    pub contact: &'a Contact,
}

/// The shard running here.
struct Running {
    run_id: String,
    index: u32,
    cancel: CancellationToken,
    task: JoinHandle<()>,
    /// Set when it paused because the controller went silent.
    paused: Paused,
}

/// A shard that paused because the controller went silent: its folder is here, and
/// the controller either gives it back or says another agent took it over.
struct Parked {
    run_id: String,
    index: u32,
    folder: PathBuf,
    since: Instant,
}

/// The shards this agent holds.
#[derive(Default)]
pub struct Shards {
    running: Option<Running>,
    parked: Option<Parked>,
}

impl Shards {
    /// A running shard that ended by pausing is parked, its folder kept.
    pub fn park_finished(&mut self) {
        if let Some(r) = self.running.take_if(|r| r.task.is_finished())
            && let Some(folder) = r.paused.folder()
        {
            self.parked = Some(Parked {
                run_id: r.run_id,
                index: r.index,
                folder,
                since: Instant::now(),
            });
        }
    }

    /// Carries out the controller's `order`.
    pub fn obey(&mut self, order: Order, here: &Here) {
        match order {
            Order::Run(assignment) => self.run(assignment, here),
            Order::Stop { run_id } => self.stop_run(&run_id, here),
        }
    }

    /// Starts the shard `assignment` gives, unless it (or another) already runs here;
    /// a parked shard given back goes on from its folder.
    fn run(&mut self, assignment: Assignment, here: &Here) {
        if let Some(r) = self.running.as_ref() {
            if r.run_id == assignment.run_id && r.index == assignment.index {
                // The same shard, given again (its order crossed a heartbeat, or the
                // controller restarted): it carries on.
                return;
            }
            stderrln!(
                "ignoring shard {} of run {}: shard of run {} still runs here",
                assignment.index,
                assignment.run_id,
                r.run_id
            );
            return;
        }
        if self
            .parked
            .take_if(|p| p.run_id == assignment.run_id && p.index == assignment.index)
            .is_some()
        {
            stderrln!(
                "the controller gives shard {} of run {} back: it goes on where it paused",
                assignment.index,
                assignment.run_id
            );
        }
        let cancel = CancellationToken::new();
        let paused = Paused::default();
        let run_id = assignment.run_id.clone();
        let index = assignment.index;
        let task = tokio::spawn(shard::run(
            here.config.clone(),
            here.link.clone(),
            here.session.clone(),
            assignment,
            here.status.clone(),
            cancel.clone(),
            shard::Watch {
                contact: here.contact.clone(),
                paused: paused.clone(),
            },
        ));
        self.running = Some(Running {
            run_id,
            index,
            cancel,
            task,
            paused,
        });
    }

    /// Stops run `run_id`'s shard running here, or ends its parked one: either the
    /// run is stopping (the paused shard's folder is sent and its end told) or another
    /// agent took the shard over (the controller refuses the folder); the shard's end
    /// says which.
    fn stop_run(&mut self, run_id: &str, here: &Here) {
        // Said again while the shard is still sending its results: said once.
        if let Some(r) = self
            .running
            .as_ref()
            .filter(|r| r.run_id == run_id && !r.cancel.is_cancelled())
        {
            stderrln!("the controller stops run {run_id}");
            r.cancel.cancel();
        } else if let Some(p) = self.parked.take_if(|p| p.run_id == run_id)
            && self.running.is_none()
        {
            let task = tokio::spawn(shard::end_paused(
                here.session.clone(),
                here.config.name.clone(),
                p.run_id.clone(),
                p.index,
                p.folder,
                p.since.elapsed(),
            ));
            self.running = Some(Running {
                run_id: p.run_id,
                index: p.index,
                cancel: CancellationToken::new(),
                task,
                paused: Paused::default(),
            });
        }
    }

    /// Stops the shard running here, if any, and waits until it has written and sent
    /// its results.
    pub async fn stop(self) {
        if let Some(r) = self.running {
            stderrln!(
                "stopping: letting shard of run {} write and send its results",
                r.run_id
            );
            r.cancel.cancel();
            let _ = r.task.await;
        }
    }
}
