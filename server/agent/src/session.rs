//! The agent's standing with its controller, shared by the heartbeat loop and
//! everything the running shard asks the controller (the barrier, the copy of its
//! folder, its end): the id of the current registration — it changes when the
//! controller restarts and the agent registers again, so every call reads it afresh —
//! and whether the controller is away, said once when it goes and once when it answers
//! again, whichever call notices. Calls wait for the controller as long as it takes;
//! only the user's Ctrl-C bounds the wait.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use keystorm_link::client::LinkError;

/// How long a call waits before it tries again.
const RETRY_EVERY: Duration = Duration::from_secs(1);
/// Once the agent is stopping (Ctrl-C), how many more tries a call gets.
const TRIES_WHEN_STOPPING: u32 = 600;

#[derive(Default)]
struct State {
    id: String,
    away: bool,
}

/// Shared by the heartbeat loop and the shard's calls.
#[derive(Clone)]
pub struct Session {
    state: Arc<Mutex<State>>,
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
    pub fn new(stop: CancellationToken) -> Session {
        Session {
            state: Arc::default(),
            stop,
        }
    }

    /// The id of the current registration.
    pub fn id(&self) -> String {
        self.lock().id.clone()
    }

    pub fn set_id(&self, id: &str) {
        self.lock().id = id.to_string();
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

    /// Makes `call` with the current id until the controller answers it: a controller
    /// away (or restarting, until the agent registered again) is waited for; `cancel`
    /// ends the wait, as does a long wait once the agent is stopping.
    pub async fn call<T, F, Fut>(
        &self,
        cancel: &CancellationToken,
        mut call: F,
    ) -> Result<T, CallError>
    where
        F: FnMut(String) -> Fut,
        Fut: std::future::Future<Output = Result<T, LinkError>>,
    {
        let mut patience = TRIES_WHEN_STOPPING;
        loop {
            match call(self.id()).await {
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
            // with the new id.
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
