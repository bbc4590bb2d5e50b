//! Which part of a bucket's key space a shard lists when the shards of one workload
//! share a listing. Prefix mode deals out its cells (see `PrefixCells::for_shard`);
//! here are the other modes: a serial listing is the one-paginator baseline, so only
//! shard 0 runs it; an adaptive listing starts from the whole key space cut at evenly
//! spaced base-62 boundaries, and then cuts its own slice as it goes. (It does not seed
//! from a folder page: shards that read that page at different moments, or one that
//! failed to, would start from different splits.) Ranges cut at one boundary share no
//! key and miss none (see [`super::range`]), so the shards list every key once.

use keystorm_results::{BASE62_ALPHABET, Shard};

use super::range::{KeyRange, RangeEnd};

/// A serial listing: the whole key space for shard 0, nothing for the others.
pub fn serial(prefix: &str, shard: Shard) -> Vec<KeyRange> {
    if shard.is_first() {
        vec![KeyRange::whole(prefix)]
    } else {
        Vec::new()
    }
}

/// This shard's slice of every key under `prefix`: the keys after boundary `index`
/// through boundary `index + 1`, the boundaries being `prefix` followed by base-62
/// strings evenly spaced over the alphabet (long enough to tell `count` of them apart).
pub fn whole(prefix: &str, shard: Shard) -> KeyRange {
    if shard.is_whole() {
        return KeyRange::whole(prefix);
    }
    let boundary = |k: u32| -> Option<String> {
        (k > 0 && k < shard.count).then(|| boundary(prefix, k, shard.count))
    };
    KeyRange {
        prefix: prefix.to_string(),
        after: boundary(shard.index),
        end: boundary(shard.index + 1).map_or(RangeEnd::Open, RangeEnd::Through),
        exclude: None,
        probe_first: false,
    }
}

/// `prefix` followed by the base-62 string at `k / count` of the alphabet's span.
fn boundary(prefix: &str, k: u32, count: u32) -> String {
    let alphabet = BASE62_ALPHABET.as_bytes();
    let base = alphabet.len() as u128;
    let mut digits = 1u32;
    while base.pow(digits) < u128::from(count) {
        digits += 1;
    }
    let mut at = u128::from(k) * base.pow(digits) / u128::from(count);
    let mut chars = vec![0u8; digits as usize];
    for c in chars.iter_mut().rev() {
        *c = alphabet[(at % base) as usize];
        at /= base;
    }
    let mut s = prefix.to_string();
    s.extend(chars.into_iter().map(char::from));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listing::range::Verdict;

    fn owners(ranges: &[KeyRange], key: &str) -> usize {
        ranges
            .iter()
            .filter(|r| {
                key.starts_with(&r.prefix)
                    && r.after.as_deref().is_none_or(|a| key > a)
                    && r.verdict(key) == Verdict::Take
            })
            .count()
    }

    const KEYS: [&str; 14] = [
        "p/", "p/0", "p/00", "p/0z", "p/9~", "p/A", "p/A0", "p/V", "p/Zz", "p/a", "p/x", "p/zzz",
        "p/~", "p/é",
    ];

    #[test]
    fn the_shards_of_an_adaptive_listing_own_every_key_once() {
        for count in [2u32, 3, 7, 62, 100] {
            let ranges: Vec<KeyRange> = (0..count)
                .map(|i| whole("p/", Shard::new(i, count).unwrap()))
                .collect();
            for key in KEYS {
                assert_eq!(owners(&ranges, key), 1, "{count} shards, key {key:?}");
            }
        }
        assert_eq!(owners(&[whole("p/", Shard::WHOLE)], "p/x"), 1);
    }

    #[test]
    fn boundaries_spread_over_the_alphabet_and_stay_apart() {
        assert_eq!(boundary("p/", 1, 2), "p/V");
        let many: Vec<String> = (1..100).map(|k| boundary("", k, 100)).collect();
        assert!(many.windows(2).all(|w| w[0] < w[1]), "{many:?}");
        assert_eq!(many[0].len(), 2);
    }

    #[test]
    fn a_serial_listing_runs_on_shard_zero_only() {
        assert_eq!(serial("p/", Shard::new(0, 3).unwrap()).len(), 1);
        assert!(serial("p/", Shard::new(2, 3).unwrap()).is_empty());
    }
}
