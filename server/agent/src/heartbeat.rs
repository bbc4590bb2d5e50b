//! The heartbeat loop of one registration: every `heartbeat_every` the agent tells the
//! controller how its shard is (progress, news, clock offset, the target's clock
//! skew), and the answer says what to do next. A heartbeat unanswered within
//! [`HEARTBEAT_TIMEOUT`] counts as none, so a running shard pauses in time (see
//! [`contact`](crate::contact)); a controller that no longer knows the agent ends the
//! registration, and the agent registers again.

use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use keystorm_link::client::LinkError;
use keystorm_link::protocol::{Heartbeat, HeartbeatReply, now_ms};

use crate::clock::offset_ms;
use crate::contact::HEARTBEAT_TIMEOUT;
use crate::orders::{Here, Shards};
use crate::pause::pause;
use crate::session::AsRegistered;

/// Why a registration's heartbeats ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// The user stopped the agent.
    Stopped,
    /// The controller no longer knows this agent (it restarted): register again.
    Forgotten,
}

/// Heartbeats as `me` every `every` until the agent stops or the controller forgets
/// it, handing each order to `shards`.
pub async fn beat_until_ended(
    me: &AsRegistered,
    every: Duration,
    here: &Here<'_>,
    shards: &mut Shards,
    stop: &CancellationToken,
) -> Ended {
    here.contact.heard(Instant::now());
    let mut offset = None;
    loop {
        shards.park_finished();
        if stop.is_cancelled() {
            return Ended::Stopped;
        }
        let sent_ms = now_ms();
        let beat = Heartbeat {
            sent_ms,
            offset_ms: offset,
            target_skew_ms: here.status.target_skew_ms(),
            shard: here.status.report(),
        };
        let last_news = beat
            .shard
            .as_ref()
            .and_then(|r| r.news.last())
            .map(|n| n.seq);
        let sent_at = Instant::now();
        match send(me, &beat).await {
            Ok(reply) => {
                here.contact.heard(sent_at);
                here.session.back();
                let o = offset_ms(sent_ms, now_ms(), reply.controller_ms);
                offset = Some(o);
                here.status.set_offset(o);
                if let Some(seq) = last_news {
                    here.status.taken(seq);
                }
                if let Some(order) = reply.order {
                    shards.obey(order, here);
                }
            }
            Err(e) if e.code() == Some("unknown_agent") => {
                stderrln!("the controller no longer knows this agent: registering again");
                return Ended::Forgotten;
            }
            Err(e) => here.session.away(&e),
        }
        pause(stop, every).await;
    }
}

/// One heartbeat, answered within [`HEARTBEAT_TIMEOUT`] or counted as unanswered.
async fn send(me: &AsRegistered, beat: &Heartbeat) -> Result<HeartbeatReply, LinkError> {
    let path = format!("/api/agents/{}/heartbeat", me.id);
    tokio::time::timeout(HEARTBEAT_TIMEOUT, me.link.post(&path, beat))
        .await
        .unwrap_or_else(|_| {
            Err(LinkError::Unreachable {
                url: me.link.url().to_string(),
                reason: format!(
                    "no answer to a heartbeat within {:.1} s",
                    HEARTBEAT_TIMEOUT.as_secs_f64()
                ),
            })
        })
}
