//! Keyed, bijective 64-bit mixing: the source of every "random-looking" but
//! reproducible choice the keyspace makes.

/// SplitMix64's finalizer: a bijection on u64 with good avalanche.
#[inline]
pub fn finalize(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A keyed permutation of u64: distinct `i` give distinct results for the same key.
#[inline]
pub fn permute(key: u64, i: u64) -> u64 {
    let k1 = finalize(key ^ 0x9e37_79b9_7f4a_7c15);
    let k2 = finalize(k1 ^ 0x2545_f491_4f6c_dd1d);
    finalize(finalize(i ^ k1).wrapping_add(k2))
}

/// A keyed hash of `i` (not necessarily bijective in `key`, uniform in output).
#[inline]
pub fn mix64(key: u64, i: u64) -> u64 {
    permute(key, i)
}
