//! Latency summaries as saved, older ones included: runs recorded while tails had two
//! fixed marks carry `over_1s` and `over_10s` (each absent when zero) where newer runs
//! carry the list `slower_than`. Both read into [`Percentiles`], the old fields as the
//! counts at 1 s and 10 s, so `show`, the API and a merge read old runs as new ones.

use serde::Deserialize;

use super::Percentiles;
use crate::tail_counts::{TailCount, TailCounts};
use crate::tail_marks::DEFAULT_TAIL_MARKS_US;

#[derive(Deserialize)]
pub(super) struct StoredPercentiles {
    min: u64,
    mean: f64,
    p50: u64,
    p90: u64,
    p99: u64,
    p999: u64,
    max: u64,
    #[serde(default)]
    slower_than: TailCounts,
    #[serde(default)]
    over_1s: u64,
    #[serde(default)]
    over_10s: u64,
}

impl From<StoredPercentiles> for Percentiles {
    fn from(s: StoredPercentiles) -> Percentiles {
        // Old runs wrote no field where both counts were zero: nothing to say then.
        let slower_than = if s.slower_than.is_empty() && s.over_1s > 0 {
            let [one, ten] = DEFAULT_TAIL_MARKS_US;
            TailCounts::from_counts([
                TailCount {
                    mark_us: one,
                    count: s.over_1s,
                },
                TailCount {
                    mark_us: ten,
                    count: s.over_10s,
                },
            ])
        } else {
            s.slower_than
        };
        Percentiles {
            min: s.min,
            mean: s.mean,
            p50: s.p50,
            p90: s.p90,
            p99: s.p99,
            p999: s.p999,
            max: s.max,
            slower_than,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIGURES: &str = r#""min":1,"mean":2.5,"p50":2,"p90":3,"p99":4,"p999":5,"max":6"#;

    fn read(extra: &str) -> Percentiles {
        serde_json::from_str(&format!("{{{FIGURES}{extra}}}")).unwrap()
    }

    #[test]
    fn a_run_saved_with_over_1s_and_over_10s_reads_as_counts_at_1_s_and_10_s() {
        let old = read(r#","over_1s":16,"over_10s":3"#);
        assert_eq!((old.p99, old.max), (4, 6));
        assert_eq!(old.slower_than.at(1_000_000), Some(16));
        assert_eq!(old.slower_than.at(10_000_000), Some(3));
        let only_1s = read(r#","over_1s":4"#);
        assert_eq!(only_1s.slower_than.at(10_000_000), Some(0));
        assert!(
            read("").slower_than.is_empty(),
            "nothing slow, nothing said"
        );
        // And written back in today's form.
        let json = serde_json::to_value(old).unwrap();
        assert!(json.get("over_1s").is_none(), "{json}");
        assert_eq!(json["slower_than"][0]["count"], 16, "{json}");
    }

    #[test]
    fn a_run_saved_with_slower_than_reads_back_the_same() {
        let new = read(r#","slower_than":[{"mark_us":500000,"count":7}]"#);
        assert_eq!(new.slower_than.at(500_000), Some(7));
        let back: Percentiles = serde_json::from_value(serde_json::to_value(new).unwrap()).unwrap();
        assert_eq!(back, new);
    }
}
