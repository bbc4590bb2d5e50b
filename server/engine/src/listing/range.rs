//! A slice of a bucket's key space that one lister walks on its own.
//!
//! S3 lists in UTF-8 byte order (which is code-point order) from a `prefix` and an
//! exclusive `start-after`; it has no end key. A range therefore adds an end that the
//! client enforces: keys up to and including a key (`Through`), or strictly before one
//! (`Before`). Ranges cut at the same boundary string (`(a, m]` and `(m, b)`) share no
//! key and miss none, whatever the keys are, which is what makes splitting safe.

use serde::{Deserialize, Serialize};

/// Where a range ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RangeEnd {
    /// Every key under the prefix after the start.
    Open,
    /// Keys `<= this`.
    Through(String),
    /// Keys `< this`.
    Before(String),
}

/// The keys under `prefix`, after `after` (exclusive), up to `end`, except those
/// starting with `exclude` (a prefix another range lists whole).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRange {
    pub prefix: String,
    pub after: Option<String>,
    pub end: RangeEnd,
    pub exclude: Option<String>,
    /// Probe with a one-key page first: the range is most likely empty (a gap between
    /// prefixes), and a full page would only fetch keys of the next range.
    pub probe_first: bool,
}

/// What to do with one listed key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Take,
    /// Belongs to another range; keep going.
    Skip,
    /// Past the end: this and every later key belong to other ranges.
    Stop,
}

impl KeyRange {
    /// Every key under `prefix`.
    pub fn whole(prefix: &str) -> KeyRange {
        KeyRange {
            prefix: prefix.to_string(),
            after: None,
            end: RangeEnd::Open,
            exclude: None,
            probe_first: false,
        }
    }

    /// Keys starting with `prefix` (the listing prefix), every one of them.
    pub fn prefix(prefix: String) -> KeyRange {
        KeyRange {
            prefix,
            after: None,
            end: RangeEnd::Open,
            exclude: None,
            probe_first: false,
        }
    }

    pub fn verdict(&self, key: &str) -> Verdict {
        match &self.end {
            RangeEnd::Through(e) if key > e.as_str() => return Verdict::Stop,
            RangeEnd::Before(e) if key >= e.as_str() => return Verdict::Stop,
            _ => {}
        }
        if let Some(a) = &self.after
            && key <= a.as_str()
        {
            return Verdict::Skip;
        }
        if self.exclude.as_deref().is_some_and(|x| key.starts_with(x)) {
            return Verdict::Skip;
        }
        Verdict::Take
    }

    /// The inclusive or exclusive end as a string, if any.
    pub fn end_key(&self) -> Option<&str> {
        match &self.end {
            RangeEnd::Open => None,
            RangeEnd::Through(e) | RangeEnd::Before(e) => Some(e),
        }
    }

    /// Splits off everything after `at` (a string strictly between this range's current
    /// start and its end): this range keeps `(after, at]`, the returned one has
    /// `(at, end)`.
    pub fn split_at(&mut self, at: String) -> KeyRange {
        // The exclusion may only matter to one side; keeping it on both is still exact.
        KeyRange {
            prefix: self.prefix.clone(),
            after: Some(at.clone()),
            end: std::mem::replace(&mut self.end, RangeEnd::Through(at)),
            exclude: self.exclude.clone(),
            probe_first: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(after: Option<&str>, end: RangeEnd) -> KeyRange {
        KeyRange {
            prefix: String::new(),
            after: after.map(str::to_string),
            end,
            exclude: None,
            probe_first: false,
        }
    }

    #[test]
    fn ends_are_inclusive_or_exclusive_as_asked() {
        let through = range(Some("b"), RangeEnd::Through("d".into()));
        assert_eq!(through.verdict("b"), Verdict::Skip);
        assert_eq!(through.verdict("c"), Verdict::Take);
        assert_eq!(through.verdict("d"), Verdict::Take);
        assert_eq!(through.verdict("d0"), Verdict::Stop);
        let before = range(None, RangeEnd::Before("d".into()));
        assert_eq!(before.verdict("czz"), Verdict::Take);
        assert_eq!(before.verdict("d"), Verdict::Stop);
    }

    #[test]
    fn a_split_gives_each_key_to_exactly_one_side() {
        let mut lower = range(Some("a"), RangeEnd::Before("z".into()));
        let upper = lower.split_at("m".into());
        for key in ["a0", "l", "m", "m0", "n", "y~", "z"] {
            let sides = [lower.verdict(key), upper.verdict(key)]
                .iter()
                .filter(|v| **v == Verdict::Take)
                .count();
            assert_eq!(sides, usize::from(key != "z"), "{key}");
        }
    }

    #[test]
    fn excluded_prefixes_are_skipped() {
        let mut r = range(None, RangeEnd::Before("b".into()));
        r.exclude = Some("a9".into());
        assert_eq!(r.verdict("a9x"), Verdict::Skip);
        assert_eq!(r.verdict("a:"), Verdict::Take);
    }
}
