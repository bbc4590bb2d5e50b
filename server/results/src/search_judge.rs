//! Whether one step of a search for the sustainable rate passed, judged on its rows
//! (one process's, or the shards' merged): every SLO held, the client sent ≥ 99 % of
//! its rate and the store answered ≥ 97 % of it. The run that searches and the
//! controller of a search over agents judge with this one rule.

use crate::summary::{OpenLoop, SummaryRow};
use crate::threshold::Threshold;

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

/// Whether the step `name` with rows `rows` passed; `timed`: it is a `duration` step.
/// A step without open-loop figures did not run as a step: none.
pub fn step_passed(
    name: &str,
    rows: &[&SummaryRow],
    slos: &[Threshold],
    timed: bool,
) -> Option<bool> {
    let open = rows.iter().find_map(|r| r.open_loop)?;
    Some(
        sent_its_rate(rows, open, timed)
            && answered_its_rate(rows, open)
            && keeps(slos, name, rows),
    )
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

/// Whether a step kept every SLO (one about an operation the step did not run holds).
fn keeps(slos: &[Threshold], name: &str, rows: &[&SummaryRow]) -> bool {
    slos.iter()
        .all(|t| t.check(name, rows).is_none_or(|c| c.passed))
}
