//! What the controller says and does about silence. An agent that stops heartbeating
//! is said lost once (with the shard it held) and back once when heard again. When no
//! agent at all was heard for as long as it takes to count one lost, the silence was
//! more likely the controller's own (cut off from the network, or stalled) than every
//! agent's at once: lost agents then get that long again, from the first heartbeat
//! heard, to come back before their shards are handed to other agents — each of them
//! paused its shard meanwhile, and goes on with it.

use std::time::{Duration, Instant};

use super::state::Inner;
use keystorm_link::protocol::LOST_AFTER_MS;
use keystorm_results::FleetEventKind;

const LOST: Duration = Duration::from_millis(LOST_AFTER_MS);

impl Inner {
    /// Agent `at` was heard (a heartbeat): says it is back if it was said lost, and
    /// holds hand-overs back for a while if no agent was heard for long. Whether it
    /// noted anything on the run's record.
    pub fn heard(&mut self, at: usize) -> bool {
        let now = Instant::now();
        let mut noted = false;
        if let Some(silence) = self.last_heard.map(|t| now.duration_since(t))
            && silence >= LOST
        {
            self.hold_handovers_until = Some(now + LOST);
            let said = format!(
                "agents are heard again after {:.1} s in which none was: this controller \
                 was cut off or stalled; lost agents get {} s to come back before their \
                 shards go to other agents",
                silence.as_secs_f64(),
                LOST.as_secs()
            );
            stderrln!("{said}");
            noted |= self.note_on_run(FleetEventKind::ControllerCutOff, None, said);
        }
        self.last_heard = Some(now);
        let agent = &mut self.agents[at];
        if agent.said_lost {
            agent.said_lost = false;
            let said = format!(
                "agent {} is back after {:.1} s without a heartbeat",
                agent.name,
                agent.last_seen.elapsed().as_secs_f64()
            );
            stderrln!("{said}");
            let (id, name) = (agent.id.clone(), agent.name.clone());
            noted |= self.note_on_run(FleetEventKind::AgentBack, Some((&id, &name)), said);
        }
        noted
    }

    /// Notes `kind` on the going run's record (with the shard agent `who` = (id, name)
    /// holds); whether there was a run to note it on.
    pub fn note_on_run(
        &mut self,
        kind: FleetEventKind,
        who: Option<(&str, &str)>,
        detail: String,
    ) -> bool {
        let Some(run) = self.run.as_mut().filter(|r| r.state.is_going()) else {
            return false;
        };
        let shard = who.and_then(|(id, _)| run.shard_index_of(id));
        run.note(kind, who.map(|(_, name)| name), shard, detail);
        true
    }

    /// Says, once each, which agents were lost since the last look; whether it noted
    /// any on the run's record.
    pub fn say_lost(&mut self) -> bool {
        let mut noted = false;
        for i in 0..self.agents.len() {
            let agent = &self.agents[i];
            if agent.said_lost || agent.awaiting || !agent.is_lost() {
                continue;
            }
            let holding = self
                .run
                .as_ref()
                .filter(|r| r.state.is_going())
                .and_then(|r| {
                    let shard = r
                        .shards
                        .iter()
                        .position(|s| s.agent == agent.id && !s.done)?;
                    Some(format!(", holding shard {shard} of run {}", r.run_id))
                })
                .unwrap_or_default();
            let said = format!(
                "agent {} lost: no heartbeat for {} s{holding}",
                agent.name,
                LOST.as_secs()
            );
            stderrln!("{said}");
            let (id, name) = (agent.id.clone(), agent.name.clone());
            noted |= self.note_on_run(FleetEventKind::AgentLost, Some((&id, &name)), said);
            self.agents[i].said_lost = true;
        }
        noted
    }

    /// Whether lost agents' shards wait before going to other agents (see the module).
    pub fn handovers_held(&self) -> bool {
        self.hold_handovers_until
            .is_some_and(|until| Instant::now() < until)
    }
}
