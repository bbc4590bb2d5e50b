//! Key name layouts: random base-62 (uniform leading characters, so listing can split
//! on prefixes), zero-padded sequential, and folder-like trees.

use super::hash::{mix64, permute};

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Base-62 digits needed to write any u64.
pub const UNIQUE_DIGITS: usize = 11;

const SALT_LEAD: u64 = 0x4c45_4144;
const SALT_TREE: u64 = 0x5452_4545;

/// `length` characters: `length - 11` uniform leading characters from a hash of `i`,
/// then 11 base-62 digits of a keyed permutation of `i`, which makes names unique.
pub fn random_name(seed: u64, i: u64, length: usize, out: &mut String) {
    let lead = length.saturating_sub(UNIQUE_DIGITS);
    let mut h = mix64(seed ^ SALT_LEAD, i);
    for n in 0..lead {
        if n > 0 && n % 8 == 0 {
            h = mix64(h, i);
        }
        // Multiply-shift gives a uniform digit from the high bits; keep the rest.
        let wide = u128::from(h) * 62;
        out.push(BASE62[(wide >> 64) as usize] as char);
        h = wide as u64;
    }
    let mut v = permute(seed, i);
    let mut digits = [b'0'; UNIQUE_DIGITS];
    for d in digits.iter_mut().rev() {
        *d = BASE62[(v % 62) as usize];
        v /= 62;
    }
    // Only ASCII bytes were written.
    out.push_str(std::str::from_utf8(&digits).unwrap_or_default());
}

/// `i` zero-padded to `width` digits (wider if `i` needs more).
pub fn sequential_name(i: u64, width: usize, out: &mut String) {
    use std::fmt::Write;
    let _ = write!(out, "{i:0width$}");
}

/// `depth` folder levels, each one of `fanout` zero-padded numbers chosen by a hash of `i`.
pub fn tree_folders(seed: u64, i: u64, fanout: u32, depth: u32, out: &mut String) {
    use std::fmt::Write;
    let width = (fanout.max(2) - 1).to_string().len();
    for level in 0..depth {
        let h = mix64(seed ^ SALT_TREE ^ u64::from(level), i);
        let branch = h % u64::from(fanout.max(1));
        let _ = write!(out, "{branch:0width$}/");
    }
}
