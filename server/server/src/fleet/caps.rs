//! How much the controller keeps of a run's shard folders (its caps), and its count of
//! what it holds of the run going now; the copies themselves are written by `copies`.

/// How much of a run's shard folders the controller keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartCaps {
    /// Largest file of a shard's folder.
    pub file: u64,
    /// Most bytes of all the run's shard folders together.
    pub run: u64,
}

impl PartCaps {
    /// Six weeks of the fastest-growing log of a fill (its `events.jsonl`, about 90 MB
    /// a day); see docs/many-hosts.md.
    pub const DEFAULT_FILE: u64 = 4 << 30;
    /// A week-long fill split over 64 agents (about 170 MB a day each), with room.
    pub const DEFAULT_RUN: u64 = 128 << 30;
}

impl Default for PartCaps {
    fn default() -> PartCaps {
        PartCaps {
            file: PartCaps::DEFAULT_FILE,
            run: PartCaps::DEFAULT_RUN,
        }
    }
}

/// The bytes of one run's copies, as last counted.
#[derive(Default)]
pub(super) struct Ledger {
    pub run_id: String,
    /// `None`: to be counted from disk.
    pub bytes: Option<u64>,
}
