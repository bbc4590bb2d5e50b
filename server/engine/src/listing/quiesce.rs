//! A consistent cut of a listing and the consumer its keys feed (the HEAD scan). The
//! listing's checkpoint counts a page once it is handed in, but a consumer finishes its
//! keys later and out of order, so a cut taken at any moment would count pages whose
//! keys were not all consumed yet. Instead the saver pauses: it lets no lister hand in a
//! page (each holds the gate from handing its page in until its keys are queued), waits
//! until the consumer has finished every key queued so far, takes both states, and lets
//! the listers go on. The pause costs the time the consumer needs to empty its queue.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio::sync::{Notify, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// What a cut of the consumer's state gives, stored in the listing's checkpoint.
pub type ConsumerState = Arc<dyn Fn() -> serde_json::Value + Send + Sync>;

/// The consumer side of a listing checkpoint: how to pause it and what to save of it.
#[derive(Clone)]
pub struct ConsumerCut {
    pub quiesce: Arc<Quiesce>,
    pub state: ConsumerState,
}

impl ConsumerCut {
    /// The cut of a consumer whose state is what `cut` gives, saved as JSON; a cut that
    /// fails is saved as none, and a resume then starts over.
    pub fn saving<T: serde::Serialize, E>(
        quiesce: Arc<Quiesce>,
        cut: impl Fn() -> Result<T, E> + Send + Sync + 'static,
    ) -> ConsumerCut {
        ConsumerCut {
            quiesce,
            state: Arc::new(move || {
                cut()
                    .ok()
                    .and_then(|c| serde_json::to_value(c).ok())
                    .unwrap_or_default()
            }),
        }
    }
}

/// Keys queued and consumed, and the gate listers hold while they hand a page in.
#[derive(Default)]
pub struct Quiesce {
    gate: RwLock<()>,
    queued: AtomicU64,
    consumed: AtomicU64,
    /// Set while a saver waits for the consumer, which only then wakes it.
    pausing: AtomicBool,
    idle: Notify,
}

impl Quiesce {
    /// Held by a lister from handing its page in until the page's keys are queued.
    pub async fn page(&self) -> RwLockReadGuard<'_, ()> {
        self.gate.read().await
    }

    /// A key of the page being handed in was queued.
    pub fn queued(&self) {
        self.queued.fetch_add(1, Ordering::SeqCst);
    }

    /// The consumer finished a key (whatever the outcome).
    pub fn consumed(&self) {
        self.consumed.fetch_add(1, Ordering::SeqCst);
        if self.pausing.load(Ordering::SeqCst) {
            self.idle.notify_waiters();
        }
    }

    /// Whether every queued key was consumed.
    pub fn is_idle(&self) -> bool {
        self.consumed.load(Ordering::SeqCst) >= self.queued.load(Ordering::SeqCst)
    }

    /// Stops listers from handing pages in and waits until the consumer finished every
    /// key queued; the cut lasts as long as the guard.
    pub async fn pause(&self) -> RwLockWriteGuard<'_, ()> {
        let guard = self.gate.write().await;
        self.pausing.store(true, Ordering::SeqCst);
        let _unset = Unset(&self.pausing);
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            if self.is_idle() {
                return guard;
            }
            idle.await;
        }
    }
}

/// Clears the flag when the wait ends, however it ends.
struct Unset<'a>(&'a AtomicBool);

impl Drop for Unset<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}
