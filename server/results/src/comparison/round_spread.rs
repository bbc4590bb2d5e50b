//! A round's change judged against how much the change wanders from round to round, not
//! only against the round's own seconds. Two runs made one after the other differ by
//! more than either run's seconds show (the machine, caches, when the store happened to
//! reshard), and that shows as per-round ratios that disagree with each other beyond
//! their own intervals: −27 %, −22 %, +26 %, −26 % for one layout run twice. Where a
//! phase has at least [`MIN_ROUNDS`] judged rounds (as many as an interval drawn over
//! rounds needs; fewer: each round stands on its own seconds), the spread between the rounds'
//! ratios beyond what their intervals explain (the between-round variance τ², estimated
//! as DerSimonian and Laird do for studies that disagree, on the ratios' logarithms,
//! and counted with Student's t since a few rounds estimate it loosely) is added to
//! every round's interval, and the round judged again. A change that
//! recurs in every round keeps its verdict; one that comes and goes is inconclusive
//! until more rounds or runs settle it. The rounds together, judged from the rounds
//! drawn again, are widened for how few rounds that is ([`widen_few_rounds`]).

use std::collections::BTreeMap;

use super::judge::{self, Verdict};
use super::types::Change;
use crate::Section;
use crate::uncertainty::{Estimate, MIN_ROUNDS};

/// The 97.5 % point of the normal distribution: a 95 % interval is ±this many standard
/// errors.
const Z: f64 = 1.959_964;

/// The 97.5 % point of Student's t with 1, 2, … 10 degrees of freedom.
const T_975: [f64; 10] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
];

/// How many of the spread between rounds a 95 % interval takes in: a spread estimated
/// from a few rounds is itself uncertain, so it counts with Student's t of (rounds − 1)
/// degrees of freedom (3.18 for 4 rounds), the normal's 1.96 only for many.
fn spread_multiplier(rounds: usize) -> f64 {
    match rounds.saturating_sub(1) {
        0 => f64::INFINITY,
        df if df <= T_975.len() => T_975[df - 1],
        df if df <= 30 => 2.042 + (2.228 - 2.042) * (30 - df) as f64 / 20.0,
        _ => Z,
    }
}

/// Widens the per-round changes of every phase × operation × metric by the spread
/// between their rounds, and judges them again against `floor`.
pub fn widen_rounds(changes: &mut [Change], floor: f64) {
    let mut groups: BTreeMap<(String, String, String), Vec<usize>> = BTreeMap::new();
    for (i, c) in changes.iter().enumerate() {
        if c.section == Section::Round && !c.all_rounds && log_interval(c).is_some() {
            groups
                .entry((c.phase.clone(), c.op.as_str().to_string(), c.metric.clone()))
                .or_default()
                .push(i);
        }
    }
    for members in groups.values().filter(|m| m.len() >= MIN_ROUNDS) {
        let logs: Vec<LogRatio> = members
            .iter()
            .filter_map(|&i| log_interval(&changes[i]))
            .collect();
        let tau = between_rounds_sd(&logs);
        if tau <= 0.0 {
            continue;
        }
        for &i in members {
            rejudge(&mut changes[i], spread_multiplier(logs.len()) * tau, floor);
        }
    }
}

/// A ratio on a log scale: its value and the distances to its interval's ends.
#[derive(Debug, Clone, Copy)]
struct LogRatio {
    value: f64,
    below: f64,
    above: f64,
}

impl LogRatio {
    /// The standard error the interval stands for (its width over 2 × 1.96).
    fn se(&self) -> f64 {
        ((self.below + self.above) / (2.0 * Z)).max(1e-9)
    }
}

/// The change's ratio on a log scale, where it has one with finite, positive ends.
fn log_interval(c: &Change) -> Option<LogRatio> {
    if c.verdict == Verdict::Lag {
        return None;
    }
    let r = c.ratio?;
    let finite = [r.value, r.low, r.high]
        .iter()
        .all(|v| v.is_finite() && *v > 0.0);
    finite.then(|| LogRatio {
        value: r.value.ln(),
        below: (r.value.ln() - r.low.ln()).max(0.0),
        above: (r.high.ln() - r.value.ln()).max(0.0),
    })
}

/// The standard deviation between the rounds' log ratios beyond what their own
/// standard errors explain (DerSimonian–Laird: τ² = (Q − (k − 1)) ÷ (Σw − Σw² ÷ Σw),
/// at least 0, with w = 1 ÷ se² and Q the weighted squares about the weighted mean).
fn between_rounds_sd(logs: &[LogRatio]) -> f64 {
    let weights: Vec<f64> = logs.iter().map(|l| 1.0 / l.se().powi(2)).collect();
    let sum_w: f64 = weights.iter().sum();
    let mean = logs
        .iter()
        .zip(&weights)
        .map(|(l, w)| w * l.value)
        .sum::<f64>()
        / sum_w;
    let q: f64 = logs
        .iter()
        .zip(&weights)
        .map(|(l, w)| w * (l.value - mean).powi(2))
        .sum();
    let c = sum_w - weights.iter().map(|w| w * w).sum::<f64>() / sum_w;
    if c <= 0.0 {
        return 0.0;
    }
    ((q - (logs.len() as f64 - 1.0)) / c).max(0.0).sqrt()
}

/// The change's interval widened on each side by `extra` (the spread between rounds a
/// 95 % interval takes in, on a log scale), and its verdict given again.
fn rejudge(change: &mut Change, extra: f64, floor: f64) {
    let Some(log) = log_interval(change) else {
        return;
    };
    let widened = Estimate {
        value: log.value.exp(),
        low: (log.value - log.below.hypot(extra)).exp(),
        high: (log.value + log.above.hypot(extra)).exp(),
    };
    let spread = format!("±{:.0} %", (extra.exp() - 1.0) * 100.0);
    judge_again(
        change,
        widened,
        floor,
        &format!(
            "the change varies by {spread} from round to round, more than each round's \
             seconds explain"
        ),
        "more rounds, or runs made again, would settle it",
    );
}

/// Gives `change` its `widened` ratio and the verdict that allows, saying what widened
/// it (`widened_by`) and, where it is inconclusive, what would `settle` it.
fn judge_again(change: &mut Change, widened: Estimate, floor: f64, widened_by: &str, settle: &str) {
    let (verdict, why) = match judge::verdict_of(widened, change.better, floor) {
        Some((verdict, why)) => (verdict, format!("{why} ({widened_by})")),
        None => (
            Verdict::Inconclusive,
            format!(
                "{} reaches past the {} noise floor: {widened_by}; {settle}",
                judge::shown(widened),
                judge::floor_words(floor)
            ),
        ),
    };
    change.ratio = Some(widened);
    change.verdict = verdict;
    change.why = why;
}

/// A round phase's rounds together, judged from `rounds` rounds drawn again: a
/// bootstrap of so few values is too narrow (it draws from their spread as it fell, as
/// if it were known), so every interval of the change — both sides' and the ratio's —
/// is widened on a log scale by Student's t for (rounds − 1) degrees of freedom over the
/// normal's 1.96, and by √(rounds ÷ (rounds − 1)) for the spread a bootstrap leaves
/// out; and the change judged again. (4 rounds: 1.88 times as wide.)
pub fn widen_few_rounds(change: &mut Change, rounds: usize, floor: f64) {
    if rounds < 2 || change.verdict == Verdict::Lag {
        return;
    }
    let n = rounds as f64;
    let factor = spread_multiplier(rounds) / Z * (n / (n - 1.0)).sqrt();
    let Some(log) = log_interval(change) else {
        return;
    };
    let widened = Estimate {
        value: log.value.exp(),
        low: (log.value - log.below * factor).exp(),
        high: (log.value + log.above * factor).exp(),
    };
    for side in [&mut change.base, &mut change.new].into_iter().flatten() {
        *side = widen_side(*side, factor);
    }
    judge_again(
        change,
        widened,
        floor,
        &format!("drawn from {rounds} rounds in each run"),
        "more rounds would narrow it",
    );
}

/// One side's interval `factor` times as wide about its figure (on a log scale where
/// its ends are positive, else on a plain one, never below 0).
fn widen_side(e: Estimate, factor: f64) -> Estimate {
    if e.value > 0.0 && e.low > 0.0 && e.high.is_finite() {
        Estimate {
            value: e.value,
            low: e.value * (e.low / e.value).powf(factor),
            high: e.value * (e.high / e.value).powf(factor),
        }
    } else {
        Estimate {
            value: e.value,
            low: (e.value - (e.value - e.low) * factor).max(0.0),
            high: e.value + (e.high - e.value) * factor,
        }
    }
}

#[cfg(test)]
mod tests {
    use keystorm_types::OpKind;

    use super::*;
    use crate::comparison::Better;

    /// Round `round`'s throughput change: `ratio` with an interval ±`half` (a share).
    fn round_change(round: u32, ratio: f64, half: f64) -> Change {
        let estimate = Estimate {
            value: ratio,
            low: ratio * (1.0 - half),
            high: ratio * (1.0 + half),
        };
        let (verdict, why) = judge::verdict_of(estimate, Better::Higher, 0.02)
            .unwrap_or((Verdict::Inconclusive, String::new()));
        Change {
            section: Section::Round,
            round: Some(round),
            all_rounds: false,
            phase: "mixed".into(),
            op: OpKind::Get,
            metric: "ops_per_sec".into(),
            better: Better::Higher,
            base: None,
            new: None,
            ratio: Some(estimate),
            verdict,
            why,
        }
    }

    fn verdicts(changes: &[Change]) -> Vec<Verdict> {
        changes.iter().map(|c| c.verdict).collect()
    }

    #[test]
    fn a_change_that_comes_and_goes_from_round_to_round_is_inconclusive() {
        // One layout run twice, one after the other: each round's seconds say ±5 %,
        // the rounds disagree by far more.
        let mut changes: Vec<Change> = [0.73, 0.78, 1.26, 0.74]
            .iter()
            .zip(1..)
            .map(|(&r, round)| round_change(round, r, 0.05))
            .collect();
        assert_eq!(
            verdicts(&changes),
            [
                Verdict::Regressed,
                Verdict::Regressed,
                Verdict::Improved,
                Verdict::Regressed
            ]
        );
        widen_rounds(&mut changes, 0.02);
        assert_eq!(verdicts(&changes), [Verdict::Inconclusive; 4]);
        let c = &changes[2];
        let r = c.ratio.unwrap();
        assert!((r.value - 1.26).abs() < 1e-9, "the figure stays: {r:?}");
        assert!(r.low < 1.0 && r.high > 1.5, "{r:?}");
        assert!(c.why.contains("from round to round"), "{}", c.why);
        assert!(
            c.why.contains("more rounds, or runs made again"),
            "{}",
            c.why
        );
    }

    #[test]
    fn a_change_that_recurs_in_every_round_keeps_its_verdict() {
        // Pre-sharded against dynamic: writes 2.6 to 2.9 times faster in every round.
        let mut changes: Vec<Change> = [2.6, 2.8, 2.7, 2.9]
            .iter()
            .zip(1..)
            .map(|(&r, round)| round_change(round, r, 0.10))
            .collect();
        let before: Vec<_> = changes.iter().map(|c| c.ratio).collect();
        widen_rounds(&mut changes, 0.02);
        assert_eq!(verdicts(&changes), [Verdict::Improved; 4]);
        // Rounds that agree within their own intervals are not widened at all.
        assert_eq!(changes.iter().map(|c| c.ratio).collect::<Vec<_>>(), before);
    }

    #[test]
    fn one_round_off_among_rounds_that_agree_is_inconclusive() {
        // One layout run twice on a quiet machine: round 1 of the mixed phase 26 %
        // faster the second time, the other rounds alike.
        let mut changes: Vec<Change> = [1.26, 1.01, 0.99, 1.02]
            .iter()
            .zip(1..)
            .map(|(&r, round)| round_change(round, r, 0.07))
            .collect();
        assert_eq!(changes[0].verdict, Verdict::Improved);
        widen_rounds(&mut changes, 0.02);
        assert_eq!(verdicts(&changes), [Verdict::Inconclusive; 4]);
    }

    #[test]
    fn a_few_rounds_count_their_spread_with_students_t() {
        assert_eq!(spread_multiplier(4), 3.182);
        assert!(spread_multiplier(3) > spread_multiplier(4));
        assert!(spread_multiplier(25) > Z && spread_multiplier(25) < 2.1);
        assert_eq!(spread_multiplier(100), Z);
    }

    #[test]
    fn rounds_together_widen_by_the_few_rounds_they_are_drawn_from() {
        // Four rounds together, +10.7 % (+1.9 % to +21.8 %) by their bootstrap: one
        // layout run twice; improved by the bootstrap alone, not once it counts how
        // few rounds it drew from.
        let mut c = round_change(0, 1.107, 0.0);
        c.all_rounds = true;
        c.round = None;
        c.ratio = Some(Estimate {
            value: 1.107,
            low: 1.019,
            high: 1.218,
        });
        c.base = Some(Estimate {
            value: 1300.0,
            low: 1214.0,
            high: 1386.0,
        });
        c.verdict = Verdict::Improved;
        widen_few_rounds(&mut c, 4, 0.02);
        assert_eq!(c.verdict, Verdict::Inconclusive, "{c:?}");
        assert!(c.why.contains("drawn from 4 rounds"), "{}", c.why);
        let (r, b) = (c.ratio.unwrap(), c.base.unwrap());
        assert!((r.value - 1.107).abs() < 1e-9 && r.low < 1.0, "{r:?}");
        assert!(
            b.low < 1214.0 && b.high > 1386.0 && b.value == 1300.0,
            "{b:?}"
        );
        // A change far beyond its interval stays a change: −25 % (−32 % to −18 %).
        let mut c = round_change(0, 0.75, 0.0);
        c.all_rounds = true;
        c.ratio = Some(Estimate {
            value: 0.75,
            low: 0.677,
            high: 0.824,
        });
        widen_few_rounds(&mut c, 4, 0.02);
        assert_eq!(c.verdict, Verdict::Regressed, "{c:?}");
    }

    #[test]
    fn two_rounds_stand_on_their_own_seconds() {
        let mut changes = vec![round_change(1, 0.7, 0.05), round_change(2, 1.3, 0.05)];
        widen_rounds(&mut changes, 0.02);
        assert_eq!(verdicts(&changes), [Verdict::Regressed, Verdict::Improved]);
    }

    #[test]
    fn rounds_together_and_other_phases_are_left_alone() {
        let mut changes: Vec<Change> = [0.73, 0.78, 1.26]
            .iter()
            .zip(1..)
            .map(|(&r, round)| round_change(round, r, 0.05))
            .collect();
        let mut together = round_change(0, 0.9, 0.05);
        together.round = None;
        together.all_rounds = true;
        changes.push(together.clone());
        let mut other = round_change(1, 0.5, 0.05);
        other.phase = "write".into();
        changes.push(other.clone());
        widen_rounds(&mut changes, 0.02);
        assert_eq!(changes[3], together);
        assert_eq!(changes[4], other);
    }
}
