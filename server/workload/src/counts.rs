//! Every count of things kept going at once, each defined once: its name (as a
//! workload writes it; the command line's flag is the same name with dashes), what it
//! counts, its default and its limit. Workload validation, the command line's flags
//! and the plan's defaults all read them here, so one name means one default and one
//! limit wherever it is given.

/// A count of things kept going at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    /// The name in a workload (`listers`); the flag is `--listers`.
    pub name: &'static str,
    /// What it counts, for help texts and docs.
    pub counts: &'static str,
    /// Where not given.
    pub default: u32,
    /// The most accepted; the least is 1.
    pub max: u32,
}

impl Count {
    /// The command line's flag for it (`--head-workers`).
    pub fn flag(&self) -> String {
        format!("--{}", self.name.replace('_', "-"))
    }

    /// The range accepted, as the command line's parsers take it.
    pub const fn range(&self) -> std::ops::RangeInclusive<i64> {
        1..=self.max as i64
    }
}

/// Workers of an operations phase or a mix, each with one request in flight.
pub const WORKERS: Count = Count {
    name: "workers",
    counts: "workers of an operations phase or a mix, each with one request in flight",
    default: 16,
    max: 100_000,
};

/// Listers: a listing's LIST requests in flight, or those feeding a metadata scan,
/// a download or reads from a listing.
pub const LISTERS: Count = Count {
    name: "listers",
    counts: "LIST requests in flight (a listing's own, or those feeding a scan, a download or reads from a listing)",
    default: 32,
    max: 4096,
};

/// HEAD requests in flight in a metadata scan.
pub const HEAD_WORKERS: Count = Count {
    name: "head_workers",
    counts: "HEAD requests in flight in a metadata scan",
    default: 64,
    max: 4096,
};

/// Objects (files) a download or upload moves at once.
pub const IN_FLIGHT: Count = Count {
    name: "in_flight",
    counts: "objects (files) a download or upload moves at once",
    default: 16,
    max: 4096,
};

/// Parts of one object moving at once (multipart uploads, ranged GETs).
pub const PARTS_IN_FLIGHT: Count = Count {
    name: "parts_in_flight",
    counts: "parts of one object moving at once",
    default: 4,
    max: 256,
};

/// Every count, for the docs and the tests that hold each surface to it.
pub const ALL: [Count; 5] = [WORKERS, LISTERS, HEAD_WORKERS, IN_FLIGHT, PARTS_IN_FLIGHT];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_defaults_within_their_limits() {
        for (i, c) in ALL.iter().enumerate() {
            assert!(c.default >= 1 && c.default <= c.max, "{c:?}");
            assert!(ALL[i + 1..].iter().all(|o| o.name != c.name), "{c:?}");
        }
        assert_eq!(HEAD_WORKERS.flag(), "--head-workers");
        assert_eq!(LISTERS.range(), 1..=4096);
    }
}
