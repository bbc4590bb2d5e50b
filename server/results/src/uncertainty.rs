//! How sure a phase's throughput is: a 95 % interval from the run's own seconds, so a
//! difference between two runs can be told from the noise of one. A moving-block
//! bootstrap over the phase's per-second intervals: blocks of consecutive seconds
//! (about the cube root of their number long, so that a slow drift or a burst that
//! spans seconds stays together) are drawn with replacement until the phase's length is
//! made up again, and the rate of each such resample (its operations over its measured
//! time) is taken; the interval runs from the 2.5th to the 97.5th percentile of 1,000
//! resamples. It assumes the seconds are alike apart from such runs of neighbours (no
//! trend across the whole phase: a fill slowing as its bucket grows has a wide interval,
//! and it says so by being wide) and it describes this run's phase, not the store in
//! general: another run's seconds are another draw. Deterministic (a fixed seed), and
//! over at most the chart's points per phase (long phases come merged into blocks of
//! seconds already), so its cost does not grow with a phase's length.

use serde::{Deserialize, Serialize};

/// Fewer measured seconds than this give no interval.
pub const MIN_SECONDS: usize = 10;
/// Resamples drawn.
pub const RESAMPLES: usize = 1_000;
/// At most this many points of a phase are resampled (a longer phase's come merged
/// into blocks of consecutive seconds, as its chart has them).
pub const MAX_POINTS: usize = 2_000;
const SEED: u64 = 0x6b65_7973_746f_726d;

/// A throughput's 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RateInterval {
    /// The phase's rate: its operations over its measured seconds.
    pub rate: f64,
    pub low: f64,
    pub high: f64,
    /// The seconds (intervals) it was drawn from.
    pub seconds: usize,
}

impl RateInterval {
    /// Half the interval's width as a share of the rate: `±1.6 %`.
    pub fn half_width_share(&self) -> f64 {
        if self.rate > 0.0 {
            (self.high - self.low) / 2.0 / self.rate
        } else {
            0.0
        }
    }
}

/// Why a rate has no interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{have} measured second{}; an interval needs at least {need}", if *have == 1 { "" } else { "s" })]
pub struct TooFew {
    pub have: usize,
    pub need: usize,
}

/// The 95 % interval of the rate of `seconds` (each interval's operations and measured
/// seconds, in time order).
pub fn rate_interval(seconds: &[(f64, f64)]) -> Result<RateInterval, TooFew> {
    let n = seconds.len();
    if n < MIN_SECONDS {
        return Err(TooFew {
            have: n,
            need: MIN_SECONDS,
        });
    }
    let rate_of = |ops: f64, time: f64| if time > 0.0 { ops / time } else { 0.0 };
    let (ops, time) = seconds
        .iter()
        .fold((0.0, 0.0), |(o, t), (ops, dur)| (o + ops, t + dur));
    let block = ((n as f64).cbrt().round() as usize).clamp(1, n);
    let starts = n - block + 1;
    let mut rng = fastrand::Rng::with_seed(SEED);
    let mut rates: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let (mut o, mut t, mut taken) = (0.0, 0.0, 0);
            while taken < n {
                let start = rng.usize(0..starts);
                for (ops, dur) in &seconds[start..start + block.min(n - taken)] {
                    o += ops;
                    t += dur;
                }
                taken += block;
            }
            rate_of(o, t)
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    let at = |q: f64| rates[((q * (RESAMPLES - 1) as f64).round() as usize).min(RESAMPLES - 1)];
    Ok(RateInterval {
        rate: rate_of(ops, time),
        low: at(0.025),
        high: at(0.975),
        seconds: n,
    })
}

/// A row's throughput interval, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RowRateInterval {
    pub section: crate::Section,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    pub phase: String,
    pub op: keystorm_types::OpKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops_per_sec: Option<RateInterval>,
    /// Why there is no interval (`4 measured seconds; an interval needs at least 10`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub none_because: Option<String>,
}

/// The throughput interval of every row of `rows` (whole phases), from the run's
/// measured intervals in `dir` (at most the chart's points per phase).
pub fn row_rate_intervals(
    dir: &std::path::Path,
    rows: &[crate::SummaryRow],
) -> Vec<RowRateInterval> {
    let points = crate::read_intervals(
        dir,
        &crate::IntervalQuery {
            max_points: Some(MAX_POINTS),
            ..Default::default()
        },
    );
    // Each phase's measured points, found once (not searched for every row).
    let mut by_phase: std::collections::HashMap<_, Vec<&crate::IntervalRecord>> =
        std::collections::HashMap::new();
    for p in points.iter().filter(|p| !p.warmup) {
        by_phase
            .entry((p.section, p.round, p.phase.as_str()))
            .or_default()
            .push(p);
    }
    rows.iter()
        .map(|r| {
            let seconds: Vec<(f64, f64)> = by_phase
                .get(&(r.section, r.round, r.phase.as_str()))
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|p| (p.ops.get(&r.op).map_or(0, |s| s.ops) as f64, p.duration_s))
                .collect();
            let (ops_per_sec, none_because) = match rate_interval(&seconds) {
                Ok(i) => (Some(i), None),
                Err(e) => (None, Some(e.to_string())),
            };
            RowRateInterval {
                section: r.section,
                round: r.round,
                phase: r.phase.clone(),
                op: r.op,
                ops_per_sec,
                none_because,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_seconds_give_a_narrow_interval_around_the_rate() {
        let seconds: Vec<(f64, f64)> = (0..60).map(|i| (1000.0 + (i % 3) as f64, 1.0)).collect();
        let r = rate_interval(&seconds).unwrap();
        assert!((r.rate - 1001.0).abs() < 1e-9);
        assert!(r.low <= r.rate && r.rate <= r.high, "{r:?}");
        assert!(r.half_width_share() < 0.001, "{r:?}");
        assert_eq!(r.seconds, 60);
    }

    #[test]
    fn noisy_seconds_give_a_wider_interval_that_holds_the_rate() {
        let mut rng = fastrand::Rng::with_seed(3);
        let seconds: Vec<(f64, f64)> = (0..60).map(|_| (rng.f64() * 2000.0, 1.0)).collect();
        let r = rate_interval(&seconds).unwrap();
        assert!(r.low < r.rate && r.rate < r.high, "{r:?}");
        // The mean of 60 draws of U(0, 2000) has a standard error of 75: a 95 %
        // interval about ±147 wide, give or take the bootstrap's own spread.
        let half = (r.high - r.low) / 2.0;
        assert!((100.0..200.0).contains(&half), "{r:?}");
        // The same seconds, the same interval.
        assert_eq!(rate_interval(&seconds).unwrap(), r);
    }

    #[test]
    fn too_few_seconds_say_how_many_are_needed() {
        let e = rate_interval(&[(10.0, 1.0); 4]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "4 measured seconds; an interval needs at least 10"
        );
    }
}
