//! The agents that dialled in: registration (a version check, unique names, a key of
//! its own for each registration, checked on every later call; an agent restarted
//! under its name takes its shard back, as does one registering again with a
//! controller that restarted), heartbeats with their clock offsets, and who counts as
//! lost.

use std::time::Instant;

use super::agent_key::KeyDigest;
use super::agent_record::Agent;
use super::error::FleetError;
use super::state::{Fleet, Inner};
use keystorm_link::bounds::{BoundsError, check_register, check_report};
use keystorm_link::protocol::{
    HEARTBEAT_MS, Heartbeat, HeartbeatReply, LOST_AFTER_MS, Order, RegisterRequest, Registered,
    ShardReport, now_ms,
};
use keystorm_results::FleetEventKind;

/// Long enough ago to count as lost.
const LOST_NOW: std::time::Duration = std::time::Duration::from_millis(LOST_AFTER_MS + 1);

/// An order not acted on after this is given again.
const RESEND_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

/// Most agents one controller keeps track of.
const MAX_AGENTS: usize = 4096;

impl Fleet {
    /// Registers an agent. A lost agent of the same name is replaced, and the shard it
    /// held is handed to the new one to resume; one known only from a run picked up
    /// after a controller restart is replaced at once, and its shard is the new one's
    /// to carry on (or to resume, if its heartbeat shows it does not run it).
    pub fn register(&self, request: RegisterRequest) -> Result<Registered, FleetError> {
        check_register(&request)?;
        // Names and hosts are shown on the Agents page and kept in the run's record: none
        // may hold a secret this controller knows (its environment's keys, its tokens).
        let secrets = keystorm_results::secrets::active();
        if [
            Some(&request.name),
            Some(&request.host),
            request.endpoint.as_ref(),
        ]
        .into_iter()
        .flatten()
        .any(|text| secrets.finds_in(text))
        {
            return Err(FleetError::Bounds(BoundsError::BadField(
                "the agent's name, host or endpoint holds the value of a secret the \
                 controller knows: choose another name (--name)"
                    .to_string(),
            )));
        }
        if request.version != self.version {
            return Err(FleetError::VersionMismatch {
                name: request.name,
                agent: request.version,
                controller: self.version.clone(),
            });
        }
        let mut inner = self.lock();
        let previous = inner.agents.iter().position(|a| a.name == request.name);
        if let Some(at) = previous
            && !inner.agents[at].is_lost()
            && !inner.agents[at].awaiting
        {
            return Err(FleetError::NameTaken(request.name));
        }
        if inner.agents.len() >= MAX_AGENTS {
            // Lost agents that hold no shard are forgotten first.
            let holding: Vec<String> = inner
                .run
                .iter()
                .filter(|r| r.state.is_going())
                .flat_map(|r| r.shards.iter().map(|s| s.agent.clone()))
                .collect();
            inner
                .agents
                .retain(|a| !a.is_lost() || holding.contains(&a.id));
            if inner.agents.len() >= MAX_AGENTS {
                return Err(FleetError::Full(MAX_AGENTS));
            }
        }
        inner.next_agent += 1;
        let id = format!("agent-{}-{}", self.life, inner.next_agent);
        let mut agent = Agent::new(
            id.clone(),
            request.name,
            request.host,
            request.version,
            request.cores,
        );
        agent.endpoint = request.endpoint;
        let (key, digest) = KeyDigest::new_key();
        agent.key = Some(digest);
        if let Some(at) = previous {
            let old = inner.agents.remove(at);
            if let Some(run) = inner.run.as_mut() {
                if old.awaiting {
                    // Back after the controller restarted, most likely still running its
                    // shard: its first heartbeat says, and only then is it told to run the
                    // shard (it does not) or to stop it (the run is stopping).
                    if run.rebind(&old.id, &id) {
                        agent.handed_at = Instant::now().checked_sub(RESEND_AFTER);
                        let shard = run.shard_index_of(&id);
                        run.note(
                            FleetEventKind::AgentBack,
                            Some(&agent.name),
                            shard,
                            format!(
                                "agent {} registered again after the controller restarted",
                                agent.name
                            ),
                        );
                    }
                } else {
                    agent.pending = run.hand_over(&old.id, &id);
                    if agent.pending.is_some() {
                        let shard = run.shard_index_of(&id);
                        run.note(
                            FleetEventKind::Takeover,
                            Some(&agent.name),
                            shard,
                            format!(
                                "agent {} started again and takes its shard back",
                                agent.name
                            ),
                        );
                    }
                }
            }
        }
        inner.agents.push(agent);
        if previous.is_some() {
            // What its return noted stays on the record through a restart.
            self.save(&inner);
        }
        drop(inner);
        self.notify();
        Ok(Registered {
            agent_id: id,
            agent_key: key,
            heartbeat_ms: HEARTBEAT_MS,
            controller_ms: now_ms(),
        })
    }

    /// Whether a call naming agent `id` may act as that agent: the agent is registered
    /// (else `unknown_agent`), and `given` is the key it was given (else refused).
    pub fn check_agent_key(&self, id: &str, given: Option<&str>) -> Result<(), FleetError> {
        // Hashed before the lock is taken: the lock is held for a comparison only.
        let given = given.map(KeyDigest::of);
        let inner = self.lock();
        let agent = inner
            .agents
            .iter()
            .find(|a| a.id == id && !a.awaiting)
            .ok_or_else(|| FleetError::UnknownAgent(id.to_string()))?;
        match (given, &agent.key) {
            (None, _) => Err(FleetError::AgentKeyMissing(id.to_string())),
            (Some(given), Some(key)) if key.same_as(&given) => Ok(()),
            (Some(_), _) => Err(FleetError::WrongAgentKey(id.to_string())),
        }
    }

    /// Notes a heartbeat; the reply carries the agent's next order, if any.
    pub fn heartbeat(&self, agent_id: &str, beat: Heartbeat) -> Result<HeartbeatReply, FleetError> {
        if let Some(report) = &beat.shard {
            check_report(report)?;
        }
        let mut guard = self.lock();
        let inner = &mut *guard;
        // Lost and replaced, it still runs the shard another agent took over.
        let replaced = beat
            .shard
            .as_ref()
            .and_then(|r| inner.stop_if_replaced(agent_id, &r.run_id, r.index));
        let at = inner
            .agents
            .iter()
            .position(|a| a.id == agent_id)
            .ok_or_else(|| FleetError::UnknownAgent(agent_id.to_string()))?;
        let noted = inner.heard(at);
        let agent = &mut inner.agents[at];
        agent.last_seen = Instant::now();
        agent.offset_ms = beat.offset_ms.or(agent.offset_ms);
        agent.target_skew_ms = beat.target_skew_ms.or(agent.target_skew_ms);
        let mut moved = false;
        if let (Some(report), Some(run)) = (&beat.shard, inner.run.as_mut()) {
            moved = run.note_report(agent_id, report, agent.offset_ms);
        }
        if agent.pending.is_none()
            && agent.handed_at.is_some_and(|t| t.elapsed() >= RESEND_AFTER)
            && let Some(run) = inner.run.as_ref()
        {
            // An order whose answer was lost on the way: the agent does not say it runs
            // the shard it was given (or still runs the one it was told to stop).
            agent.pending = run.order_again(agent_id, beat.shard.as_ref());
        }
        if agent.pending.is_none()
            && replaced.is_some()
            && agent.handed_at.is_some_and(|t| t.elapsed() >= RESEND_AFTER)
        {
            agent.pending = replaced;
        }
        if agent.pending.is_none()
            && agent.handed_at.is_none_or(|t| t.elapsed() >= RESEND_AFTER)
            && let Some(report) = beat.shard.as_ref()
            && inner.run.as_ref().is_none_or(|r| r.run_id != report.run_id)
        {
            // A run this controller does not hold (it restarted without its record, or
            // another run began since): the shard has no one to report to.
            agent.pending = Some(Order::Stop {
                run_id: report.run_id.clone(),
            });
        }
        let order = agent.pending.take();
        if order.is_some() {
            agent.handed_at = Some(Instant::now());
        }
        feed_live(inner, agent_id, beat.shard.as_ref());
        if moved || noted {
            self.save(inner);
        }
        drop(guard);
        // Nothing a barrier waits on changed (lost agents are noticed by time).
        Ok(HeartbeatReply {
            controller_ms: now_ms(),
            order,
        })
    }

    /// An agent that stops says so: it is forgotten at once, so no run picks it. One
    /// that still holds a shard (stopped before its shard ended) counts as lost, so the
    /// same agent started again takes the shard back.
    pub fn leave(&self, agent_id: &str) -> Result<(), FleetError> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        let at = inner
            .agents
            .iter()
            .position(|a| a.id == agent_id)
            .ok_or_else(|| FleetError::UnknownAgent(agent_id.to_string()))?;
        let holds = inner.run.as_ref().is_some_and(|r| {
            r.state.is_going() && r.shards.iter().any(|s| s.agent == agent_id && !s.done)
        });
        if holds {
            inner.agents[at].last_seen = Instant::now() - LOST_NOW;
        } else {
            inner.agents.remove(at);
        }
        drop(guard);
        self.notify();
        Ok(())
    }
}

/// Takes the news of `agent`'s shard into the run's live view, and logs the merged
/// seconds now ready (a heartbeat of any agent moves the live view on).
fn feed_live(inner: &mut Inner, agent: &str, report: Option<&ShardReport>) {
    if let (Some(run), Some(report)) = (inner.run.as_mut(), report)
        && report.run_id == run.run_id
        && run
            .shards
            .get(report.index as usize)
            .is_some_and(|s| s.agent == agent)
        && let Some(live) = run.live.as_mut()
    {
        live.take(report.index as usize, report);
    }
    inner.publish_live();
}
