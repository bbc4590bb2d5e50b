//! Every old name keystorm still takes, in one place: where it is used, what it is
//! called now, and the release that drops it. Each surface that reads or writes an old
//! name asks here — the workload's fields, the command line's flags, the counts the
//! results write (events, outcomes, the API that serves them) and `keystorm list
//! --json` — so [`OLD_NAMES_TAKEN`] switches them all off at once: workloads and flags
//! then refuse them as unknown, naming the new one, and nothing writes them any more
//! (results recorded before are still read).

/// Whether old names are still taken (read, and written beside the new ones). The
/// release named by [`DROPPED_IN`] sets it to `false`.
pub const OLD_NAMES_TAKEN: bool = true;

/// The release that drops every old name listed here.
pub const DROPPED_IN: &str = "0.2.0";

/// Where a name is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A field of a workload's phase.
    Workload,
    /// A flag of `keystorm COMMAND`.
    Flag(&'static str),
    /// A count in the results: events, listing and scan outcomes, and the API that
    /// serves them.
    Results,
    /// `keystorm list --json`.
    ListJson,
}

/// A name that changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Renamed {
    pub place: Place,
    pub old: &'static str,
    /// The name now; a workload's `concurrency` is whichever count the phase runs.
    pub new: &'static str,
}

/// Every old name still taken.
pub const RENAMED: [Renamed; 15] = [
    // `concurrency` meant whichever of these the phase's kind runs.
    renamed(Place::Workload, "concurrency", "workers"),
    renamed(Place::Workload, "concurrency", "listers"),
    renamed(Place::Workload, "concurrency", "head_workers"),
    renamed(Place::Workload, "concurrency", "in_flight"),
    renamed(Place::Workload, "list_concurrency", "listers"),
    renamed(Place::Workload, "part_concurrency", "parts_in_flight"),
    renamed(Place::Flag("list"), "--concurrency", "--listers"),
    renamed(Place::Flag("list"), "--head-concurrency", "--head-workers"),
    renamed(Place::Flag("diff"), "--concurrency", "--listers"),
    renamed(Place::Flag("download"), "--concurrency", "--in-flight"),
    renamed(
        Place::Flag("download"),
        "--part-concurrency",
        "--parts-in-flight",
    ),
    renamed(Place::Flag("download"), "--list-concurrency", "--listers"),
    renamed(Place::Flag("upload"), "--concurrency", "--in-flight"),
    renamed(
        Place::Flag("upload"),
        "--part-concurrency",
        "--parts-in-flight",
    ),
    LIST_JSON_HEAD_CONCURRENCY,
];

/// `keystorm list --json`'s `head.concurrency`, now `head.head_workers`.
pub const LIST_JSON_HEAD_CONCURRENCY: Renamed =
    renamed(Place::ListJson, "concurrency", "head_workers");

/// The old names the results write beside the new ones (and read either way): a
/// listing's `listers`, a scan's `head_workers`, and an event's one count before it
/// had several.
pub const RESULTS_RENAMED: [Renamed; 3] = [
    renamed(Place::Results, "concurrency", "listers"),
    renamed(Place::Results, "head_concurrency", "head_workers"),
    EVENT_CONCURRENCY,
];

/// An event's one count before it had several.
pub const EVENT_CONCURRENCY: Renamed = renamed(
    Place::Results,
    "concurrency",
    "workers, listers, head_workers or in_flight",
);

const fn renamed(place: Place, old: &'static str, new: &'static str) -> Renamed {
    Renamed { place, old, new }
}

/// The entry for `old` as used at `place` that now reads `new`, while old names are
/// taken.
pub fn taken(place: Place, old: &str, new: &str) -> Option<&'static Renamed> {
    RENAMED
        .iter()
        .chain(&RESULTS_RENAMED)
        .find(|r| r.place == place && r.old == old && r.new == new)
        .filter(|_| OLD_NAMES_TAKEN)
}

impl Renamed {
    /// Its old name, while old names are taken.
    pub fn old_if_taken(&self) -> Option<&'static str> {
        OLD_NAMES_TAKEN.then_some(self.old)
    }
}

/// What a warning about an old name adds: until when it works.
pub fn works_until() -> String {
    format!("the old name works until release {DROPPED_IN}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_old_name_is_listed_once_and_found_where_it_is_used() {
        let all: Vec<&Renamed> = RENAMED.iter().chain(&RESULTS_RENAMED).collect();
        for (i, r) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|o| o != r), "{r:?} twice");
            assert_eq!(taken(r.place, r.old, r.new), Some(*r));
        }
        assert_eq!(
            taken(Place::Flag("run"), "--concurrency", "--listers"),
            None
        );
    }

    #[test]
    fn the_release_that_drops_old_names_is_still_ahead() {
        // Reaching it means switching OLD_NAMES_TAKEN off and deleting this list.
        let version = |v: &str| -> Vec<u32> { v.split('.').map(|n| n.parse().unwrap()).collect() };
        assert!(
            !OLD_NAMES_TAKEN || version(env!("CARGO_PKG_VERSION")) < version(DROPPED_IN),
            "release {} drops the old names: set OLD_NAMES_TAKEN to false",
            env!("CARGO_PKG_VERSION")
        );
    }
}
