//! Whether one step of a search for the sustainable rate passed, judged on its rows
//! (one process's, or the shards' merged): every SLO held, the client sent ≥ 99 % of
//! its rate and the store answered ≥ 97 % of it; and a step that failed, on whose side
//! (the client's when its requests left late). The run that searches and the
//! controller of a search over agents judge with this one rule.

use crate::search_result::FailedBy;
use crate::summary::{OpenLoop, SummaryRow};
use crate::threshold::{Metric, Threshold};

/// A step passes when it sent at least this share of its rate: of the requests due by
/// the end of a `duration` step (those left unsent are its backlog), or of the rate
/// over the measured time of an `operations` step.
pub const SENT_AT_LEAST: f64 = 0.99;

/// A step passes when the store answered at least this share of its rate a second over
/// the step's measured time: a store that falls behind (its queue growing) answers
/// less than it is asked, however the SLO stands after a short step. (The measured
/// time ends with the last answer, which costs a short step about its latency over
/// its duration.)
pub const ANSWERED_AT_LEAST: f64 = 0.97;

/// How a step of a search came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOutcome {
    Passed,
    Failed(FailedBy),
}

impl StepOutcome {
    pub fn passed(self) -> bool {
        self == StepOutcome::Passed
    }

    pub fn failed_by(self) -> Option<FailedBy> {
        match self {
            StepOutcome::Passed => None,
            StepOutcome::Failed(by) => Some(by),
        }
    }
}

/// How the step `name` with rows `rows` came out; `timed`: it is a `duration` step;
/// `workers`: the step's workers, of every shard (0: not known). A step without
/// open-loop figures did not run as a step: none.
///
/// A failed step is the client's when it fell behind as the schedule note says "the
/// client could not keep up" — it sent less than was due, its requests leaving late (a
/// tenth of their median latency or more, which open-loop latency counts, so a latency
/// SLO it broke is put down to it too) — while its workers were mostly not waiting on the
/// store: fewer requests were in flight on average (the rate answered times the time
/// each took once sent, by Little's law) than half its workers. Workers busy with a
/// slow store make that the store's latency showing, as does any other
/// failure: an SLO on errors or throughput, too few answers with the rate sent, a rate
/// not sent with requests leaving on time.
pub fn judge_step(
    name: &str,
    rows: &[&SummaryRow],
    slos: &[Threshold],
    timed: bool,
    workers: u32,
) -> Option<StepOutcome> {
    let open = rows.iter().find_map(|r| r.open_loop)?;
    let sent = sent_its_rate(rows, open, timed);
    let answered = answered_its_rate(rows, open);
    let broken: Vec<&Threshold> = slos
        .iter()
        .filter(|t| t.check(name, rows).is_some_and(|c| !c.passed))
        .collect();
    if sent && answered && broken.is_empty() {
        return Some(StepOutcome::Passed);
    }
    let late = crate::verdict::worst_lag(rows.iter().copied()).is_some_and(|l| l.matters());
    let only_latency = broken
        .iter()
        .all(|t| matches!(t.metric, Metric::Latency(_)));
    let idle_workers = in_flight(rows) < WORKERS_BUSY * f64::from(workers);
    let clients = late && !sent && only_latency && idle_workers;
    Some(StepOutcome::Failed(if clients {
        FailedBy::Client
    } else {
        FailedBy::Store
    }))
}

/// A step whose requests in flight averaged this share of its workers or more had its
/// workers waiting on the store: at the end of a step past the store's rate every
/// worker is busy, though the average over the step, from all free at its start, can
/// be half that.
pub const WORKERS_BUSY: f64 = 0.5;

/// Requests in flight on average over the rows' measured time: each operation's
/// answers a second times the mean time one took from leaving to its answer (its
/// latency, counted from its scheduled time, less how late it left).
fn in_flight(rows: &[&SummaryRow]) -> f64 {
    rows.iter()
        .filter(|r| r.duration_s > 0.0)
        .map(|r| {
            let s = &r.stats;
            let lag = s.schedule_lag_us.as_ref().map_or(0.0, |l| l.mean);
            let service_s = (s.latency_us.mean - lag).max(0.0) / 1e6;
            (s.ops + s.errors) as f64 / r.duration_s * service_s
        })
        .sum()
}

/// Whether a step sent its rate: for a `duration` step (`timed`), the requests due by
/// its end less those never sent (the measured time also holds the last answers'
/// latency, which would count against a short step's rate); else the rate sent over
/// its measured time.
fn sent_its_rate(rows: &[&SummaryRow], open: OpenLoop, timed: bool) -> bool {
    if timed {
        let sent: u64 = rows.iter().map(|r| r.stats.ops + r.stats.errors).sum();
        let due = sent + open.backlog;
        due > 0 && sent as f64 >= SENT_AT_LEAST * due as f64
    } else {
        open.asked_per_sec > 0.0 && open.sent_per_sec >= SENT_AT_LEAST * open.asked_per_sec
    }
}

/// Whether the store answered the step's rate: every answer (errors too) per measured
/// second, against the rate asked.
fn answered_its_rate(rows: &[&SummaryRow], open: OpenLoop) -> bool {
    let answered: f64 = rows
        .iter()
        .filter(|r| r.duration_s > 0.0)
        .map(|r| (r.stats.ops + r.stats.errors) as f64 / r.duration_s)
        .sum();
    answered >= ANSWERED_AT_LEAST * open.asked_per_sec
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Percentiles;

    /// A 10-second `duration` step asked for 1,000 PUTs a second, of which `answered`
    /// were sent and answered (the rest never sent), each taking `latency_ms` from its
    /// scheduled time after leaving `lag_ms` late (mean and median alike), with
    /// `errors` of them failed.
    fn step(answered: u64, latency_ms: f64, lag_ms: f64, errors: u64) -> SummaryRow {
        let mut row = SummaryRow::for_test("put@1000");
        row.duration_s = 10.0;
        row.stats.ops = answered - errors;
        row.stats.errors = errors;
        row.stats.error_rate = errors as f64 / answered as f64;
        let at = |ms: f64| Percentiles {
            mean: ms * 1000.0,
            p50: (ms * 1000.0) as u64,
            p90: (ms * 1000.0) as u64,
            p99: (ms * 1000.0) as u64,
            ..Default::default()
        };
        row.stats.latency_us = at(latency_ms);
        row.stats.schedule_lag_us = Some(at(lag_ms));
        row.open_loop = Some(OpenLoop {
            asked_per_sec: 1000.0,
            sent_per_sec: answered as f64 / 10.0,
            backlog: 10_000 - answered,
        });
        row
    }

    fn judged(row: &SummaryRow, slos: &[&str], workers: u32) -> StepOutcome {
        let slos: Vec<Threshold> = slos.iter().map(|t| t.parse().unwrap()).collect();
        judge_step("put@1000", &[row], &slos, true, workers).unwrap()
    }

    #[test]
    fn a_step_that_sent_its_rate_on_time_within_its_slo_passes() {
        let row = step(10_000, 2.0, 0.01, 0);
        assert_eq!(judged(&row, &["put.p99 < 50ms"], 64), StepOutcome::Passed);
        // The same step past its SLO failed on the store's side: requests left on time.
        assert_eq!(
            judged(&row, &["put.p99 < 1ms"], 64),
            StepOutcome::Failed(FailedBy::Store)
        );
    }

    #[test]
    fn a_client_that_sent_late_with_workers_to_spare_failed_on_its_own_side() {
        // 600 a second sent, 2 ms late at the median, answered 1 ms after leaving: 0.6
        // requests in flight on average, of 64 workers. Its latency SLO broke too, on
        // the lateness it counts.
        let starved = step(6_000, 3.0, 2.0, 0);
        assert_eq!(
            judged(&starved, &["put.p99 < 2ms"], 64),
            StepOutcome::Failed(FailedBy::Client)
        );
        // With the number of workers not known, it is not put down to the client.
        assert_eq!(
            judged(&starved, &["put.p99 < 2ms"], 0),
            StepOutcome::Failed(FailedBy::Store)
        );
        // Errors are the store's, however late the client was.
        let failing = step(6_000, 3.0, 2.0, 600);
        assert_eq!(
            judged(&failing, &["errors.rate < 1%"], 64),
            StepOutcome::Failed(FailedBy::Store)
        );
    }

    #[test]
    fn workers_all_waiting_on_a_slow_store_make_a_late_step_the_stores() {
        // 400 a second answered 160 ms after leaving: 64 in flight, every worker busy,
        // so requests left 40 ms late: the store's latency, not the client, held them.
        let saturated = step(4_000, 200.0, 40.0, 0);
        assert_eq!(
            judged(&saturated, &["put.p99 < 500ms"], 64),
            StepOutcome::Failed(FailedBy::Store)
        );
        // Given 256 workers, a quarter of them busy: the client fell behind on its own.
        assert_eq!(
            judged(&saturated, &["put.p99 < 500ms"], 256),
            StepOutcome::Failed(FailedBy::Client)
        );
    }
}
