//! What a fitted list-time line may be asked, and how sure its answer is. A line through
//! a few listings says something about a larger bucket only when it describes those
//! listings (three sizes or more, R² at least 0.9, time growing with the keys) and the
//! bucket is not too far beyond them (at most 100× the largest listing); then it gives
//! the time with its 95 % prediction interval. Otherwise it refuses and says why.
//! `keystorm show` and the run page (which applies the same rule to the fit's figures
//! the API sends) say the same. The rule and its words are here; `LinearFit::extrapolate`
//! applies them to a fitted line.

/// The lowest R² a line is extrapolated with.
pub const MIN_R2: f64 = 0.9;

/// How far beyond the largest listing measured a line is extrapolated: 100×.
pub const MAX_REACH: f64 = 100.0;

/// Why a line says nothing about a bucket of some size.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    #[error("only two sizes were measured, and any line fits two points; measure three or more")]
    TooFewSizes,
    #[error("R² is {r2:.3}, under 0.9: the line does not describe the listings measured")]
    PoorFit { r2: f64 },
    #[error("list time did not grow with the key count")]
    NotGrowing,
    #[error(
        "{} keys is {}× the largest listing measured ({} keys); the line is extrapolated to 100× at most",
        key_count(*keys),
        key_count((keys / *max_keys as f64).round()),
        key_count(*max_keys as f64)
    )]
    TooFar { keys: f64, max_keys: u64 },
}

impl Refusal {
    /// Why a line through `points` listings, with that `r2` and slope, says nothing
    /// beyond what was measured, if it does not.
    pub fn of_line(points: usize, r2: f64, slope_s_per_key: f64) -> Option<Refusal> {
        if points < 3 {
            Some(Refusal::TooFewSizes)
        } else if r2.is_nan() || r2 < MIN_R2 {
            Some(Refusal::PoorFit { r2 })
        } else if slope_s_per_key <= 0.0 {
            Some(Refusal::NotGrowing)
        } else {
            None
        }
    }
}

/// What a line says about a bucket of some size: the time, and the 95 % prediction
/// interval around it (where a new listing of that size falls 19 times in 20, if the
/// store keeps behaving as it did).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    pub seconds: f64,
    pub low_s: f64,
    pub high_s: f64,
}

/// `67 billion`, `1.5 million`, `200,000`: a key count as people say it.
pub fn key_count(n: f64) -> String {
    for (unit, name) in [(1e12, "trillion"), (1e9, "billion"), (1e6, "million")] {
        if n >= unit {
            let v = n / unit;
            // Three significant figures, trailing zeros dropped.
            let decimals = if v >= 100.0 {
                0
            } else if v >= 10.0 {
                1
            } else {
                2
            };
            let text = format!("{v:.decimals$}");
            let text = if text.contains('.') {
                text.trim_end_matches('0').trim_end_matches('.')
            } else {
                &text
            };
            return format!("{text} {name}");
        }
    }
    let digits = (n.max(0.0).round() as u64).to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaling::{LinearFit, ScalingPoint};

    fn fit(points: &[(u64, f64)]) -> LinearFit {
        let points: Vec<ScalingPoint> = points
            .iter()
            .map(|&(keys, seconds)| ScalingPoint { keys, seconds })
            .collect();
        LinearFit::of(&points).unwrap()
    }

    /// Four listings on a noisy but clear line: 1 s per 10,000 keys.
    fn good() -> LinearFit {
        fit(&[(10_000, 1.1), (20_000, 1.9), (30_000, 3.2), (40_000, 3.9)])
    }

    #[test]
    fn a_good_line_predicts_with_its_95_percent_interval() {
        let f = good();
        assert_eq!(f.refusal, None);
        assert_eq!(f.reach_keys, 4e6);
        let p = f.extrapolate(1e6).unwrap();
        // slope 9.7e-5 s/key, intercept 0.1 s; s = sqrt(0.063 / 2) on 2 dof (t 4.3027);
        // sqrt(1 + 1/4 + (1e6 - 25,000)² / 5e8) = 43.6177.
        assert!((p.seconds - 97.1).abs() < 1e-9, "{p:?}");
        let half = 4.3027 * (0.063f64 / 2.0).sqrt() * 43.617_657;
        assert!((p.high_s - p.seconds - half).abs() < 1e-3, "{p:?}");
        assert!((p.seconds - p.low_s - half).abs() < 1e-3, "{p:?}");
        // Nearer the listings measured, the interval is narrower.
        let near = f.extrapolate(25_000.0).unwrap();
        assert!(
            near.high_s - near.low_s < (p.high_s - p.low_s) / 10.0,
            "{near:?}"
        );
        // It never goes below no time at all.
        assert!(f.extrapolate(1.0).unwrap().low_s >= 0.0);
    }

    #[test]
    fn a_line_is_not_taken_further_than_100_times_what_was_measured() {
        let f = good();
        assert!(f.extrapolate(4e6).is_ok());
        let refusal = f.extrapolate(67e9).unwrap_err();
        assert_eq!(
            refusal,
            Refusal::TooFar {
                keys: 67e9,
                max_keys: 40_000
            }
        );
        assert_eq!(
            refusal.to_string(),
            "67 billion keys is 1.68 million× the largest listing measured (40,000 keys); \
             the line is extrapolated to 100× at most"
        );
    }

    #[test]
    fn a_poor_fit_says_nothing_at_any_size() {
        // The parallel listings of a run where the rate did not hold: R² about 0.03.
        let f = fit(&[(25_000, 0.9), (50_000, 0.4), (75_000, 1.2), (100_000, 0.5)]);
        assert!(f.r2 < 0.1, "{f:?}");
        let refusal = f.extrapolate(200_000.0).unwrap_err();
        assert_eq!(refusal, Refusal::PoorFit { r2: f.r2 });
        assert!(refusal.to_string().starts_with("R² is 0.0"), "{refusal}");
        assert_eq!(f.refusal, Some(refusal.to_string()));
    }

    #[test]
    fn two_sizes_or_a_falling_line_say_nothing() {
        let two = fit(&[(10_000, 1.0), (20_000, 2.0)]);
        assert_eq!((two.residual_s, two.t95), (None, None));
        assert_eq!(two.extrapolate(30_000.0), Err(Refusal::TooFewSizes));
        let falling = fit(&[(10_000, 3.0), (20_000, 2.0), (30_000, 1.0)]);
        assert_eq!(falling.extrapolate(30_000.0), Err(Refusal::NotGrowing));
    }

    /// What the page is checked against: fits and their answers at some sizes, as
    /// this module gives them (web/src/lib/scaling.test.ts reads the same file).
    const AGREEMENT: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../web/src/lib/scaling-agreement.json"
    );

    fn agreement_cases() -> serde_json::Value {
        let cases = [
            (
                vec![(10_000, 1.1), (20_000, 1.9), (30_000, 3.2), (40_000, 3.9)],
                vec![25_000.0, 1e6, 4e6, 4.1e6, 67e9],
            ),
            (
                vec![(25_000, 0.9), (50_000, 0.4), (75_000, 1.2), (100_000, 0.5)],
                vec![200_000.0],
            ),
            (
                vec![(3_000, 0.31), (6_000, 0.6), (9_000, 0.93), (12_000, 1.2)],
                vec![12_000.0, 1.2e6, 67e9],
            ),
        ];
        let cases: Vec<serde_json::Value> = cases
            .iter()
            .map(|(points, sizes)| {
                let f = fit(points);
                let answers: Vec<serde_json::Value> = sizes
                    .iter()
                    .map(|&keys| match f.extrapolate(keys) {
                        Ok(p) => serde_json::json!({
                            "keys": keys, "seconds": p.seconds, "low_s": p.low_s, "high_s": p.high_s
                        }),
                        Err(r) => serde_json::json!({ "keys": keys, "refusal": r.to_string() }),
                    })
                    .collect();
                serde_json::json!({ "fit": f, "answers": answers })
            })
            .collect();
        serde_json::json!({ "cases": cases })
    }

    #[test]
    fn the_page_is_checked_against_what_this_module_answers() {
        let expected = agreement_cases();
        let text = std::fs::read_to_string(AGREEMENT).unwrap_or_default();
        let found: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        assert!(
            close(&found, &expected),
            "{AGREEMENT} differs from this module's answers; it should read:\n{}",
            serde_json::to_string_pretty(&expected).unwrap()
        );
    }

    /// Equal, numbers within a relative 1e-12.
    fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
        use serde_json::Value::*;
        match (a, b) {
            (Number(x), Number(y)) => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
            }
            (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| close(x, y)),
            (Object(x), Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| close(v, w)))
            }
            _ => a == b,
        }
    }

    #[test]
    fn key_counts_read_as_people_say_them() {
        assert_eq!(key_count(67e9), "67 billion");
        assert_eq!(key_count(1.5e6), "1.5 million");
        assert_eq!(key_count(1_675_000.0), "1.68 million");
        assert_eq!(key_count(200_000.0), "200,000");
        assert_eq!(key_count(999.0), "999");
        assert_eq!(key_count(2e12), "2 trillion");
    }
}
