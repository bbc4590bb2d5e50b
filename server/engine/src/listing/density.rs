//! About how many keys a range still holds. After a page, the keys it held and the
//! stretch of key space they covered give a density, and the distance to the range's
//! end gives the keys left. Adaptive listing only cuts ranges that look several pages
//! long: S3 has no end key, so every range ends with a page that crosses into the next
//! range's keys, which both ends pay for (written, sent, parsed) and the lister drops;
//! cutting short ranges made more of those crossings than it saved in waiting, and a
//! range's last page asks for about the keys left rather than a full page. The
//! estimate only steers cutting and page sizes; exactness comes from the ranges.

/// Bytes of each key (after the common prefix) that place it in the key space.
const PLACE_BYTES: usize = 7;

/// Where `key` lies in `[0, 1)` once `skip` leading bytes (shared by every key in
/// question) are set aside, reading the next bytes as base-256 digits.
fn place(key: &str, skip: usize) -> f64 {
    let bytes = key.as_bytes().get(skip..).unwrap_or_default();
    let mut scale = 1.0 / 256.0;
    let mut at = 0.0;
    for &b in bytes.iter().take(PLACE_BYTES) {
        at += f64::from(b) * scale;
        scale /= 256.0;
    }
    at
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// About how many keys lie after `last` up to `end`, judging by a page that held `n`
/// keys from `first` to `last`; `None` when the page says nothing (fewer than two keys,
/// no spread) or `last` is not before `end`.
pub fn keys_left(first: &str, last: &str, n: usize, end: &str) -> Option<f64> {
    if n < 2 || last >= end {
        return None;
    }
    let skip = common_prefix(first, end);
    let covered = place(last, skip) - place(first, skip);
    let left = place(end, skip) - place(last, skip);
    (covered > 0.0 && left > 0.0).then(|| (n - 1) as f64 * left / covered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_what_is_left_from_the_last_page() {
        // A page of 1001 keys spread over a..k; the end lies three letters further.
        let left = keys_left("p/a", "p/k", 1001, "p/n").unwrap();
        assert!((299.0..301.0).contains(&left), "{left}");
        let far = keys_left("p/a", "p/k", 1001, "p/z").unwrap();
        assert!(far > 1000.0, "{far}");
        let near = keys_left("p/a", "p/k", 1001, "p/k0").unwrap();
        assert!(near < 20.0, "{near}");
    }

    #[test]
    fn knows_nothing_without_a_spread_or_room() {
        assert_eq!(keys_left("a", "a", 1000, "b"), None);
        assert_eq!(keys_left("a", "b", 1, "c"), None);
        assert_eq!(keys_left("a", "c", 1000, "b"), None);
        assert_eq!(keys_left("a", "c", 1000, "c"), None);
    }

    #[test]
    fn keys_longer_than_the_place_bytes_still_compare() {
        let long = "x".repeat(40);
        let left = keys_left(
            &format!("{long}a"),
            &format!("{long}b"),
            1001,
            &format!("{long}c"),
        )
        .unwrap();
        assert!((999.0..1001.0).contains(&left), "{left}");
    }
}
