//! Prefix mode's split of a key space: one range per string of `depth` alphabet
//! characters after the listing prefix (62 or 62² for base-62 keys), plus the gaps
//! between them, so keys outside the alphabet are listed too and none twice.
//!
//! Under every inner prefix `Q`, the alphabet falls into runs of consecutive code
//! points (`0-9`, `A-Z`, `a-z` for base 62). Keys below the first run, between two runs
//! or above the last can exist (`Q-x`, `Q:x`, `Qé`), so each of those gaps is a range of
//! its own, probed with a one-key page because it is almost always empty. Cells are
//! produced one at a time from counters: 62³ prefixes cost no memory.

use serde::{Deserialize, Serialize};

use keystorm_results::Shard;

use super::range::{KeyRange, RangeEnd};

/// The largest Unicode scalar: `Q` + `c` + this is after every key starting `Q` + `c`
/// except the ones that continue with it, which the gap skips.
const MAX_CHAR: char = '\u{10FFFF}';

/// A lazy sequence of the cells for `prefix`, `alphabet` and `depth`.
pub struct PrefixCells {
    prefix: String,
    /// Sorted, distinct.
    alphabet: Vec<char>,
    /// Runs of consecutive code points, as index ranges into `alphabet`.
    runs: Vec<(usize, usize)>,
    depth: u32,
    /// Next leaf (a full-depth prefix) to hand out.
    next_leaf: u64,
    leaves: u64,
    /// Next inner node (all prefixes shorter than `depth`, level by level).
    next_inner: u64,
    inner: u64,
    /// Gaps of the current inner node not handed out yet.
    pending: Vec<KeyRange>,
    /// Leaf `k` and inner node `k` (with its gaps) belong to shard `k mod count`; this
    /// sequence hands out only its shard's.
    shard: Shard,
}

/// How far the cells were handed out, for a checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellsPosition {
    pub next_leaf: u64,
    pub next_inner: u64,
    pub pending: Vec<KeyRange>,
}

impl PrefixCells {
    /// How far the cells were handed out.
    pub fn position(&self) -> CellsPosition {
        CellsPosition {
            next_leaf: self.next_leaf,
            next_inner: self.next_inner,
            pending: self.pending.clone(),
        }
    }

    /// The cells of a listing resumed at `position`.
    pub fn resume_at(mut self, position: CellsPosition) -> PrefixCells {
        self.next_leaf = position.next_leaf.min(self.leaves);
        self.next_inner = position.next_inner.min(self.inner);
        self.pending = position.pending;
        self
    }

    /// `depth` is at least 1; the alphabet is deduplicated and sorted.
    pub fn new(prefix: &str, alphabet: &str, depth: u32) -> PrefixCells {
        let mut chars: Vec<char> = alphabet.chars().collect();
        chars.sort_unstable();
        chars.dedup();
        let mut runs = Vec::new();
        let mut start = 0;
        for i in 1..=chars.len() {
            if i == chars.len() || u32::from(chars[i]) != u32::from(chars[i - 1]) + 1 {
                runs.push((start, i - 1));
                start = i;
            }
        }
        let n = chars.len() as u64;
        let depth = depth.max(1);
        let leaves = n.saturating_pow(depth);
        let inner = (0..depth).map(|l| n.saturating_pow(l)).sum();
        PrefixCells {
            prefix: prefix.to_string(),
            alphabet: chars,
            runs,
            depth,
            next_leaf: 0,
            leaves,
            next_inner: 0,
            inner,
            pending: Vec::new(),
            shard: Shard::WHOLE,
        }
    }

    /// Only the cells of `shard`: the shards of one listing share no cell and leave
    /// none out.
    pub fn for_shard(mut self, shard: Shard) -> PrefixCells {
        self.shard = shard;
        self
    }

    /// The first number from `n` on that belongs to this sequence's shard.
    fn own_from(&self, n: u64) -> u64 {
        let count = u64::from(self.shard.count.max(1));
        let index = u64::from(self.shard.index);
        n + (index + count - n % count) % count
    }

    /// How many cells there are in all.
    #[cfg(test)]
    fn count_all(&self) -> u64 {
        self.leaves + self.inner * (self.runs.len() as u64 + 1)
    }

    /// The characters of number `n` written in `digits` alphabet digits.
    fn path(&self, mut n: u64, digits: u32) -> String {
        let base = self.alphabet.len() as u64;
        let mut chars = vec![self.alphabet[0]; digits as usize];
        for c in chars.iter_mut().rev() {
            *c = self.alphabet[(n % base) as usize];
            n /= base;
        }
        let mut s = self.prefix.clone();
        s.extend(chars);
        s
    }

    /// The gaps under inner node `q`: before the first run, between runs, after the last.
    fn gaps(&self, q: &str) -> Vec<KeyRange> {
        let mut gaps = Vec::with_capacity(self.runs.len() + 1);
        let mut after: Option<String> = None;
        for &(first, last) in &self.runs {
            gaps.push(self.gap(q, after.as_deref(), Some(self.alphabet[first])));
            after = Some(format!("{q}{}", self.alphabet[last]));
        }
        gaps.push(self.gap(q, after.as_deref(), None));
        gaps
    }

    /// Keys under `q` after every key starting with `after` and before `q` + `before`.
    fn gap(&self, q: &str, after: Option<&str>, before: Option<char>) -> KeyRange {
        gap(q, after, before.map(|c| format!("{q}{c}")))
    }
}

/// The keys under `q` that come after every key starting with `after` (which another
/// range lists whole) and before `before`; probed with a one-key page first, since
/// such gaps are mostly empty.
pub fn gap(q: &str, after: Option<&str>, before: Option<String>) -> KeyRange {
    KeyRange {
        prefix: q.to_string(),
        after: after.map(|a| format!("{a}{MAX_CHAR}")),
        end: before.map_or(RangeEnd::Open, RangeEnd::Before),
        exclude: after.map(str::to_string),
        probe_first: true,
    }
}

impl Iterator for PrefixCells {
    type Item = KeyRange;

    fn next(&mut self) -> Option<KeyRange> {
        if self.alphabet.is_empty() {
            return None;
        }
        self.next_leaf = self.own_from(self.next_leaf).min(self.leaves);
        if self.next_leaf < self.leaves {
            let cell = KeyRange::prefix(self.path(self.next_leaf, self.depth));
            self.next_leaf += 1;
            return Some(cell);
        }
        loop {
            if let Some(g) = self.pending.pop() {
                return Some(g);
            }
            self.next_inner = self.own_from(self.next_inner).min(self.inner);
            if self.next_inner >= self.inner {
                return None;
            }
            // Inner node number `next_inner`: level by level, shortest first.
            let mut n = self.next_inner;
            let mut level = 0;
            while n >= (self.alphabet.len() as u64).saturating_pow(level) {
                n -= (self.alphabet.len() as u64).saturating_pow(level);
                level += 1;
            }
            let q = self.path(n, level);
            self.pending = self.gaps(&q);
            self.next_inner += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listing::range::Verdict;
    use keystorm_results::BASE62_ALPHABET;

    fn owners(cells: &[KeyRange], key: &str) -> usize {
        cells
            .iter()
            .filter(|c| key.starts_with(&c.prefix) && c.verdict(key) == Verdict::Take)
            // A listing never returns keys before `after`, so the verdict covers them.
            .count()
    }

    #[test]
    fn base62_at_depth_one_is_62_prefixes_and_4_gaps() {
        let cells: Vec<_> = PrefixCells::new("p/", BASE62_ALPHABET, 1).collect();
        assert_eq!(cells.len(), 66);
        assert_eq!(PrefixCells::new("p/", BASE62_ALPHABET, 1).count_all(), 66);
        assert_eq!(cells[0].prefix, "p/0");
        assert_eq!(cells.iter().filter(|c| c.probe_first).count(), 4);
    }

    #[test]
    fn depth_two_counts() {
        let cells = PrefixCells::new("", "ab", 2);
        // 4 leaves; inner nodes "", "a", "b" with 2 gaps each (one run).
        assert_eq!(cells.count_all(), 4 + 3 * 2);
        assert_eq!(cells.count(), 10);
    }

    #[test]
    fn every_key_has_exactly_one_cell() {
        for depth in 1..=2 {
            let cells: Vec<_> = PrefixCells::new("p/", BASE62_ALPHABET, depth).collect();
            for key in [
                "p/",
                "p/0",
                "p/00",
                "p/0a",
                "p/9",
                "p/9:",
                "p/:",
                "p/@",
                "p/A",
                "p/Zz",
                "p/[",
                "p/a",
                "p/z",
                "p/z~",
                "p/~",
                "p/é",
                "p/ 1",
                "p/-x",
                "p/9\u{10FFFF}x",
                "p/a\u{10FFFF}",
                "p/zz\u{10FFFF}\u{10FFFF}",
            ] {
                assert_eq!(owners(&cells, key), 1, "depth {depth} key {key:?}");
            }
        }
    }

    #[test]
    fn the_shards_of_a_prefix_listing_split_its_cells_and_resume_within_their_own() {
        for depth in 1..=2 {
            let all: Vec<_> = PrefixCells::new("p/", BASE62_ALPHABET, depth).collect();
            for count in [2u32, 3, 5] {
                let mut union = Vec::new();
                for index in 0..count {
                    let shard = Shard::new(index, count).unwrap();
                    let mine: Vec<_> = PrefixCells::new("p/", BASE62_ALPHABET, depth)
                        .for_shard(shard)
                        .collect();
                    // Stopped after 7 cells and resumed from its position, a shard
                    // hands out the same cells.
                    let mut first = PrefixCells::new("p/", BASE62_ALPHABET, depth).for_shard(shard);
                    let mut again: Vec<_> = first.by_ref().take(7).collect();
                    again.extend(
                        PrefixCells::new("p/", BASE62_ALPHABET, depth)
                            .for_shard(shard)
                            .resume_at(first.position()),
                    );
                    assert_eq!(again, mine, "depth {depth} shard {shard}");
                    union.extend(mine);
                }
                assert_eq!(union.len(), all.len(), "depth {depth}, {count} shards");
                for key in ["p/", "p/0", "p/0a", "p/:", "p/Zz", "p/é", "p/9\u{10FFFF}x"] {
                    assert_eq!(
                        owners(&union, key),
                        1,
                        "depth {depth} {count} shards key {key:?}"
                    );
                }
            }
        }
    }
}
