//! Latency distributions drawn per request. The forms people write (`2ms`,
//! `1ms..3ms`, `exp:2ms`, `lognormal:2ms,20ms`) are parsed by whoever configures the
//! target (keystorm's workloads and command line).

use std::time::Duration;

use crate::Delay;

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
