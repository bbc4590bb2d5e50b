//! The agent's standing with its controller, shared by the heartbeat loop and
//! everything the running shard asks the controller (the barrier, the copy of its
//! folder, its end): the current registration — its id and the key the controller gave
//! with it, which change together when the controller restarts and the agent registers
//! again, so every call reads both afresh, as one — and whether the controller is
//! away, said once when it goes and once when it answers again, whichever call
//! notices. Calls wait for the controller as long as it takes; only the user's Ctrl-C
//! bounds the wait. The key is never printed: it is registered with the process's
//! redaction (see `keystorm_results::secrets`), so no writer of the process shows it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use keystorm_link::client::{Link, LinkError};
use keystorm_results::secrets::{self, Redactor};

/// How long a call waits before it tries again.
const RETRY_EVERY: Duration = Duration::from_secs(1);
/// Once the agent is stopping (Ctrl-C), how many more tries a call gets.
const TRIES_WHEN_STOPPING: u32 = 600;

/// The current registration, as a call makes it: the agent's id, and the link that
/// carries the key given with it.
#[derive(Clone)]
pub struct AsRegistered {
    pub id: String,
    pub link: Link,
}

struct State {
    current: AsRegistered,
    /// Keeps the current key out of everything the process writes.
    _redacted: Option<secrets::Registration>,
    away: bool,
}

/// Shared by the heartbeat loop and the shard's calls.
#[derive(Clone)]
pub struct Session {
    state: Arc<Mutex<State>>,
    /// The link to the controller, without an agent's key.
    link: Link,
    /// The user's Ctrl-C.
    stop: CancellationToken,
}

/// Why a call gave up.
pub enum CallError {
    /// The controller refused it, or it cannot be made.
    Failed(LinkError),
    /// The caller's own token was cancelled while waiting.
    Cancelled,
}

impl Session {
    /// A session over `link`, not registered yet.
    pub fn new(link: Link, stop: CancellationToken) -> Session {
        let current = AsRegistered {
            id: String::new(),
            link: link.clone(),
        };
        Session {
            state: Arc::new(Mutex::new(State {
                current,
                _redacted: None,
                away: false,
            })),
            link,
            stop,
        }
    }

    /// The current registration, for a call.
    pub fn current(&self) -> AsRegistered {
        self.lock().current.clone()
    }

    /// The agent registered (again) as `id`, with `key`: what its calls go with now.
    pub fn registered(&self, id: &str, key: &str) -> AsRegistered {
        let current = AsRegistered {
            id: id.to_string(),
            link: self.link.with_agent_key(key),
        };
        // Redacted from now on; the earlier key, which the controller no longer takes,
        // is let go.
        let redacted = secrets::register(Redactor::new([key]));
        let mut state = self.lock();
        state.current = current.clone();
        state._redacted = Some(redacted);
        current
    }

    /// The controller did not answer: said once per outage.
    pub fn away(&self, e: &LinkError) {
        let mut state = self.lock();
        if !state.away {
            state.away = true;
            drop(state);
            stderrln!(
                "waiting for the controller: {e}; a running shard pauses if it stays silent \
                 (its results are kept and sent once the controller answers)"
            );
        }
    }

    /// The controller answered: said once after an outage.
    pub fn back(&self) {
        let mut state = self.lock();
        if state.away {
            state.away = false;
            drop(state);
            stderrln!("the controller answers again: carrying on");
        }
    }

    /// Makes `call` as the current registration until the controller answers it: a
    /// controller away (or restarting, until the agent registered again) is waited for;
    /// `cancel` ends the wait, as does a long wait once the agent is stopping.
    pub async fn call<T, F, Fut>(
        &self,
        cancel: &CancellationToken,
        mut call: F,
    ) -> Result<T, CallError>
    where
        F: FnMut(AsRegistered) -> Fut,
        Fut: std::future::Future<Output = Result<T, LinkError>>,
    {
        let mut patience = TRIES_WHEN_STOPPING;
        loop {
            match call(self.current()).await {
                Ok(answer) => {
                    self.back();
                    return Ok(answer);
                }
                Err(e) if Session::worth_waiting(&e) => {
                    tokio::select! {
                        waited = self.wait(&e, &mut patience) => if !waited {
                            return Err(CallError::Failed(e));
                        },
                        _ = cancel.cancelled() => return Err(CallError::Cancelled),
                    }
                }
                Err(e) => return Err(CallError::Failed(e)),
            }
        }
    }

    /// Whether a call that failed so is to be made again later: the controller is away,
    /// or it restarted and does not know this agent's id yet, or it serves a certificate
    /// this agent does not trust (it did before: its pair may be put right).
    pub fn worth_waiting(e: &LinkError) -> bool {
        e.is_transient() || e.is_tls() || e.code() == Some("unknown_agent")
    }

    /// Notes why a call failed and waits a while before the next try; `false` once the
    /// agent is stopping and `patience` (tries) ran out.
    pub async fn wait(&self, e: &LinkError, patience: &mut u32) -> bool {
        if e.is_transient() || e.is_tls() {
            self.away(e);
        } else {
            // It answers; the heartbeat loop registers again, and the next try goes
            // with the new id and key.
            self.back();
        }
        if self.stop.is_cancelled() {
            if *patience == 0 {
                return false;
            }
            *patience -= 1;
        }
        tokio::time::sleep(RETRY_EVERY).await;
        true
    }

    /// How many tries a call gets once the agent is stopping.
    pub fn patience() -> u32 {
        TRIES_WHEN_STOPPING
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl CallError {
    pub fn message(self) -> String {
        match self {
            CallError::Failed(e) => e.to_string(),
            CallError::Cancelled => "stopped while waiting for the controller".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keystorm_link::client::ClientTls;

    #[test]
    fn a_registrations_id_and_key_go_together_and_the_key_is_never_written_out() {
        let link = Link::new("http://127.0.0.1:1", None, &ClientTls::default()).unwrap();
        let session = Session::new(link, CancellationToken::new());
        let first = "1f".repeat(32);
        let second = "2e".repeat(32);
        session.registered("agent-1-1", &first);
        assert_eq!(session.current().id, "agent-1-1");
        let said = |key: &str| secrets::active().redact(&format!("key {key}")).into_owned();
        assert_eq!(said(&first), format!("key {}", secrets::REDACTED));
        // Registered again: the new id with the new key, and that key redacted too.
        let again = session.registered("agent-2-1", &second);
        assert_eq!(again.id, "agent-2-1");
        assert_eq!(session.current().id, "agent-2-1");
        assert_eq!(said(&second), format!("key {}", secrets::REDACTED));
    }
}
