//! List time against bucket size: the listings of a run grouped by phase (one line per
//! listing mode in a list-scaling workload), a least-squares line through each group,
//! and what the line says about a larger bucket, with its 95 % prediction interval.
//!
//! Listing time grows linearly with the key count (a page per 1000 keys, at a rate the
//! store sets), so a line fitted over a few sizes extrapolates as long as the store's
//! page rate holds; R² says how well the line fits what was measured. Which lines may be
//! extrapolated, how far, and the words of a refusal are [`crate::extrapolation`]'s.

use serde::{Deserialize, Serialize};

use crate::extrapolation::{MAX_REACH, Prediction, Refusal};
use crate::student_t::t975;

/// One complete listing: how many keys, how long.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScalingPoint {
    pub keys: u64,
    pub seconds: f64,
}

/// `seconds = intercept_s + slope_s_per_key × keys`, fitted by least squares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LinearFit {
    pub slope_s_per_key: f64,
    pub intercept_s: f64,
    /// Coefficient of determination: 1 is a perfect line.
    pub r2: f64,
    /// Points the line was fitted to.
    pub points: usize,
    /// The largest listing measured (keys).
    pub max_keys: u64,
    /// The mean key count of the listings measured.
    pub mean_keys: f64,
    /// Σ (keys − mean_keys)²: how spread the sizes measured are.
    pub sxx: f64,
    /// Residual standard error (s): how far the listings sit from the line. `None` with
    /// two points, which any line fits.
    pub residual_s: Option<f64>,
    /// Student's t at 0.975 for points − 2 degrees of freedom: the 95 % prediction
    /// interval's multiplier. `None` with two points.
    pub t95: Option<f64>,
    /// Why the line says nothing beyond the sizes measured (too few sizes, R² under 0.9,
    /// list time not growing); `None` when it extrapolates up to `reach_keys`.
    pub refusal: Option<String>,
    /// The largest key count the line is extrapolated to: 100 × `max_keys`.
    pub reach_keys: f64,
}

impl LinearFit {
    /// Fits a line through at least two points with different key counts.
    pub fn of(points: &[ScalingPoint]) -> Option<LinearFit> {
        let n = points.len() as f64;
        if points.len() < 2 {
            return None;
        }
        let mean_x = points.iter().map(|p| p.keys as f64).sum::<f64>() / n;
        let mean_y = points.iter().map(|p| p.seconds).sum::<f64>() / n;
        let sxx: f64 = points
            .iter()
            .map(|p| (p.keys as f64 - mean_x).powi(2))
            .sum();
        if sxx <= 0.0 {
            return None;
        }
        let sxy: f64 = points
            .iter()
            .map(|p| (p.keys as f64 - mean_x) * (p.seconds - mean_y))
            .sum();
        let slope = sxy / sxx;
        let intercept = mean_y - slope * mean_x;
        let ss_tot: f64 = points.iter().map(|p| (p.seconds - mean_y).powi(2)).sum();
        let ss_res: f64 = points
            .iter()
            .map(|p| (p.seconds - (intercept + slope * p.keys as f64)).powi(2))
            .sum();
        let r2 = if ss_tot > 0.0 {
            1.0 - ss_res / ss_tot
        } else {
            1.0
        };
        let dof = points.len() - 2;
        let max_keys = points.iter().map(|p| p.keys).max().unwrap_or(0);
        let mut fit = LinearFit {
            slope_s_per_key: slope,
            intercept_s: intercept,
            r2,
            points: points.len(),
            max_keys,
            mean_keys: mean_x,
            sxx,
            residual_s: (dof > 0).then(|| (ss_res / dof as f64).sqrt()),
            t95: t975(dof),
            refusal: None,
            reach_keys: MAX_REACH * max_keys as f64,
        };
        fit.refusal = Refusal::of_line(fit.points, r2, slope).map(|r| r.to_string());
        Some(fit)
    }

    /// How long `keys` keys take to list by this line, with the 95 % prediction interval
    /// (t × s × √(1 + 1/n + (keys − mean)² / Sxx) either side), or why it does not say.
    pub fn extrapolate(&self, keys: f64) -> Result<Prediction, Refusal> {
        if let Some(refusal) = Refusal::of_line(self.points, self.r2, self.slope_s_per_key) {
            return Err(refusal);
        }
        if keys > self.reach_keys {
            return Err(Refusal::TooFar {
                keys,
                max_keys: self.max_keys,
            });
        }
        let seconds = self.seconds_for(keys);
        // Only a line of three points or more gets here: both are known.
        let spread = self.t95.unwrap_or(f64::NAN) * self.residual_s.unwrap_or(f64::NAN);
        let n = self.points as f64;
        let from_mean = (keys - self.mean_keys).powi(2) / self.sxx.max(f64::MIN_POSITIVE);
        let half = spread * (1.0 + 1.0 / n + from_mean).sqrt();
        Ok(Prediction {
            seconds,
            low_s: (seconds - half).max(0.0),
            high_s: seconds + half,
        })
    }

    /// Seconds the line predicts for `keys`.
    pub fn seconds_for(&self, keys: f64) -> f64 {
        self.intercept_s + self.slope_s_per_key * keys
    }

    /// Keys per second the line implies for large buckets (1 / slope).
    pub fn keys_per_sec(&self) -> f64 {
        if self.slope_s_per_key > 0.0 {
            1.0 / self.slope_s_per_key
        } else {
            f64::INFINITY
        }
    }
}

/// `93 days 4 h`, `5 h 12 min`, `42 s`: a duration a person can read at a glance.
pub fn human_duration(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return "-".to_string();
    }
    let s = seconds.round() as u64;
    let (d, h, m) = (s / 86_400, s % 86_400 / 3_600, s % 3_600 / 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{seconds:.1} s"),
        (0, 0, m) => format!("{m} min {} s", s % 60),
        (0, h, m) => format!("{h} h {m} min"),
        (d, h, _) if d < 365 => format!("{d} days {h} h"),
        (d, _, _) => format!("{:.1} years", d as f64 / 365.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(keys: u64, seconds: f64) -> ScalingPoint {
        ScalingPoint { keys, seconds }
    }

    #[test]
    fn a_perfect_line_is_found_exactly() {
        let f = LinearFit::of(&[p(10_000, 1.5), p(20_000, 2.5), p(40_000, 4.5)]).unwrap();
        assert!((f.slope_s_per_key - 1e-4).abs() < 1e-12);
        assert!((f.intercept_s - 0.5).abs() < 1e-9);
        assert!((f.r2 - 1.0).abs() < 1e-12);
        assert!((f.seconds_for(67e9) - (0.5 + 6.7e6)).abs() < 1e-3);
        assert!((f.keys_per_sec() - 10_000.0).abs() < 1e-6);
    }

    #[test]
    fn noise_lowers_r2_and_too_few_points_fit_nothing() {
        let f = LinearFit::of(&[p(1, 1.0), p(2, 3.0), p(3, 2.0), p(4, 4.0)]).unwrap();
        assert!(f.r2 < 0.9 && f.r2 > 0.0, "{f:?}");
        assert!(LinearFit::of(&[p(5, 1.0)]).is_none());
        assert!(LinearFit::of(&[p(5, 1.0), p(5, 2.0)]).is_none());
    }

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(human_duration(4.24), "4.2 s");
        assert_eq!(human_duration(125.0), "2 min 5 s");
        assert_eq!(human_duration(3.0 * 3600.0 + 720.0), "3 h 12 min");
        assert_eq!(human_duration(3.0 * 86_400.0 + 7200.0), "3 days 2 h");
        assert_eq!(human_duration(800.0 * 86_400.0), "2.2 years");
    }
}
