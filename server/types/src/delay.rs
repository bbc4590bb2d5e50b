//! Latency distributions as people write them (`2ms`, `1ms..3ms`, `exp:2ms`,
//! `lognormal:2ms,20ms`) in a workload's `target.embedded.latency` or on `keystorm sim`'s
//! command line, parsed once, and drawn per request by the simulated target. One
//! definition for the workload, the command line and the simulator, so a new form is
//! added in one place.

use std::str::FromStr;
use std::time::Duration;

/// A random delay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Delay {
    Fixed(Duration),
    /// Uniform between the bounds.
    Uniform {
        low: Duration,
        high: Duration,
    },
    /// Exponential with this mean.
    Exponential {
        mean: Duration,
    },
    /// Log-normal with this median and 99th percentile (p99 ≥ median).
    LogNormal {
        median: Duration,
        p99: Duration,
    },
}

/// Why a latency text is not a distribution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DelayParseError(String);

fn duration(s: &str, whole: &str) -> Result<Duration, DelayParseError> {
    humantime::parse_duration(s.trim())
        .map_err(|e| DelayParseError(format!("{whole:?}: {s:?} is not a duration ({e})")))
}

impl FromStr for Delay {
    type Err = DelayParseError;

    fn from_str(text: &str) -> Result<Delay, DelayParseError> {
        let t = text.trim();
        if let Some(mean) = t.strip_prefix("exp:") {
            return Ok(Delay::Exponential {
                mean: duration(mean, t)?,
            });
        }
        if let Some(rest) = t.strip_prefix("lognormal:") {
            let (median, p99) = rest
                .split_once(',')
                .ok_or_else(|| DelayParseError(format!("{t:?}: write `lognormal:MEDIAN,P99`")))?;
            let (median, p99) = (duration(median, t)?, duration(p99, t)?);
            if p99 < median || median.is_zero() {
                return Err(DelayParseError(format!(
                    "{t:?}: the p99 must be at least the median, and the median above zero"
                )));
            }
            return Ok(Delay::LogNormal { median, p99 });
        }
        if let Some((low, high)) = t.split_once("..") {
            let (low, high) = (duration(low, t)?, duration(high, t)?);
            if high < low {
                return Err(DelayParseError(format!(
                    "{t:?}: the upper bound is below the lower"
                )));
            }
            return Ok(Delay::Uniform { low, high });
        }
        Ok(Delay::Fixed(duration(t, t)?))
    }
}

/// z of the 99th percentile of the standard normal distribution.
const Z99: f64 = 2.326_347_874;

impl Delay {
    /// One draw.
    pub fn sample(&self, rng: &mut fastrand::Rng) -> Duration {
        match *self {
            Delay::Fixed(d) => d,
            Delay::Uniform { low, high } => low + (high - low).mul_f64(rng.f64()),
            Delay::Exponential { mean } => mean.mul_f64(-(1.0 - rng.f64()).ln()),
            Delay::LogNormal { median, p99 } => {
                let sigma = (p99.as_secs_f64() / median.as_secs_f64()).ln() / Z99;
                // Box-Muller.
                let (u1, u2) = (1.0 - rng.f64(), rng.f64());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                median.mul_f64((sigma * z).exp().min(1e6))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_bad_ones_say_why() {
        let ms = Duration::from_millis;
        assert_eq!("2ms".parse::<Delay>().unwrap(), Delay::Fixed(ms(2)));
        assert_eq!(
            "1ms..3ms".parse::<Delay>().unwrap(),
            Delay::Uniform {
                low: ms(1),
                high: ms(3)
            }
        );
        assert_eq!(
            "exp:2ms".parse::<Delay>().unwrap(),
            Delay::Exponential { mean: ms(2) }
        );
        assert_eq!(
            "lognormal:2ms,20ms".parse::<Delay>().unwrap(),
            Delay::LogNormal {
                median: ms(2),
                p99: ms(20)
            }
        );
        let err = |t: &str| t.parse::<Delay>().unwrap_err().0;
        assert!(err("3ms..1ms").contains("upper bound"));
        assert!(err("lognormal:2ms").contains("lognormal:MEDIAN,P99"));
        assert!(err("lognormal:20ms,2ms").contains("at least the median"));
        assert!(err("fast").contains("not a duration"));
    }

    #[test]
    fn draws_stay_in_their_distribution() {
        let mut rng = fastrand::Rng::with_seed(1);
        let ms = Duration::from_millis;
        let u = Delay::Uniform {
            low: ms(1),
            high: ms(3),
        };
        assert!(
            (0..1000)
                .map(|_| u.sample(&mut rng))
                .all(|d| d >= ms(1) && d <= ms(3))
        );
        let e = Delay::Exponential { mean: ms(2) };
        let mean = (0..20_000)
            .map(|_| e.sample(&mut rng).as_secs_f64())
            .sum::<f64>()
            / 20_000.0;
        assert!((mean - 0.002).abs() < 0.0002, "{mean}");
        let l = Delay::LogNormal {
            median: ms(2),
            p99: ms(20),
        };
        let mut draws: Vec<f64> = (0..20_000)
            .map(|_| l.sample(&mut rng).as_secs_f64())
            .collect();
        draws.sort_by(f64::total_cmp);
        let (p50, p99) = (draws[10_000], draws[19_800]);
        assert!((p50 - 0.002).abs() < 0.0002, "{p50}");
        assert!((p99 - 0.020).abs() < 0.003, "{p99}");
    }
}
