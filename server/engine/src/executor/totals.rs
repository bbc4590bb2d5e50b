//! Whole-run totals per operation, merged exactly from every phase and persisted in
//! `totals.json` (histograms as base64 V2-deflate, like the interval log) so that a
//! resumed run keeps the totals of the phases it does not redo.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use base64::Engine;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use serde::{Deserialize, Serialize};

use crate::metrics::{IntervalStats, OpStats};
use keystorm_results::{ResultsError, TotalRow};
use keystorm_types::{ErrorClass, OpKind};

pub const TOTALS_FILE: &str = "totals.json";

#[derive(Debug, Clone, Default)]
pub(crate) struct RunTotals {
    stats: IntervalStats,
    /// Measured seconds of the phases each operation appeared in.
    seconds: [f64; 5],
}

impl RunTotals {
    /// Adds a finished phase's (warm-up free) stats measured over `measured`.
    pub fn add_phase(&mut self, phase: &IntervalStats, measured: Duration) {
        self.stats.merge(phase);
        for (op, _) in phase.active() {
            self.seconds[op.index()] += measured.as_secs_f64();
        }
    }

    pub fn rows(&self) -> Vec<TotalRow> {
        self.stats
            .active()
            .map(|(op, s)| {
                let secs = self.seconds[op.index()];
                let mut stats = s.summarize(Duration::from_secs_f64(secs));
                // Schedule lag is a phase's (and not kept across a resume): the rows have it.
                stats.schedule_lag_us = None;
                TotalRow {
                    op,
                    duration_s: secs,
                    stats,
                }
            })
            .collect()
    }
}

#[derive(Serialize, Deserialize)]
struct StoredOp {
    seconds: f64,
    ops: u64,
    bytes: u64,
    keys: u64,
    errors: BTreeMap<String, u64>,
    /// Failed attempts that were retried, by class (absent in runs recorded before).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    retried: BTreeMap<String, u64>,
    latency: String,
    ttfb: String,
}

fn labelled(counts: &BTreeMap<ErrorClass, u64>) -> BTreeMap<String, u64> {
    counts.iter().map(|(c, n)| (c.label(), *n)).collect()
}

fn classed(counts: &BTreeMap<String, u64>) -> BTreeMap<ErrorClass, u64> {
    counts
        .iter()
        .map(|(c, n)| (ErrorClass::from_label(c), *n))
        .collect()
}

/// A histogram that cannot be written to or read from its text form.
#[derive(Debug, thiserror::Error)]
enum HistogramText {
    #[error("cannot encode a histogram: {0:?}")]
    Encode(hdrhistogram::serialization::V2DeflateSerializeError),
    #[error("a histogram is not base64: {0}")]
    Base64(#[from] base64::DecodeError),
    #[error("cannot decode a histogram: {0:?}")]
    Decode(hdrhistogram::serialization::DeserializeError),
}

fn encode(h: &Histogram<u64>) -> Result<String, HistogramText> {
    let mut buf = Vec::new();
    V2DeflateSerializer::new()
        .serialize(h, &mut buf)
        .map_err(HistogramText::Encode)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(buf))
}

fn decode(s: &str) -> Result<Histogram<u64>, HistogramText> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(s)?;
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(HistogramText::Decode)
}

pub(crate) fn write(dir: &Path, totals: &RunTotals) -> Result<(), ResultsError> {
    let path = dir.join(TOTALS_FILE);
    let format = |message: String| ResultsError::Format {
        path: path.clone(),
        message,
    };
    let mut out = BTreeMap::new();
    for (op, s) in totals.stats.active() {
        out.insert(
            op,
            StoredOp {
                seconds: totals.seconds[op.index()],
                ops: s.ops,
                bytes: s.bytes,
                keys: s.keys,
                errors: labelled(&s.errors),
                retried: labelled(&s.retried),
                latency: encode(&s.latency).map_err(|e| format(e.to_string()))?,
                ttfb: encode(&s.ttfb).map_err(|e| format(e.to_string()))?,
            },
        );
    }
    let text = serde_json::to_vec_pretty(&out).map_err(|e| format(e.to_string()))?;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|source| ResultsError::Io {
        path: tmp.clone(),
        source,
    })?;
    std::fs::rename(&tmp, &path).map_err(|source| ResultsError::Io {
        path: path.clone(),
        source,
    })
}

/// Reads persisted totals; a run that never finished a phase has none.
pub(crate) fn read(dir: &Path) -> Result<RunTotals, ResultsError> {
    let path = dir.join(TOTALS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(RunTotals::default()),
        Err(source) => return Err(ResultsError::Io { path, source }),
    };
    let format = |message: String| ResultsError::Format {
        path: path.clone(),
        message,
    };
    let stored: BTreeMap<OpKind, StoredOp> =
        serde_json::from_str(&text).map_err(|e| format(e.to_string()))?;
    let mut totals = RunTotals::default();
    for (op, s) in stored {
        totals.seconds[op.index()] = s.seconds;
        *totals.stats.op_mut(op) = OpStats {
            latency: decode(&s.latency).map_err(|e| format(e.to_string()))?,
            ttfb: decode(&s.ttfb).map_err(|e| format(e.to_string()))?,
            ops: s.ops,
            bytes: s.bytes,
            keys: s.keys,
            errors: classed(&s.errors),
            retried: classed(&s.retried),
            schedule_lag: crate::metrics::new_histogram(),
        };
    }
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_survive_a_write_and_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut phase = IntervalStats::default();
        for n in 1..1000u64 {
            phase
                .op_mut(OpKind::Get)
                .record_ok(Duration::from_micros(n * 7), 100);
        }
        phase.op_mut(OpKind::Put).record_error(ErrorClass::SlowDown);
        phase
            .op_mut(OpKind::Put)
            .record_error(ErrorClass::Http(404));
        phase.op_mut(OpKind::Get).record_retry(ErrorClass::Timeout);
        let mut totals = RunTotals::default();
        totals.add_phase(&phase, Duration::from_secs(3));
        write(dir.path(), &totals).unwrap();
        let back = read(dir.path()).unwrap();
        assert_eq!(back.rows(), totals.rows());
        assert_eq!(back.stats.op(OpKind::Get).retries(), 1, "retries are kept");
        assert_eq!(
            back.stats.op(OpKind::Get).latency,
            phase.op(OpKind::Get).latency
        );
    }
}
