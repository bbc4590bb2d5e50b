//! Shard `I` of `N`: the part of a workload one process runs when `N` processes (agents,
//! Kubernetes Job indexes, hosts of an ssh loop) share it. Key index `g` of the whole
//! workload belongs to shard `g mod N`, so the shards' keys are disjoint and their union
//! is exactly the single-process keyspace, whatever the number of keys: no ranges to
//! agree on in advance, and a fill that runs for a duration splits as well as one that
//! runs to a count. A run records its shard, and a merge of the shards' runs reads it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Shard `index` of `count` (`0 <= index < count`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Default for Shard {
    fn default() -> Self {
        Shard::WHOLE
    }
}

impl Shard {
    /// The whole workload, in one process.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if count == 0 {
            return Err(ShardError::NoShards);
        }
        if index >= count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    pub fn is_whole(self) -> bool {
        self.count <= 1
    }

    /// The shard that does what only one process may do (create buckets, poll the RGW
    /// index, run a serial listing baseline).
    pub fn is_first(self) -> bool {
        self.index == 0
    }

    /// The whole workload's key index of this shard's `local`-th key.
    pub fn global(self, local: u64) -> u64 {
        local * u64::from(self.count.max(1)) + u64::from(self.index)
    }

    /// How many of the indices `[0, n)` belong to this shard: the shard's part of a
    /// count (objects, operations). The parts of all shards add up to `n` exactly.
    pub fn share_of(self, n: u64) -> u64 {
        let count = u64::from(self.count.max(1));
        let index = u64::from(self.index);
        if n > index {
            (n - index - 1) / count + 1
        } else {
            0
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A shard that cannot be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error(
        "a shard is written I/N (for example 0/4): the shard's index, then the number of shards"
    )]
    Syntax,
    #[error("the number of shards must be at least 1")]
    NoShards,
    #[error("shard {index}/{count} does not exist: indices run from 0 to {}", count - 1)]
    OutOfRange { index: u32, count: u32 },
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let (index, count) = s.trim().split_once('/').ok_or(ShardError::Syntax)?;
        let number = |t: &str| t.trim().parse::<u32>().map_err(|_| ShardError::Syntax);
        Shard::new(number(index)?, number(count)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shares_of_all_shards_add_up_to_the_count_and_their_keys_cover_it_once() {
        for count in 1..=7u32 {
            for n in [0u64, 1, 2, 5, 6, 7, 100, 1_001] {
                let shards: Vec<Shard> =
                    (0..count).map(|i| Shard::new(i, count).unwrap()).collect();
                let total: u64 = shards.iter().map(|s| s.share_of(n)).sum();
                assert_eq!(total, n, "{count} shards of {n}");
                let mut seen = vec![0u32; n as usize];
                for s in &shards {
                    for local in 0..s.share_of(n) {
                        let g = s.global(local);
                        assert!(g < n, "shard {s} local {local} -> {g} >= {n}");
                        seen[g as usize] += 1;
                    }
                }
                assert!(
                    seen.iter().all(|&c| c == 1),
                    "{count} shards of {n}: {seen:?}"
                );
            }
        }
    }

    #[test]
    fn a_shard_is_read_as_index_slash_count_and_nonsense_is_explained() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(" 0 / 1 ".parse::<Shard>(), Ok(Shard::WHOLE));
        assert_eq!(
            "4/4".parse::<Shard>(),
            Err(ShardError::OutOfRange { index: 4, count: 4 })
        );
        assert_eq!("0/0".parse::<Shard>(), Err(ShardError::NoShards));
        assert_eq!("2".parse::<Shard>(), Err(ShardError::Syntax));
        assert_eq!("-1/4".parse::<Shard>(), Err(ShardError::Syntax));
        assert_eq!(
            "4/4".parse::<Shard>().unwrap_err().to_string(),
            "shard 4/4 does not exist: indices run from 0 to 3"
        );
        assert_eq!(Shard::new(1, 3).unwrap().to_string(), "1/3");
    }
}
