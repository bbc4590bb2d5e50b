//! What a run must achieve, stated in its workload (`expect: ["get.p99 < 20ms",
//! "put.ops_per_sec > 1000", "errors.rate < 0.1%", "open_loop.sent >= 99%",
//! "integrity: as_written"]`), and whether a phase achieved it. One parser for the workload's validation and for every
//! place that judges a run afterwards (the run's end, a merge of shards, `show`), so a
//! threshold means the same thing wherever it is read; a threshold is judged on a
//! phase's whole rows (a resumed phase's parts added up, latency from their merged
//! histograms), never on a part.

use serde::{Deserialize, Serialize};

use keystorm_types::OpKind;

use crate::metrics::OpSummary;
use crate::summary::{OpenLoop, SummaryRow};

/// What a threshold is about: one operation, every request of the phase (`errors`), or
/// an open-loop phase's schedule (`open_loop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Op(OpKind),
    Errors,
    OpenLoop,
}

/// The figure a threshold bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// A latency figure (µs): `p50`, `p90`, `p99`, `p99.9`, `max`, `mean`.
    Latency(LatencyFigure),
    OpsPerSec,
    MibPerSec,
    /// The share of requests that failed (of one operation, or `errors.rate` of all).
    ErrorRate,
    /// Failed requests (of one operation, or `errors.count` of all).
    ErrorCount,
    /// `open_loop.sent`: requests sent per second as a share of the rate asked.
    Sent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencyFigure {
    P50,
    P90,
    P99,
    P999,
    Max,
    Mean,
}

/// How the phase's figure must compare with the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparator {
    Below,
    AtMost,
    Above,
    AtLeast,
}

impl Comparator {
    fn holds(self, actual: f64, bound: f64) -> bool {
        match self {
            Comparator::Below => actual < bound,
            Comparator::AtMost => actual <= bound,
            Comparator::Above => actual > bound,
            Comparator::AtLeast => actual >= bound,
        }
    }
}

/// One threshold, parsed: `bound` in the metric's own unit (µs, ops/s, MiB/s, a
/// fraction, a count).
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    pub subject: Subject,
    pub metric: Metric,
    pub comparator: Comparator,
    pub bound: f64,
    /// As written.
    pub text: String,
}

/// Why a threshold cannot be read; the message names what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThresholdError {
    #[error("{0:?} is not a threshold: write OP.METRIC COMPARATOR BOUND, e.g. \"get.p99 < 20ms\"")]
    Shape(String),
    #[error(
        "{0:?} is not an operation: use put, get, head, list or delete, errors (every \
         request of the phase) or open_loop; or write \"integrity: as_written\""
    )]
    Subject(String),
    #[error(
        "{0:?} is not an integrity expectation: write \"integrity: as_written\" (the store \
         kept what the run gave it, proved by a verification or an audit)"
    )]
    Integrity(String),
    #[error("{metric:?} is not a metric of {subject}: use {accepted}")]
    Metric {
        subject: String,
        metric: String,
        accepted: &'static str,
    },
    #[error("{0:?} is not a comparator: use <, <=, > or >=")]
    Comparator(String),
    #[error("{bound:?} is not a bound for {metric}: {wanted}")]
    Bound {
        metric: String,
        bound: String,
        wanted: &'static str,
    },
}

const OP_METRICS: &str = "p50, p90, p99, p99.9, max, mean, ops_per_sec, mib_per_sec, \
                          error_rate or errors";

impl std::str::FromStr for Threshold {
    type Err = ThresholdError;

    fn from_str(text: &str) -> Result<Threshold, ThresholdError> {
        let shape = || ThresholdError::Shape(text.to_string());
        let mut words = text.split_whitespace();
        let (Some(figure), Some(comparator), Some(bound), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(shape());
        };
        let (subject, metric) = figure.split_once('.').ok_or_else(shape)?;
        let subject_of = match subject {
            "errors" => Subject::Errors,
            "open_loop" => Subject::OpenLoop,
            op => Subject::Op(
                OpKind::parse(op).ok_or_else(|| ThresholdError::Subject(op.to_string()))?,
            ),
        };
        let bad_metric = |accepted| ThresholdError::Metric {
            subject: subject.to_string(),
            metric: metric.to_string(),
            accepted,
        };
        let metric = match (subject_of, metric) {
            (Subject::Errors, "rate") => Metric::ErrorRate,
            (Subject::Errors, "count") => Metric::ErrorCount,
            (Subject::Errors, _) => return Err(bad_metric("rate or count")),
            (Subject::OpenLoop, "sent") => Metric::Sent,
            (Subject::OpenLoop, _) => return Err(bad_metric("sent")),
            (Subject::Op(_), m) => op_metric(m).ok_or_else(|| bad_metric(OP_METRICS))?,
        };
        let comparator = match comparator {
            "<" => Comparator::Below,
            "<=" => Comparator::AtMost,
            ">" => Comparator::Above,
            ">=" => Comparator::AtLeast,
            other => return Err(ThresholdError::Comparator(other.to_string())),
        };
        let bad_bound = |wanted| ThresholdError::Bound {
            metric: figure.to_string(),
            bound: bound.to_string(),
            wanted,
        };
        let bound = match metric {
            Metric::Latency(_) => duration_us(bound)
                .ok_or_else(|| bad_bound("a duration such as 800us, 20ms or 1.5s"))?,
            Metric::ErrorRate | Metric::Sent => share(bound)
                .ok_or_else(|| bad_bound("a share such as 0.1% or 0.001, at most 100%"))?,
            Metric::OpsPerSec | Metric::MibPerSec | Metric::ErrorCount => {
                number(bound).ok_or_else(|| bad_bound("a number of 0 or more, e.g. 1000"))?
            }
        };
        Ok(Threshold {
            subject: subject_of,
            metric,
            comparator,
            bound,
            text: text.split_whitespace().collect::<Vec<_>>().join(" "),
        })
    }
}

/// One entry of an `expect:` list: a bound on a phase's figure, or `integrity:
/// as_written` (the store kept what the run gave it, proved by a verification or an
/// audit).
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    Bound(Threshold),
    AsWritten,
}

/// `integrity: as_written` as it is written back (spacing normalised).
pub const AS_WRITTEN: &str = "integrity: as_written";

impl Expected {
    /// As written, spacing normalised.
    pub fn text(&self) -> &str {
        match self {
            Expected::Bound(t) => &t.text,
            Expected::AsWritten => AS_WRITTEN,
        }
    }
}

impl std::str::FromStr for Expected {
    type Err = ThresholdError;

    fn from_str(text: &str) -> Result<Expected, ThresholdError> {
        let Some(rest) = text.trim_start().strip_prefix("integrity") else {
            return text.parse().map(Expected::Bound);
        };
        match rest.trim_start().strip_prefix(':').map(str::trim) {
            Some("as_written") => Ok(Expected::AsWritten),
            // `integrity.x < 1`: read as a threshold, whose error names the shape.
            None if !rest.starts_with([' ', ':']) => text.parse().map(Expected::Bound),
            _ => Err(ThresholdError::Integrity(text.to_string())),
        }
    }
}

fn op_metric(m: &str) -> Option<Metric> {
    Some(match m {
        "p50" => Metric::Latency(LatencyFigure::P50),
        "p90" => Metric::Latency(LatencyFigure::P90),
        "p99" => Metric::Latency(LatencyFigure::P99),
        "p99.9" | "p999" => Metric::Latency(LatencyFigure::P999),
        "max" => Metric::Latency(LatencyFigure::Max),
        "mean" => Metric::Latency(LatencyFigure::Mean),
        "ops_per_sec" => Metric::OpsPerSec,
        "mib_per_sec" => Metric::MibPerSec,
        "error_rate" => Metric::ErrorRate,
        "errors" => Metric::ErrorCount,
        _ => return None,
    })
}

fn number(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
}

/// `800us`, `800µs`, `20ms`, `1.5s` in µs.
fn duration_us(s: &str) -> Option<f64> {
    let (value, scale) = if let Some(v) = s.strip_suffix("us").or(s.strip_suffix("µs")) {
        (v, 1.0)
    } else if let Some(v) = s.strip_suffix("ms") {
        (v, 1e3)
    } else if let Some(v) = s.strip_suffix('s') {
        (v, 1e6)
    } else {
        return None;
    };
    number(value).map(|v| v * scale)
}

/// `0.1%` or `0.001` as a fraction, at most 1.
fn share(s: &str) -> Option<f64> {
    let fraction = match s.strip_suffix('%') {
        Some(p) => number(p)? / 100.0,
        None => number(s)?,
    };
    (fraction <= 1.0).then_some(fraction)
}

/// A threshold judged on one phase (or `integrity: as_written` on the run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ThresholdCheck {
    /// `round 3 read`, `before fill`; `run` for the workload's `integrity: as_written`.
    pub phase: String,
    /// The threshold as written: `get.p99 < 20ms`, `integrity: as_written`.
    pub expect: String,
    /// The phase's figure in the threshold's unit (µs, ops/s, MiB/s, a fraction, a
    /// count; for `integrity: as_written`, the objects found not as written).
    pub actual: f64,
    /// The figure in words: `31.2 ms`, `1,204 ops/s`, `0.02 %`.
    pub actual_text: String,
    pub passed: bool,
}

/// What a threshold is judged on: a phase's figures per operation, over its measured
/// time, and how an open loop kept its schedule — from its rows when it ended, or from
/// what it measured so far while it runs.
pub struct PhaseFigures<'a> {
    pub ops: Vec<(OpKind, &'a OpSummary)>,
    pub open_loop: Option<OpenLoop>,
}

impl<'a> PhaseFigures<'a> {
    /// The figures of a phase's whole rows (one per operation).
    pub fn of_rows(rows: &[&'a SummaryRow]) -> Self {
        PhaseFigures {
            ops: rows.iter().map(|r| (r.op, &r.stats)).collect(),
            open_loop: rows.iter().find_map(|r| r.open_loop),
        }
    }
}

impl Threshold {
    /// The threshold judged on one phase's whole rows (one per operation); none when it
    /// does not apply (the phase ran no such operation, or was no open loop).
    pub fn check(&self, phase: &str, rows: &[&SummaryRow]) -> Option<ThresholdCheck> {
        self.check_figures(phase, &PhaseFigures::of_rows(rows))
    }

    /// The threshold judged on a phase's `figures`; none when it does not apply.
    pub fn check_figures(&self, phase: &str, figures: &PhaseFigures) -> Option<ThresholdCheck> {
        let actual = match self.subject {
            Subject::Op(op) => {
                let (_, s) = figures.ops.iter().find(|(o, _)| *o == op)?;
                match self.metric {
                    Metric::Latency(f) => latency(&s.latency_us, f),
                    Metric::OpsPerSec => s.ops_per_sec,
                    Metric::MibPerSec => s.mib_per_sec,
                    Metric::ErrorRate => s.error_rate,
                    Metric::ErrorCount => s.errors as f64,
                    Metric::Sent => return None,
                }
            }
            Subject::Errors => {
                let (ops, errors) = figures
                    .ops
                    .iter()
                    .fold((0u64, 0u64), |(o, e), (_, s)| (o + s.ops, e + s.errors));
                if ops + errors == 0 {
                    return None;
                }
                match self.metric {
                    Metric::ErrorCount => errors as f64,
                    _ => errors as f64 / (ops + errors) as f64,
                }
            }
            Subject::OpenLoop => {
                let o = figures.open_loop.as_ref()?;
                if o.asked_per_sec <= 0.0 {
                    return None;
                }
                o.sent_per_sec / o.asked_per_sec
            }
        };
        Some(ThresholdCheck {
            phase: phase.to_string(),
            expect: self.text.clone(),
            actual,
            actual_text: self.words(actual),
            passed: self.comparator.holds(actual, self.bound),
        })
    }

    /// Whether the figure is of the requests a process sent, so that a shard of a run
    /// split over processes sees only its share of it (throughput, counts), unlike a
    /// latency or a share of requests.
    pub fn scales_with_share(&self) -> bool {
        matches!(
            self.metric,
            Metric::OpsPerSec | Metric::MibPerSec | Metric::ErrorCount
        )
    }

    fn words(&self, v: f64) -> String {
        match self.metric {
            Metric::Latency(_) => crate::latency_text(v.round() as u64),
            Metric::OpsPerSec => format!("{v:.1} ops/s"),
            Metric::MibPerSec => format!("{v:.2} MiB/s"),
            Metric::ErrorRate | Metric::Sent => format!("{:.3} %", v * 100.0),
            Metric::ErrorCount => format!("{v:.0}"),
        }
    }
}

fn latency(p: &crate::metrics::Percentiles, f: LatencyFigure) -> f64 {
    match f {
        LatencyFigure::P50 => p.p50 as f64,
        LatencyFigure::P90 => p.p90 as f64,
        LatencyFigure::P99 => p.p99 as f64,
        LatencyFigure::P999 => p.p999 as f64,
        LatencyFigure::Max => p.max as f64,
        LatencyFigure::Mean => p.mean,
    }
}

/// A workload's threshold and where it applies, as the run's manifest keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Expectation {
    /// The phase (by name) it was written on; none: the workload's, every phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    pub expect: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_read_as_written_with_their_units() {
        let t: Threshold = "get.p99 < 20ms".parse().unwrap();
        assert_eq!(t.subject, Subject::Op(OpKind::Get));
        assert_eq!(t.metric, Metric::Latency(LatencyFigure::P99));
        assert_eq!(t.comparator, Comparator::Below);
        assert_eq!(t.bound, 20_000.0);
        let t: Threshold = "errors.rate  <  0.1%".parse().unwrap();
        assert_eq!((t.metric, t.bound), (Metric::ErrorRate, 0.001));
        assert_eq!(t.text, "errors.rate < 0.1%");
        let t: Threshold = "open_loop.sent >= 99%".parse().unwrap();
        assert_eq!(
            (t.metric, t.comparator, t.bound),
            (Metric::Sent, Comparator::AtLeast, 0.99)
        );
        let t: Threshold = "put.ops_per_sec > 1000".parse().unwrap();
        assert_eq!((t.metric, t.bound), (Metric::OpsPerSec, 1000.0));
        let t: Threshold = "head.p99.9 <= 1.5s".parse().unwrap();
        assert_eq!(
            (t.metric, t.bound),
            (Metric::Latency(LatencyFigure::P999), 1.5e6)
        );
    }

    #[test]
    fn a_threshold_that_cannot_be_read_says_what_is_accepted() {
        let err = |s: &str| s.parse::<Threshold>().unwrap_err().to_string();
        assert!(err("get.p99").contains("OP.METRIC COMPARATOR BOUND"));
        assert!(err("gets.p99 < 2ms").contains("put, get, head, list or delete"));
        assert!(err("get.p98 < 2ms").contains("p50, p90, p99, p99.9"));
        assert!(err("get.p99 = 2ms").contains("<, <=, > or >="));
        assert!(err("get.p99 < 20").contains("a duration such as"));
        assert!(err("errors.rate < 150%").contains("at most 100%"));
        assert!(err("put.ops_per_sec > fast").contains("a number"));
        assert!(err("open_loop.p99 < 2ms").contains("use sent"));
    }

    #[test]
    fn integrity_as_written_is_an_entry_of_its_own() {
        let read = |s: &str| s.parse::<Expected>();
        for written in [
            "integrity: as_written",
            "integrity:as_written",
            " integrity :  as_written ",
        ] {
            assert_eq!(read(written), Ok(Expected::AsWritten), "{written:?}");
        }
        assert_eq!(read("integrity: as_written").unwrap().text(), AS_WRITTEN);
        let bound = read("get.p99  < 20ms").unwrap();
        assert_eq!(bound.text(), "get.p99 < 20ms");
        assert!(matches!(bound, Expected::Bound(_)));
        let err = |s: &str| read(s).unwrap_err().to_string();
        for wrong in ["integrity: perfect", "integrity as_written", "integrity:"] {
            assert!(
                err(wrong).contains("write \"integrity: as_written\""),
                "{wrong}: {}",
                err(wrong)
            );
        }
        // Read as a bound, refused naming both shapes.
        assert!(err("integrity.rate < 1%").contains("or write \"integrity: as_written\""));
    }
}
