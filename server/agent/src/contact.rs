//! Whether this agent may go on sending load. A controller that has not heard from an
//! agent for `LOST_AFTER_MS` counts it lost and may give its shard to another agent,
//! which resumes it from the controller's copy: had the first agent kept writing
//! (cut off from the controller, not from the store), both would write the same keys
//! and the first one's work would be in no merged result. So a running shard pauses —
//! stops cleanly, its in-flight requests finished and its progress saved — once the
//! controller has not answered a heartbeat for [`PAUSE_AFTER`], well before it could
//! be counted lost; and goes on from its own folder when the controller answers and
//! gives it back.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use tokio_util::sync::CancellationToken;

use keystorm_link::protocol::LOST_AFTER_MS;

/// Silence from the controller after which a running shard pauses: half the time
/// after which the controller counts the agent lost, so the requests in flight end
/// before another agent can take the shard over.
pub const PAUSE_AFTER: Duration = Duration::from_millis(LOST_AFTER_MS / 2);

/// How long a heartbeat waits for its answer: one that takes longer counts as none
/// (a network that drops packets answers nothing, and the pause must not wait on it).
pub const HEARTBEAT_TIMEOUT: Duration = Duration::from_millis(LOST_AFTER_MS / 4);

/// How often the watch looks at the silence.
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// When this agent last heard from its controller: the sending time of the last
/// heartbeat the controller answered (it received it after that, so the controller's
/// own count of the silence is never shorter than this one).
#[derive(Clone)]
pub struct Contact(Arc<Mutex<Instant>>);

impl Contact {
    pub fn new() -> Contact {
        Contact(Arc::new(Mutex::new(Instant::now())))
    }

    /// The controller answered a heartbeat sent at `sent`.
    pub fn heard(&self, sent: Instant) {
        let mut last = self.lock();
        if sent > *last {
            *last = sent;
        }
    }

    /// How long the controller has been silent.
    pub fn silence(&self) -> Duration {
        self.lock().elapsed()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Instant> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Whether a shard was paused for lack of contact, and the run folder it left.
#[derive(Clone, Default)]
pub struct Paused(Arc<AtomicBool>, Arc<Mutex<Option<PathBuf>>>);

impl Paused {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// The paused shard's run folder, kept to go on from.
    pub fn keep(&self, folder: PathBuf) {
        *self.1.lock().unwrap_or_else(|p| p.into_inner()) = Some(folder);
    }

    pub fn folder(&self) -> Option<PathBuf> {
        self.1.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Watches the silence while a shard runs, until `done`: past [`PAUSE_AFTER`] it
/// stops the shard (`shard`) and notes it in `paused`.
pub async fn watch(
    contact: Contact,
    what: String,
    shard: CancellationToken,
    paused: Paused,
    done: CancellationToken,
) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(LOOK_EVERY) => {}
            _ = done.cancelled() => return,
        }
        let silence = contact.silence();
        if silence >= PAUSE_AFTER && !shard.is_cancelled() {
            stderrln!(
                "the controller has not answered for {:.1} s: pausing {what} (its requests \
                 in flight finish and its progress is saved) so that no agent taking it over \
                 writes the same keys; it goes on once the controller answers and gives it back",
                silence.as_secs_f64()
            );
            paused.set();
            shard.cancel();
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_silent_controller_pauses_the_shard_and_an_answering_one_does_not() {
        let contact = Contact::new();
        let (shard, paused, done) = (
            CancellationToken::new(),
            Paused::default(),
            CancellationToken::new(),
        );
        let watching = tokio::spawn(watch(
            contact.clone(),
            "shard 0".into(),
            shard.clone(),
            paused.clone(),
            done.clone(),
        ));
        // Heard often for longer than the pause's threshold: never paused.
        let answering = Instant::now();
        while answering.elapsed() < PAUSE_AFTER + Duration::from_millis(500) {
            contact.heard(Instant::now());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(!paused.is_set() && !shard.is_cancelled());
        // Then silence: paused, and not before the threshold.
        let silent = Instant::now();
        tokio::time::timeout(Duration::from_secs(30), watching)
            .await
            .expect("the watch pauses the shard")
            .unwrap();
        assert!(paused.is_set() && shard.is_cancelled());
        assert!(silent.elapsed() + Duration::from_millis(60) >= PAUSE_AFTER);
        // A shard that ended is not watched any more.
        let quiet = tokio::spawn(watch(
            Contact::new(),
            "shard 1".into(),
            CancellationToken::new(),
            Paused::default(),
            done.clone(),
        ));
        done.cancel();
        quiet.await.unwrap();
    }
}
