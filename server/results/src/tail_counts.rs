//! Tails that percentiles hide: how many operations took each mark or longer. p99.9 of
//! 20,000 PUTs does not see the 16 a reshard held for 45 s; a count at 1 s does. The
//! counts come from a latency histogram, so the histograms a run keeps give them again
//! at any marks (`show --tail-marks`), exact to the histogram's precision, and a merged
//! run's come from its merged histograms.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::tail_marks::{MAX_TAIL_MARKS, TailMarks, mark_words};

/// Operations that took `mark_us` or longer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TailCount {
    /// The mark, in microseconds.
    pub mark_us: u64,
    /// Successful operations that took the mark or longer (to the histogram's 3
    /// significant digits: one within 0.1 % under the mark may count).
    pub count: u64,
}

/// The counts at each of a row's marks, ascending by mark; none where no tail was
/// counted (a time to first byte, an interval). Fixed capacity, so it copies freely;
/// it reads, writes, compares and prints as a list of [`TailCount`].
#[derive(Clone, Copy, Default)]
pub struct TailCounts {
    counts: [TailCount; MAX_TAIL_MARKS],
    len: u8,
}

impl PartialEq for TailCounts {
    fn eq(&self, other: &TailCounts) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for TailCounts {}

impl std::fmt::Debug for TailCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl TailCounts {
    pub fn as_slice(&self) -> &[TailCount] {
        &self.counts[..usize::from(self.len)]
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The count at `mark_us`, if that mark was counted.
    pub fn at(&self, mark_us: u64) -> Option<u64> {
        self.as_slice()
            .iter()
            .find(|c| c.mark_us == mark_us)
            .map(|c| c.count)
    }

    /// The marks these were counted at; none when nothing was counted.
    pub fn marks(&self) -> Option<TailMarks> {
        let us: Vec<u64> = self.as_slice().iter().map(|c| c.mark_us).collect();
        TailMarks::new(&us).ok()
    }

    /// Counts at up to [`MAX_TAIL_MARKS`] marks, as given; the rest are left out.
    pub fn from_counts(counts: impl IntoIterator<Item = TailCount>) -> TailCounts {
        let mut out = TailCounts::default();
        for c in counts.into_iter().take(MAX_TAIL_MARKS) {
            out.counts[usize::from(out.len)] = c;
            out.len += 1;
        }
        out
    }

    /// `16 took 1 s or more (3 of them 10 s or more)`; none when no operation took the
    /// first mark.
    pub fn words(&self) -> Option<String> {
        let counted: Vec<&TailCount> = self.as_slice().iter().filter(|c| c.count > 0).collect();
        let (first, rest) = counted.split_first()?;
        let mut text = format!("{} took {} or more", first.count, mark_words(first.mark_us));
        if !rest.is_empty() {
            let of_them: Vec<String> = rest
                .iter()
                .map(|c| format!("{} of them {} or more", c.count, mark_words(c.mark_us)))
                .collect();
            text.push_str(&format!(" ({})", of_them.join(", ")));
        }
        Some(text)
    }
}

impl Serialize for TailCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl<'de> Deserialize<'de> for TailCounts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TailCounts, D::Error> {
        let counts = Vec::<TailCount>::deserialize(d)?;
        if counts.len() > MAX_TAIL_MARKS {
            return Err(serde::de::Error::custom(format!(
                "{} tail counts; at most {MAX_TAIL_MARKS}",
                counts.len()
            )));
        }
        Ok(TailCounts::from_counts(counts))
    }
}

/// How many values of `histogram` are at or above each of `marks`, to the histogram's
/// precision (a value in the same bucket as a mark, within 0.1 % under it, counts).
/// What `keystorm compare` and `show --tail-marks` count tails with.
pub fn slower_than(histogram: &Histogram<u64>, marks: &TailMarks) -> TailCounts {
    let at_least = |mark: u64| {
        if histogram.is_empty() || histogram.max() < mark {
            0
        } else {
            histogram.count_between(mark, histogram.max())
        }
    };
    TailCounts::from_counts(marks.as_us().iter().map(|&mark_us| TailCount {
        mark_us,
        count: at_least(mark_us),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As every keystorm histogram: 3 significant digits.
    fn new_histogram() -> Histogram<u64> {
        Histogram::new(3).unwrap()
    }

    fn marks(us: &[u64]) -> TailMarks {
        TailMarks::new(us).unwrap()
    }

    #[test]
    fn a_value_exactly_at_a_mark_counts_and_one_a_bucket_under_it_does_not() {
        for mark in [1_000, 250_000, 1_000_000, 10_000_000] {
            let mut h = new_histogram();
            h.record(mark).unwrap();
            let under = h.lowest_equivalent(mark) - 1;
            h.record(under).unwrap();
            let counts = slower_than(&h, &marks(&[mark]));
            assert_eq!(counts.at(mark), Some(1), "mark {mark}, under {under}");
            // The histogram cannot tell a value in the mark's own bucket from the mark.
            let mut same = new_histogram();
            same.record(h.lowest_equivalent(mark)).unwrap();
            assert_eq!(slower_than(&same, &marks(&[mark])).at(mark), Some(1));
        }
    }

    #[test]
    fn the_tail_p99_9_hides_is_counted_at_every_mark() {
        let mut h = new_histogram();
        for _ in 0..20_000 {
            h.record(800).unwrap();
        }
        for us in [
            99_000, 100_000, 999_000, 1_000_000, 2_500_000, 9_990_000, 12_000_000, 45_000_000,
        ] {
            h.record(us).unwrap();
        }
        assert_eq!(
            h.value_at_quantile(0.999),
            800,
            "p99.9 of 20,008 does not see 8"
        );
        let c = slower_than(&h, &marks(&[100_000, 1_000_000, 10_000_000]));
        let pairs: Vec<(u64, u64)> = c.as_slice().iter().map(|c| (c.mark_us, c.count)).collect();
        assert_eq!(
            pairs,
            [(100_000, 7), (1_000_000, 5), (10_000_000, 2)],
            "99 ms is under 100 ms, 999 ms under 1 s, 9.99 s under 10 s"
        );
        assert_eq!(
            c.words().as_deref(),
            Some("7 took 100 ms or more (5 of them 1 s or more, 2 of them 10 s or more)")
        );
        let default = slower_than(&h, &TailMarks::default());
        assert_eq!(
            default.words().as_deref(),
            Some("5 took 1 s or more (2 of them 10 s or more)")
        );
    }

    #[test]
    fn nothing_slow_counts_zero_at_each_mark_and_says_nothing() {
        let mut h = new_histogram();
        h.record(800).unwrap();
        let c = slower_than(&h, &TailMarks::default());
        assert_eq!(c.at(1_000_000), Some(0));
        assert_eq!(c.at(10_000_000), Some(0));
        assert_eq!(c.at(5_000_000), None, "not a mark");
        assert_eq!(c.words(), None);
        let empty = slower_than(&new_histogram(), &TailMarks::default());
        assert_eq!(empty.at(1_000_000), Some(0));
    }

    #[test]
    fn counts_read_and_write_as_a_list_of_at_most_four() {
        let c = TailCounts::from_counts([
            TailCount {
                mark_us: 1_000_000,
                count: 3,
            },
            TailCount {
                mark_us: 10_000_000,
                count: 0,
            },
        ]);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(
            json,
            r#"[{"mark_us":1000000,"count":3},{"mark_us":10000000,"count":0}]"#
        );
        assert_eq!(serde_json::from_str::<TailCounts>(&json).unwrap(), c);
        assert_eq!(c.marks(), Some(TailMarks::default()));
        let five = format!("[{}]", [r#"{"mark_us":1000,"count":0}"#; 5].join(","));
        let err = serde_json::from_str::<TailCounts>(&five).unwrap_err();
        assert!(err.to_string().contains("at most 4"), "{err}");
    }
}
