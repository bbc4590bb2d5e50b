//! A keyed permutation of `[0, n)` with no table: a four-round Feistel network over the
//! smallest even number of bits that holds `n`, walked along its cycle until it lands
//! below `n` (fewer than four steps on average, since `n` is more than a quarter of
//! the network's domain). Each key gives another order, and a billion positions cost
//! the same few bytes as ten.

use crate::keyspace::mix64;

/// Rounds of the network: four make a pseudo-random permutation (Luby–Rackoff).
const ROUNDS: usize = 4;

/// One order of `[0, n)`.
#[derive(Debug, Clone, Copy)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    mask: u64,
    keys: [u64; ROUNDS],
}

impl Permutation {
    pub fn new(n: u64, key: u64) -> Permutation {
        let bits = (64 - n.saturating_sub(1).leading_zeros()).max(2);
        let half_bits = bits.div_ceil(2);
        let mut keys = [0; ROUNDS];
        for (r, k) in keys.iter_mut().enumerate() {
            *k = mix64(key, r as u64);
        }
        Permutation {
            n,
            half_bits,
            mask: (1u64 << half_bits) - 1,
            keys,
        }
    }

    /// Where `i` (< n) goes.
    pub fn apply(&self, i: u64) -> u64 {
        debug_assert!(i < self.n);
        let mut x = i;
        loop {
            x = self.encrypt(x);
            if x < self.n {
                return x;
            }
        }
    }

    fn encrypt(&self, x: u64) -> u64 {
        let (mut left, mut right) = (x >> self.half_bits, x & self.mask);
        for k in self.keys {
            let next = left ^ (mix64(k, right) & self.mask);
            left = right;
            right = next;
        }
        (left << self.half_bits) | right
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_position_comes_out_once_for_any_size() {
        for n in [1u64, 2, 3, 5, 16, 17, 1000, 4097, 65_537] {
            for key in [0, 7] {
                let p = Permutation::new(n, key);
                let mut seen = vec![false; n as usize];
                for i in 0..n {
                    let j = p.apply(i);
                    assert!(j < n, "n {n}: {i} -> {j}");
                    assert!(!seen[j as usize], "n {n}: {j} twice");
                    seen[j as usize] = true;
                }
            }
        }
    }

    #[test]
    fn another_key_gives_another_order_that_looks_shuffled() {
        let n = 10_000;
        let (a, b) = (Permutation::new(n, 1), Permutation::new(n, 2));
        let same = (0..n).filter(|&i| a.apply(i) == b.apply(i)).count();
        assert!(same < 20, "{same} positions in the same place");
        // Neighbours do not stay neighbours: the first hundred picks spread over the
        // whole range.
        let first: Vec<u64> = (0..100).map(|i| a.apply(i)).collect();
        let in_first_tenth = first.iter().filter(|&&j| j < n / 10).count();
        assert!(
            in_first_tenth < 25,
            "{in_first_tenth} of 100 in the first tenth"
        );
        assert!(first.iter().any(|&j| j > n * 9 / 10));
    }

    #[test]
    fn a_billion_positions_need_no_table() {
        let n = 1_000_000_007;
        let p = Permutation::new(n, 9);
        for i in [0, 1, n / 2, n - 1] {
            assert!(p.apply(i) < n);
        }
        assert_eq!(std::mem::size_of::<Permutation>(), 56);
    }
}
