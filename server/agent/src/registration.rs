//! Joining the controller and leaving it. An agent registers (name, host, version,
//! cores, its own endpoint) until the controller takes it: a controller not up yet, or
//! one that holds the name for an agent that just went, is waited for; one that
//! refuses the agent, or whose certificate was never trusted, ends it. After the first
//! registration every wait is a controller that went away, said once through the
//! session. On the way out the agent leaves, so no run picks an agent that is gone.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use keystorm_link::client::Link;
use keystorm_link::protocol::{RegisterRequest, Registered};

use crate::config::AgentConfig;
use crate::error::AgentError;
use crate::pause::pause;
use crate::session::{AsRegistered, Session};

/// How long to wait before registering again.
const TRY_EVERY: Duration = Duration::from_secs(1);

/// The agent as the controller took it: who it is now and how often it heartbeats.
pub struct Joined {
    pub me: AsRegistered,
    pub heartbeat_every: Duration,
}

/// This agent's registrations, one after another (the controller may forget it).
#[derive(Default)]
pub struct Registrations {
    /// Registered at least once: a failure now is a controller away, not one not up.
    once: bool,
    /// "waiting to register" was said for the current wait.
    told_waiting: bool,
}

impl Registrations {
    /// Registers with the controller behind `link`, waiting for it as long as it
    /// takes; `None` once `stop` is cancelled.
    pub async fn join(
        &mut self,
        link: &Link,
        config: &AgentConfig,
        session: &Session,
        stop: &CancellationToken,
    ) -> Result<Option<Joined>, AgentError> {
        let request = RegisterRequest {
            name: config.name.clone(),
            host: config.host.clone(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            endpoint: config.endpoint.clone(),
        };
        while !stop.is_cancelled() {
            let registered: Registered = match link.post("/api/agents/register", &request).await {
                Ok(r) => r,
                Err(e) if Session::worth_waiting(&e) && self.once => {
                    // Registering again after the controller went away (or came back with
                    // a certificate this agent does not trust yet): said once.
                    session.away(&e);
                    pause(stop, TRY_EVERY).await;
                    continue;
                }
                // Never trusted: no use waiting.
                Err(e) if e.is_tls() => return Err(AgentError::Link(e)),
                Err(e) if e.is_transient() || e.code() == Some("name_taken") => {
                    if !self.told_waiting {
                        stderrln!("waiting to register: {e}");
                        self.told_waiting = true;
                    }
                    pause(stop, TRY_EVERY).await;
                    continue;
                }
                Err(e) => return Err(AgentError::Refused(e)),
            };
            self.told_waiting = false;
            // Its key is redacted from here on, before anything is said.
            let me = session.registered(&registered.agent_id, &registered.agent_key);
            self.once = true;
            session.back();
            stderrln!(
                "agent {} registered with {} as {}",
                config.name,
                link.url(),
                me.id
            );
            return Ok(Some(Joined {
                me,
                heartbeat_every: Duration::from_millis(registered.heartbeat_ms.max(100)),
            }));
        }
        Ok(None)
    }

    /// Tells the controller this agent is gone, if it ever registered; one try.
    pub async fn leave(&self, session: &Session) {
        if self.once {
            let me = session.current();
            let _ = me
                .link
                .post_empty(&format!("/api/agents/{}/leave", me.id), &())
                .await;
        }
    }
}
