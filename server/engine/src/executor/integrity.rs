//! The first objects a run found corrupt or missing, kept as examples for the run's
//! events (a hundred at most per run): the counts say how many, the examples say which
//! keys and where their bodies first differed, so a user can look at them on the
//! store. Later findings are only counted.

use std::sync::Mutex;

use keystorm_types::ErrorClass;

/// Examples a run keeps.
pub(crate) const MAX_EXAMPLES: usize = 100;

/// One object found corrupt or missing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Finding {
    pub class: ErrorClass,
    pub bucket: String,
    pub key: String,
    /// Where the body first differed, or what answered.
    pub detail: String,
}

#[derive(Default)]
pub(crate) struct Examples {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    kept: usize,
    /// Examples not yet written to the events.
    pending: Vec<Finding>,
}

impl Examples {
    /// Keeps `f` while the run has fewer than [`MAX_EXAMPLES`].
    pub fn note(&self, f: &Finding) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if s.kept < MAX_EXAMPLES {
            s.kept += 1;
            s.pending.push(f.clone());
        }
    }

    /// The examples kept since the last call.
    pub fn take(&self) -> Vec<Finding> {
        std::mem::take(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()).pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_hundred_once_each() {
        let examples = Examples::default();
        let finding = |n: usize| Finding {
            class: ErrorClass::Corrupt,
            bucket: "b".into(),
            key: format!("k{n}"),
            detail: "byte 0".into(),
        };
        for n in 0..60 {
            examples.note(&finding(n));
        }
        let first = examples.take();
        assert_eq!(first.len(), 60);
        assert_eq!(first[0].key, "k0");
        for n in 60..150 {
            examples.note(&finding(n));
        }
        let rest = examples.take();
        assert_eq!(rest.len(), MAX_EXAMPLES - 60);
        assert_eq!(rest.last().unwrap().key, "k99");
        assert!(examples.take().is_empty());
    }
}
