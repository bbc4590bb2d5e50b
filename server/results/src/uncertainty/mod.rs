//! How sure a phase's figures are: a 95 % interval for its throughput, bandwidth and
//! latency percentiles from the run's own seconds, so a difference between two runs can
//! be told from the noise of one. A bootstrap ([`resample`]): the phase's per-second
//! intervals ([`seconds`]) drawn again in blocks of consecutive seconds, or, for a
//! figure over several rounds, the rounds drawn first; latency from the drawn seconds'
//! histograms added up, exactly. The interval runs from the 2.5th to the 97.5th
//! percentile of the resamples' figures. It assumes the seconds are alike apart from
//! runs of neighbours (no trend across the whole phase: a fill slowing as its bucket
//! grows has a wide interval, and says so by being wide), and it describes this run's
//! phase, not the store in general: another run's seconds are another draw
//! (docs/intervals.md). Deterministic (a fixed seed), and over at most
//! [`seconds::MAX_POINTS`] points per phase, so its cost does not grow with a phase's
//! length.

pub mod resample;
pub mod seconds;

use serde::{Deserialize, Serialize};

pub use resample::{Draws, Figures, MIN_ROUNDS, MIN_SECONDS, RESAMPLES, TooFew, draws};
pub use seconds::{RunSeconds, Second};

/// The seed of a run's own intervals (a comparison draws its second run with another).
pub const SEED: u64 = 0x6b65_7973_746f_726d;

/// A figure with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Estimate {
    /// The figure as measured (all the seconds, not a resample).
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

impl Estimate {
    /// The estimate of one figure from its draws.
    pub fn of(draws: &Draws, figure: impl Fn(&Figures) -> f64) -> Estimate {
        let mut values: Vec<f64> = draws.resamples.iter().map(&figure).collect();
        Estimate {
            value: figure(&draws.estimate),
            low: resample::quantile(&mut values, 0.025),
            high: resample::quantile(&mut values, 0.975),
        }
    }

    /// Half the interval's width as a share of the value: `±1.6 %`.
    pub fn half_width_share(&self) -> f64 {
        if self.value > 0.0 {
            (self.high - self.low) / 2.0 / self.value
        } else {
            0.0
        }
    }
}

/// A row's figures with their intervals, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RowIntervals {
    pub section: crate::Section,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    pub phase: String,
    pub op: keystorm_types::OpKind,
    /// The measured seconds (chart points) the intervals were drawn from.
    pub seconds: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops_per_sec: Option<Estimate>,
    /// Only where the operation moved bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mib_per_sec: Option<Estimate>,
    /// Latency percentiles (µs), from the drawn seconds' histograms added up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_us: Option<Estimate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_us: Option<Estimate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p999_us: Option<Estimate>,
    /// Why there is no interval (`4 measured seconds; an interval needs at least 10`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub none_because: Option<String>,
}

/// The intervals of every row of `rows` (whole phases), from the run's measured
/// seconds in `dir`.
pub fn row_intervals(dir: &std::path::Path, rows: &[crate::SummaryRow]) -> Vec<RowIntervals> {
    let run = seconds::read(dir);
    rows.iter()
        .map(|r| {
            let seconds = run.of(r.section, r.round, &r.phase);
            let mut out = RowIntervals {
                section: r.section,
                round: r.round,
                phase: r.phase.clone(),
                op: r.op,
                seconds: seconds.len(),
                ops_per_sec: None,
                mib_per_sec: None,
                p50_us: None,
                p99_us: None,
                p999_us: None,
                none_because: None,
            };
            match draws(&[seconds], r.op, &[], SEED) {
                Ok(d) => {
                    out.ops_per_sec = Some(Estimate::of(&d, |f| f.ops_per_sec));
                    if d.estimate.mib_per_sec > 0.0 {
                        out.mib_per_sec = Some(Estimate::of(&d, |f| f.mib_per_sec));
                    }
                    if d.estimate.p50_us > 0.0 {
                        out.p50_us = Some(Estimate::of(&d, |f| f.p50_us));
                        out.p99_us = Some(Estimate::of(&d, |f| f.p99_us));
                        out.p999_us = Some(Estimate::of(&d, |f| f.p999_us));
                    }
                }
                Err(e) => out.none_because = Some(e.to_string()),
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests;
