//! One metric's change judged: the ratio of the new run's figure to the base's, its
//! 95 % interval (from the two runs' resamples, drawn independently, paired by draw),
//! and a verdict against the noise floor — a change only where the interval leaves 1
//! and the change is larger than the floor; no change where the interval lies within
//! the floor (or a change that is real is smaller than it); inconclusive otherwise,
//! saying how much more measuring would narrow the interval to the floor.

use serde::{Deserialize, Serialize};

use super::metric::{Better, Metric};
use crate::uncertainty::{Draws, Estimate, resample::quantile};

/// What a comparison concludes about one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Better, by more than the noise floor, the interval clear of no change.
    Improved,
    /// Worse, by more than the noise floor, the interval clear of no change.
    Regressed,
    /// The interval lies within the noise floor, or the change is real but smaller.
    NoChange,
    /// The interval reaches past the floor on both sides of no change, or a side has
    /// too few seconds for an interval.
    Inconclusive,
    /// Not judged: the percentile was mostly an open loop's schedule lag (the client's
    /// lateness), not the store's latency.
    Lag,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::Regressed => "regressed",
            Verdict::NoChange => "no change",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Lag => "not judged",
        }
    }
}

/// A judged change: the ratio new ÷ base with its interval (none from a base of 0), the
/// verdict, and why in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub ratio: Option<Estimate>,
    pub verdict: Verdict,
    pub why: String,
}

/// Judges `metric` from `base`'s draws to `new`'s against a noise floor (a share: 0.02
/// is ±2 %). `unit` names what more measuring means (`seconds` or `rounds`).
pub fn judge(metric: Metric, base: &Draws, new: &Draws, floor: f64) -> Judged {
    let (b, n) = (metric.of(&base.estimate), metric.of(&new.estimate));
    let better_if_up = metric.better() == Better::Higher;
    let change = |up: bool| {
        if up == better_if_up {
            Verdict::Improved
        } else {
            Verdict::Regressed
        }
    };
    if b == 0.0 {
        if n == 0.0 {
            return Judged {
                ratio: None,
                verdict: Verdict::NoChange,
                why: "0 in both".into(),
            };
        }
        let low = Estimate::of(new, |f| metric.of(f)).low;
        return if low > 0.0 {
            Judged {
                ratio: None,
                verdict: change(true),
                why: "from 0; the new run's interval excludes 0".into(),
            }
        } else {
            Judged {
                ratio: None,
                verdict: Verdict::Inconclusive,
                why: "from 0, but the new run's interval reaches 0".into(),
            }
        };
    }
    let mut ratios: Vec<f64> = base
        .resamples
        .iter()
        .zip(&new.resamples)
        .map(|(b, n)| {
            let (b, n) = (metric.of(b), metric.of(n));
            if b > 0.0 {
                n / b
            } else if n > 0.0 {
                f64::INFINITY
            } else {
                1.0
            }
        })
        .collect();
    let ratio = Estimate {
        value: n / b,
        low: quantile(&mut ratios, 0.025),
        high: quantile(&mut ratios, 0.975),
    };
    let (verdict, why) = match verdict_of(ratio, metric.better(), floor) {
        Some(judged) => judged,
        None => (
            Verdict::Inconclusive,
            inconclusive_words(&shown(ratio), &floor_words(floor), ratio, floor, base, new),
        ),
    };
    Judged {
        ratio: Some(ratio),
        verdict,
        why,
    }
}

/// A ratio with its interval in words: `+12.3 % (+4.0 % to +21.0 %)`.
pub fn shown(ratio: Estimate) -> String {
    format!(
        "{} ({} to {})",
        percent(ratio.value),
        percent(ratio.low),
        percent(ratio.high)
    )
}

/// The noise floor in words: `±2 %`.
pub fn floor_words(floor: f64) -> String {
    format!("±{} %", trim(floor * 100.0))
}

/// The verdict a ratio's interval allows against the floor, with why — improved or
/// regressed where the interval leaves 1 and the change is beyond the floor, no change
/// where the interval lies within it (or a real change is smaller) — or none where it
/// reaches past the floor on both sides (inconclusive: what would settle it is the
/// caller's to say).
pub fn verdict_of(ratio: Estimate, better: Better, floor: f64) -> Option<(Verdict, String)> {
    let (shown, floor_words) = (shown(ratio), floor_words(floor));
    if ratio.low > 1.0 || ratio.high < 1.0 {
        if (ratio.value - 1.0).abs() <= floor {
            return Some((
                Verdict::NoChange,
                format!("{shown}: real, but within the {floor_words} noise floor"),
            ));
        }
        let verdict = if (ratio.value > 1.0) == (better == Better::Higher) {
            Verdict::Improved
        } else {
            Verdict::Regressed
        };
        Some((
            verdict,
            format!("{shown}, beyond the {floor_words} noise floor"),
        ))
    } else if ratio.low >= 1.0 - floor && ratio.high <= 1.0 + floor {
        Some((
            Verdict::NoChange,
            format!("{shown}, within the {floor_words} noise floor"),
        ))
    } else {
        None
    }
}

/// Why an interval that holds no change but reaches past the floor settles nothing,
/// with how much more measuring would narrow it to the floor (an interval narrows with
/// the square root of what it is drawn from).
fn inconclusive_words(
    shown: &str,
    floor_words: &str,
    ratio: Estimate,
    floor: f64,
    base: &Draws,
    new: &Draws,
) -> String {
    let reach = (1.0 - ratio.low).max(ratio.high - 1.0);
    let grow = (reach / floor).powi(2);
    let (have, unit) = if base.rounds >= crate::uncertainty::MIN_ROUNDS
        && new.rounds >= crate::uncertainty::MIN_ROUNDS
    {
        (base.rounds.max(new.rounds), "rounds")
    } else {
        (base.seconds.max(new.seconds), "measured seconds")
    };
    let needed = (have as f64 * grow).ceil().min(1e9) as u64;
    format!(
        "{shown} reaches past the {floor_words} noise floor: about {needed} {unit} in each \
         run (now {have}) would narrow it to the floor"
    )
}

/// A ratio as a signed change: `+12.3 %`, `−4.0 %`.
pub fn percent(ratio: f64) -> String {
    if !ratio.is_finite() {
        return "+∞ %".into();
    }
    let p = (ratio - 1.0) * 100.0;
    let text = if p.abs() >= 100.0 {
        format!("{:.0}", p.abs())
    } else {
        format!("{:.1}", p.abs())
    };
    if p < 0.0 && text.trim_start_matches(['0', '.']).is_empty() {
        return format!("+{text} %");
    }
    format!("{}{text} %", if p < 0.0 { "−" } else { "+" })
}

fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
