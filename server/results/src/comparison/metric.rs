//! The figures a comparison judges, by name (`ops_per_sec`, `p99`, `over_1s`…), with
//! the direction that is better for each.

use serde::{Deserialize, Serialize};

use crate::tail_marks::mark_name;
use crate::uncertainty::Figures;

/// A figure a comparison judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    OpsPerSec,
    MibPerSec,
    P50,
    P99,
    P999,
    ErrorRate,
    /// Operations at or over a tail mark (µs), as a share of the timed ones; the
    /// mark's place in the comparison's list of marks.
    Slow {
        mark_us: u64,
        at: usize,
    },
}

/// Which way a figure gets better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Higher,
    Lower,
}

/// The name of a search's sustainable rate judged as a metric (see
/// [`super::searches`]).
pub const SUSTAINABLE_RATE: &str = "sustainable_rate";

/// The metric names `--metrics` accepts (tail marks as `over_1s`, `over_500ms`…, or
/// `tails` for all of them).
pub const METRIC_NAMES: &str =
    "ops_per_sec, mib_per_sec, p50, p99, p99.9, error_rate, tails, sustainable_rate";

impl Metric {
    pub fn name(&self) -> String {
        match self {
            Metric::OpsPerSec => "ops_per_sec".into(),
            Metric::MibPerSec => "mib_per_sec".into(),
            Metric::P50 => "p50".into(),
            Metric::P99 => "p99".into(),
            Metric::P999 => "p99.9".into(),
            Metric::ErrorRate => "error_rate".into(),
            Metric::Slow { mark_us, .. } => format!("over_{}", mark_name(*mark_us)),
        }
    }

    pub fn better(&self) -> Better {
        match self {
            Metric::OpsPerSec | Metric::MibPerSec => Better::Higher,
            _ => Better::Lower,
        }
    }

    /// The figure in a set of figures.
    pub fn of(&self, f: &Figures) -> f64 {
        match self {
            Metric::OpsPerSec => f.ops_per_sec,
            Metric::MibPerSec => f.mib_per_sec,
            Metric::P50 => f.p50_us,
            Metric::P99 => f.p99_us,
            Metric::P999 => f.p999_us,
            Metric::ErrorRate => f.error_rate,
            Metric::Slow { at, .. } => f.slow_share[*at],
        }
    }

    /// A latency percentile: what an open loop's lateness can make up.
    pub fn percentile(&self) -> Option<LagQuantile> {
        match self {
            Metric::P50 => Some(LagQuantile::P50),
            Metric::P99 => Some(LagQuantile::P99),
            Metric::P999 => Some(LagQuantile::P999),
            _ => None,
        }
    }

    /// Whether `--metrics` named this one (`names` as given; `tails` names every mark).
    pub fn named_in(&self, names: &[String]) -> bool {
        let own = self.name();
        names.iter().any(|n| {
            n == &own
                || (n == "p999" && own == "p99.9")
                || (n == "tails" && matches!(self, Metric::Slow { .. }))
        })
    }
}

/// Whether a name is one `--metrics` accepts (tail marks must be the comparison's).
pub fn known_name(name: &str, marks_us: &[u64]) -> bool {
    [
        "ops_per_sec",
        "mib_per_sec",
        "p50",
        "p99",
        "p99.9",
        "p999",
        "error_rate",
        "tails",
        SUSTAINABLE_RATE,
    ]
    .contains(&name)
        || marks_us
            .iter()
            .any(|m| name == format!("over_{}", mark_name(*m)))
        // A run's own marks are known only once it is read: any one mark will do.
        || name
            .strip_prefix("over_")
            .is_some_and(|mark| mark.parse::<crate::tail_marks::TailMarks>().is_ok_and(|m| m.as_us().len() == 1))
}

/// A percentile the schedule lag is known for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LagQuantile {
    P50,
    P99,
    P999,
}

impl LagQuantile {
    /// The share of operations at or below it.
    pub fn share(self) -> f64 {
        match self {
            LagQuantile::P50 => 0.5,
            LagQuantile::P99 => 0.99,
            LagQuantile::P999 => 0.999,
        }
    }
}
