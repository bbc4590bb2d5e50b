//! A run that drives several endpoints (the gateways of one cluster): what each took
//! of every row and interval, and when one was lost and came back. Per-endpoint
//! counters add up to the row's exactly; their latency histograms are logged beside the
//! row's (tagged `section.round.phase.op@E`, `E` the endpoint's place in the run's list),
//! so merged runs read them exactly too.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::metrics::{IntervalStats, OpSummary, Percentiles};
use crate::phase_ref::PhaseRef;
use crate::tail_marks::TailMarks;
use keystorm_types::OpKind;

/// What one endpoint did of a summary row's operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EndpointRow {
    pub endpoint: String,
    #[serde(flatten)]
    pub stats: OpSummary,
}

/// What one endpoint did in an interval, per operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EndpointOps {
    pub endpoint: String,
    pub ops: BTreeMap<OpKind, OpSummary>,
}

/// An endpoint marked down (after consecutive connection failures or timeouts) or
/// found back up (a request to it answered).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EndpointEvent {
    pub endpoint: String,
    pub state: EndpointState,
    /// Seconds from the run's start.
    pub t_s: f64,
    /// The phase running then, if one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<PhaseRef>,
    /// Down: the consecutive failures that marked it; up: the failed probes before.
    pub failures: u32,
    /// Down: the last failure; up: how long it was down.
    pub detail: String,
}

impl EndpointEvent {
    /// `endpoint http://10.0.0.2:7480 down at 41.2 s after 3 failures (PUT: Connection
    /// reset by peer)`, or `… up at 52.0 s (answered again after 10.8 s down)`.
    pub fn describe(&self) -> String {
        match self.state {
            EndpointState::Down => format!(
                "endpoint {} down at {:.1} s after {} failure{} ({})",
                self.endpoint,
                self.t_s,
                self.failures,
                if self.failures == 1 { "" } else { "s" },
                self.detail
            ),
            EndpointState::Up => format!(
                "endpoint {} up at {:.1} s ({})",
                self.endpoint, self.t_s, self.detail
            ),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EndpointState {
    Down,
    Up,
}

/// The histogram log's tag of endpoint `e`'s lines of the row tagged `row_tag`.
pub fn endpoint_tag(row_tag: &str, e: usize) -> String {
    format!("{row_tag}@{e}")
}

/// The per-endpoint rows of `op` in `stats` over `elapsed`, named from `urls` (empty
/// when the run drives one endpoint), their tails counted at `marks`.
pub fn endpoint_rows(
    stats: &IntervalStats,
    op: OpKind,
    urls: &[String],
    elapsed: Duration,
    marks: &TailMarks,
) -> Vec<EndpointRow> {
    stats
        .endpoints
        .iter()
        .enumerate()
        .filter_map(|(e, s)| {
            let s = s.op(op).filter(|s| !s.is_empty())?;
            Some(EndpointRow {
                endpoint: name(urls, e),
                stats: OpSummary {
                    latency_us: Percentiles::with_tails(&s.latency, marks),
                    ..s.summarize(elapsed)
                },
            })
        })
        .collect()
}

/// Each endpoint's operations in `stats` over `elapsed`.
pub fn endpoint_ops(stats: &IntervalStats, urls: &[String], elapsed: Duration) -> Vec<EndpointOps> {
    stats
        .endpoints
        .iter()
        .enumerate()
        .filter_map(|(e, s)| {
            let ops: BTreeMap<OpKind, OpSummary> = s
                .active()
                .map(|(op, s)| (op, s.summarize(elapsed)))
                .collect();
            (!ops.is_empty()).then(|| EndpointOps {
                endpoint: name(urls, e),
                ops,
            })
        })
        .collect()
}

fn name(urls: &[String], e: usize) -> String {
    urls.get(e)
        .cloned()
        .unwrap_or_else(|| format!("endpoint {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use keystorm_types::ErrorClass;

    #[test]
    fn endpoints_add_up_to_the_rows_they_break_down() {
        let mut s = IntervalStats::default();
        for n in 0..300u64 {
            let e = (n % 3) as usize;
            let d = Duration::from_micros(100 + n * (e as u64 + 1));
            s.op_mut(OpKind::Get).record_ok(d, 10);
            s.endpoint_op_mut(e, OpKind::Get).record_ok(d, 10);
            if n % 7 == 0 {
                s.op_mut(OpKind::Get).record_error(ErrorClass::Connection);
                s.endpoint_op_mut(1, OpKind::Get)
                    .record_error(ErrorClass::Connection);
            }
        }
        let urls: Vec<String> = (0..3).map(|i| format!("http://gw{i}")).collect();
        let rows = endpoint_rows(
            &s,
            OpKind::Get,
            &urls,
            Duration::from_secs(1),
            &TailMarks::default(),
        );
        assert_eq!(rows.len(), 3);
        assert_eq!(rows.iter().map(|r| r.stats.ops).sum::<u64>(), 300);
        assert_eq!(rows.iter().map(|r| r.stats.errors).sum::<u64>(), 43);
        assert_eq!(rows[1].stats.errors, 43);
        assert_eq!(rows[2].endpoint, "http://gw2");
        assert!(rows[2].stats.latency_us.p50 > rows[0].stats.latency_us.p50);
        // Merging keeps the breakdown exact.
        let mut twice = s.clone();
        twice.merge(&s);
        let rows = endpoint_rows(
            &twice,
            OpKind::Get,
            &urls,
            Duration::from_secs(1),
            &TailMarks::default(),
        );
        assert_eq!(rows.iter().map(|r| r.stats.ops).sum::<u64>(), 600);
        assert!(
            endpoint_rows(
                &s,
                OpKind::Put,
                &urls,
                Duration::from_secs(1),
                &TailMarks::default()
            )
            .is_empty()
        );
        let ops = endpoint_ops(&s, &urls, Duration::from_secs(1));
        assert_eq!(ops.len(), 3);
        assert_eq!(ops[0].ops[&OpKind::Get].ops, 100);
    }

    #[test]
    fn each_endpoints_tail_is_counted_and_they_add_up_to_the_rows() {
        let mut s = IntervalStats::default();
        for n in 0..90u64 {
            let d = Duration::from_millis(n * 30);
            s.op_mut(OpKind::Put).record_ok(d, 0);
            s.endpoint_op_mut((n % 2) as usize, OpKind::Put)
                .record_ok(d, 0);
        }
        let marks = TailMarks::new(&[1_000_000, 2_000_000]).unwrap();
        let urls: Vec<String> = (0..2).map(|i| format!("http://gw{i}")).collect();
        let rows = endpoint_rows(&s, OpKind::Put, &urls, Duration::from_secs(1), &marks);
        let whole = crate::tail_counts::slower_than(&s.op(OpKind::Put).latency, &marks);
        for mark in marks.as_us() {
            let parts: u64 = rows
                .iter()
                .map(|r| r.stats.latency_us.slower_than.at(*mark).unwrap())
                .sum();
            assert_eq!(Some(parts), whole.at(*mark), "at {mark} µs");
        }
        assert_eq!(whole.at(1_000_000), Some(56), "34 of 90 took under 1 s");
    }
}
