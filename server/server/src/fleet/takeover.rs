//! A lost agent's shard taken over by another: once an agent holding a running shard is
//! lost, an idle agent (a spare, or one whose shard ended) is given the shard and
//! resumes it from the copy of its run folder the agents keep sending the controller —
//! its checkpoint (the window's watermarks) and every interval it recorded — so nothing
//! is skipped and nothing it measured is lost. The lost agent, should it come back, is
//! told to stop.

use std::time::Duration;

use super::agent_record::Agent;
use super::run_record::{RunState, TakenOver};
use super::state::Inner;
use keystorm_link::protocol::Order;
use keystorm_results::FleetEventKind;

/// How long a shard waited for an agent to take it over, in words (nothing when it was
/// taken at once, by a spare).
pub fn waited_words(waited: Duration) -> String {
    if waited < Duration::from_secs(1) {
        String::new()
    } else {
        format!(
            " after the shard waited {:.1} s for an idle agent",
            waited.as_secs_f64()
        )
    }
}

impl Inner {
    /// Gives every running shard whose agent is lost to an idle agent, if there is one;
    /// what was handed over, to say on the run.
    pub fn hand_lost_shards(&mut self) -> Vec<String> {
        let Some(run) = self.run.as_ref() else {
            return Vec::new();
        };
        if run.state != RunState::Running || run.spec.abort_on_loss || self.handovers_held() {
            return Vec::new();
        }
        let orphans: Vec<usize> = (0..run.shards.len())
            .filter(|&i| !run.shards[i].done && self.is_lost(&run.shards[i].agent))
            .collect();
        let mut said = Vec::new();
        for index in orphans {
            let Some(new) = self.idle_agent() else {
                break;
            };
            let Some(run) = self.run.as_mut() else {
                break;
            };
            let old = run.shards[index].agent.clone();
            let order = run.take_over(index, &self.agents[new].id);
            let lost = self.agents.iter().find(|a| a.id == old);
            let old_name = lost.map_or(old.clone(), |a| a.name.clone());
            let waited = lost.map_or(Duration::ZERO, Agent::lost_for);
            run.shards[index].taken_over = Some(TakenOver {
                from: old_name.clone(),
                waited_ms: waited.as_millis() as u64,
            });
            let message = format!(
                "shard {index}: agent {old_name} was lost; agent {} takes the shard over{} \
                 and resumes it from the controller's copy of its results",
                self.agents[new].name,
                waited_words(waited),
            );
            let taker = self.agents[new].name.clone();
            run.note(
                FleetEventKind::Takeover,
                Some(&taker),
                Some(index),
                message.clone(),
            );
            self.agents[new].pending = Some(order);
            // Should it come back still running the shard, it stops.
            let run_id = run.run_id.clone();
            if let Some(lost) = self.agents.iter_mut().find(|a| a.id == old) {
                lost.pending = Some(Order::Stop { run_id });
            }
            said.push(message);
        }
        said
    }

    /// The idle agent to take a lost shard: heard lately, no order waiting, no running
    /// shard; a spare (no shard of the run at all) before one whose shard ended, then by
    /// name.
    fn idle_agent(&self) -> Option<usize> {
        let holds = |id: &str, running: bool| {
            self.run.as_ref().is_some_and(|r| {
                r.shards
                    .iter()
                    .any(|s| s.agent == id && (!running || !s.done))
            })
        };
        (0..self.agents.len())
            .filter(|&i| {
                let a = &self.agents[i];
                a.is_fresh() && a.pending.is_none() && !holds(&a.id, true)
            })
            .min_by_key(|&i| (holds(&self.agents[i].id, false), &self.agents[i].name))
    }

    /// A stop for `agent` if it still runs a shard of the run that another agent took
    /// over (it was lost, came back, and the stop it was given did not take).
    pub fn stop_if_replaced(&self, agent: &str, run_id: &str, index: u32) -> Option<Order> {
        let run = self.run.as_ref().filter(|r| r.run_id == run_id)?;
        let shard = run.shards.get(index as usize)?;
        (shard.agent != agent).then(|| Order::Stop {
            run_id: run_id.to_string(),
        })
    }
}
