//! The secrets of every run of this process that is going, for the writers that see
//! text from anywhere: a run registers its [`Redactor`] when it starts and the
//! registration ends with the run, so what is kept grows with the runs going at once,
//! never with time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError, RwLock};

use super::Redactor;

/// Every registered redactor, by registration.
static REGISTERED: Mutex<Vec<(u64, Redactor)>> = Mutex::new(Vec::new());
/// Their union, rebuilt when one comes or goes (read by every writer).
static ACTIVE: RwLock<Option<Redactor>> = RwLock::new(None);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The secrets of every registered redactor.
pub fn active() -> Redactor {
    ACTIVE
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
        .unwrap_or_default()
}

/// Makes `redactor`'s secrets part of [`active`] until the registration is dropped.
#[must_use = "the secrets are forgotten when the registration is dropped"]
pub fn register(redactor: Redactor) -> Registration {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    update(|all| all.push((id, redactor)));
    Registration { id }
}

/// A redactor's place in [`active`]; dropping it takes the secrets out again.
#[derive(Debug)]
pub struct Registration {
    id: u64,
}

impl Registration {
    /// Adds `more` secrets to this registration (keys resolved after it began).
    pub fn add(&self, more: &Redactor) {
        let id = self.id;
        update(|all| {
            if let Some((_, r)) = all.iter_mut().find(|(i, _)| *i == id) {
                *r = r.with(more);
            }
        });
    }

    /// Keeps the secrets for the rest of the process (a command that ends with them).
    pub fn for_the_process(self) {
        std::mem::forget(self);
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let id = self.id;
        update(|all| all.retain(|(i, _)| *i != id));
    }
}

fn update(change: impl FnOnce(&mut Vec<(u64, Redactor)>)) {
    let mut all = REGISTERED.lock().unwrap_or_else(PoisonError::into_inner);
    change(&mut all);
    let union = all
        .iter()
        .fold(Redactor::default(), |acc, (_, r)| acc.with(r));
    *ACTIVE.write().unwrap_or_else(PoisonError::into_inner) = (!union.is_empty()).then_some(union);
}
