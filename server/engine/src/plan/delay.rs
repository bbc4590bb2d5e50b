//! Latency distributions as people write them in a workload's `target.embedded.latency`
//! (`2ms`, `1ms..3ms`, `exp:2ms`, `lognormal:2ms,20ms`), parsed once when the workload
//! becomes a plan. The embedded target that draws from them is wired in by the program
//! that runs workloads (see `executor::embedded`).

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
}
