//! Choosing where to cut a key range nobody has seen whole: a string strictly between
//! the last key listed and the range's end, picked among the characters the listing
//! has met so far, so cuts land where keys are (digits and letters for base-62 keys,
//! `/` and digits for folder trees) rather than in empty parts of Unicode.
//!
//! The cut is a guess: a range cut unevenly is cut again when a lister runs out of
//! work, so the guess only decides how quickly the listers spread over the keys.

use std::collections::BTreeSet;

/// Non-ASCII characters remembered at most; the set stays small whatever the keys.
const MAX_OTHER_CHARS: usize = 512;
/// Character positions looked at per sampled key.
const SAMPLE_CHARS: usize = 48;
/// How many positions past the first difference a cut may go before giving up.
const MAX_DESCENT: usize = 6;

/// The characters seen in listed keys (after the listing prefix).
#[derive(Debug, Clone, Default)]
pub struct CharSet {
    ascii: u128,
    other: BTreeSet<char>,
}

impl CharSet {
    pub fn add_key(&mut self, key_after_prefix: &str) {
        for c in key_after_prefix.chars().take(SAMPLE_CHARS) {
            self.add(c);
        }
    }

    pub fn add(&mut self, c: char) {
        if c.is_ascii() {
            self.ascii |= 1u128 << (c as u32);
        } else if self.other.len() < MAX_OTHER_CHARS {
            self.other.insert(c);
        }
    }

    pub fn merge(&mut self, other: &CharSet) {
        self.ascii |= other.ascii;
        for c in &other.other {
            if self.other.len() >= MAX_OTHER_CHARS {
                break;
            }
            self.other.insert(*c);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ascii == 0 && self.other.is_empty()
    }

    /// Known characters strictly between `low` and `high` (either bound may be open), in
    /// order.
    fn between(&self, low: Option<char>, high: Option<char>) -> Vec<char> {
        let ok = |c: char| low.is_none_or(|l| c > l) && high.is_none_or(|h| c < h);
        (0u8..128)
            .filter(|b| self.ascii & (1u128 << b) != 0)
            .map(char::from)
            .chain(self.other.iter().copied())
            .filter(|c| ok(*c))
            .collect()
    }
}

/// A string `m` with `low < m`, `m` under `prefix`, and `m < high` (`high` = `None`:
/// the end of the prefix), or `None` when no useful cut is known. `low` starts with
/// `prefix` or is a bound the listing set; either way it is at least `prefix`.
pub fn midpoint(prefix: &str, low: &str, high: Option<&str>, chars: &CharSet) -> Option<String> {
    if chars.is_empty() || !low.starts_with(prefix) {
        return None;
    }
    let l: Vec<char> = low.chars().collect();
    let p = prefix.chars().count();
    // The first position where `low` and `high` part, and `high`'s character there.
    let (first, mut high_char) = match high {
        None => (p, None),
        Some(h) => {
            let h: Vec<char> = h.chars().collect();
            let i = l.iter().zip(&h).take_while(|(a, b)| a == b).count();
            if i == h.len() {
                // `high` is a prefix of `low` (or equal): nothing lies between.
                return None;
            }
            (i.max(p), h.get(i.max(p)).copied())
        }
    };
    for i in first..first + MAX_DESCENT {
        let low_char = l.get(i).copied();
        let candidates = chars.between(low_char, high_char);
        if !candidates.is_empty() {
            let c = candidates[candidates.len() / 2];
            let mut m: String = l[..i.min(l.len())].iter().collect();
            m.push(c);
            return Some(m);
        }
        // `low` ends here: any cut would have to be below it.
        low_char?;
        // Below `high` at an earlier position already: any continuation is below it.
        high_char = None;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(s: &str) -> CharSet {
        let mut c = CharSet::default();
        s.chars().for_each(|ch| c.add(ch));
        c
    }

    fn check(prefix: &str, low: &str, high: Option<&str>, chars: &CharSet) -> String {
        let m = midpoint(prefix, low, high, chars).expect("a cut");
        assert!(m.as_str() > low, "{m:?} > {low:?}");
        assert!(high.is_none_or(|h| m.as_str() < h), "{m:?} < {high:?}");
        assert!(m.starts_with(prefix), "{m:?}");
        m
    }

    #[test]
    fn cuts_base62_keys_in_the_middle_of_what_is_left() {
        let b62 = set(keystorm_results::BASE62_ALPHABET);
        assert_eq!(check("p/", "p/0abc", None, &b62), "p/V");
        assert_eq!(check("p/", "p/0abc", Some("p/V"), &b62), "p/G");
    }

    #[test]
    fn descends_when_the_characters_are_adjacent() {
        let digits = set("0123456789");
        let m = check("", "41", Some("5"), &digits);
        assert!(m.starts_with('4'), "{m}");
        let m = check("", "4", Some("5"), &digits);
        assert_eq!(m, "45");
    }

    #[test]
    fn finds_the_hot_folder_of_a_skewed_bucket() {
        let chars = set("hot/0123456789abcdefxyz");
        // Each cut leaves the lister the lower part; cutting again narrows it.
        let mut high = check("", "hot/0001", None, &chars);
        for _ in 0..16 {
            if high.starts_with("hot/") {
                return;
            }
            high = check("", "hot/0001", Some(&high), &chars);
        }
        panic!("no cut inside hot/ after 16 cuts: {high}");
    }

    #[test]
    fn no_cut_without_room_or_knowledge() {
        assert_eq!(midpoint("", "a", Some("a"), &set("ab")), None);
        assert_eq!(midpoint("", "a", None, &CharSet::default()), None);
        assert_eq!(midpoint("x/", "a", None, &set("ab")), None);
    }

    #[test]
    fn unicode_characters_are_cut_points_too() {
        let chars = set("aé日");
        let m = check("", "a", None, &chars);
        assert!(["é", "日"].contains(&m.as_str()), "{m}");
    }
}
