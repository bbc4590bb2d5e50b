//! The first failure of each error class a run meets, kept with its message so it can
//! be shown once as a warning: the counts say how often requests failed, the message
//! says why (e.g. which budget of the target is full and how to raise it). Later
//! failures of a class already shown are only counted.

use std::collections::BTreeSet;
use std::sync::Mutex;

use keystorm_types::{ErrorClass, OpError};

#[derive(Default)]
pub(crate) struct FirstErrors {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    seen: BTreeSet<ErrorClass>,
    /// Messages not yet shown.
    pending: Vec<String>,
}

impl FirstErrors {
    /// Keeps `e`'s message if it is the first of its class in the run.
    pub fn note(&self, e: &OpError) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if s.seen.insert(e.class) {
            s.pending.push(format!(
                "first {} error: {} (further ones are counted, not shown)",
                e.class, e.message
            ));
        }
    }

    /// The messages noted since the last call.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()).pending)
    }
}

/// A worker's memory of the classes it already passed on, so only its first failure
/// of each class takes the shared lock.
#[derive(Default)]
pub(crate) struct Seen(Vec<ErrorClass>);

impl Seen {
    /// Passes `e` on to `first` unless this worker already passed one of its class.
    pub fn note(&mut self, e: &OpError, first: &FirstErrors) {
        if !self.0.contains(&e.class) {
            self.0.push(e.class);
            first.note(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_is_shown_once_per_run() {
        let first = FirstErrors::default();
        let (mut a, mut b) = (Seen::default(), Seen::default());
        let full = OpError::new(
            ErrorClass::Http(507),
            "PUT: HTTP 507 InsufficientStorage: full",
        );
        a.note(&full, &first);
        b.note(&full, &first);
        a.note(
            &OpError::new(ErrorClass::Timeout, "GET: no response"),
            &first,
        );
        let shown = first.take();
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(
            shown[0].starts_with("first http_507 error: PUT: HTTP 507 InsufficientStorage: full")
        );
        assert!(shown[1].starts_with("first timeout error: GET"));
        b.note(&OpError::new(ErrorClass::Http(507), "again"), &first);
        assert!(first.take().is_empty());
    }
}
