//! A comparison in one paragraph, as an engineer would write up a study by eye: the
//! throughput ratio of each operation with its interval, the reshards and write stalls
//! each run met with their time, and whether a difference recurs round after round or
//! rests on one round.

use super::index_story::IndexStory;
use super::judge::{Verdict, percent};
use super::types::{Change, RunChanges, RunData};
use crate::{ClockSource, Section};

/// The paragraph of one run against the base.
pub fn paragraph(base: &RunData, new: &RunData, changes: &RunChanges, floor: f64) -> String {
    let mut sentences = Vec::new();
    let throughput: Vec<&Change> = changes
        .changes
        .iter()
        .filter(|c| c.metric == "ops_per_sec")
        .filter(|c| c.all_rounds || c.section != Section::Round)
        .collect();
    if !throughput.is_empty() {
        let said: Vec<String> = throughput.iter().map(|c| ratio_words(c)).collect();
        sentences.push(format!(
            "Throughput of {} against {}: {}.",
            new.label.run_id,
            base.label.run_id,
            said.join("; ")
        ));
    }
    if base.index != IndexStory::default() || new.index != IndexStory::default() {
        sentences.push(format!(
            "{} met {}; {} met {}.",
            base.label.run_id,
            base.index.words(),
            new.label.run_id,
            new.index.words()
        ));
    }
    sentences.extend(round_sentences(base, new, changes, floor));
    if base.clock != new.clock {
        sentences.push(format!(
            "Their latencies end on different clocks ({}: {}; {}: {}): latencies differ by \
             how long the client took to see each response as well, tens of microseconds \
             on an idle or busy client, besides any change of the store.",
            base.label.run_id,
            clock_words(base.clock),
            new.label.run_id,
            clock_words(new.clock)
        ));
    }
    sentences.join(" ")
}

fn clock_words(clock: ClockSource) -> &'static str {
    match clock {
        ClockSource::Socket => "when the response reached the socket",
        ClockSource::User => "when the client saw the response",
    }
}

/// `round write put ×2.41 (×2.10 to ×2.80), improved`.
fn ratio_words(c: &Change) -> String {
    let place = if c.all_rounds {
        format!("{} (rounds together)", c.phase)
    } else {
        crate::place_words(c.section, c.round, &c.phase)
    };
    match c.ratio {
        Some(r) => format!(
            "{place} {} {} ({} to {}), {}",
            c.op.as_str(),
            percent(r.value),
            percent(r.low),
            percent(r.high),
            c.verdict.as_str()
        ),
        None => format!(
            "{place} {}: {} ({})",
            c.op.as_str(),
            c.verdict.as_str(),
            c.why
        ),
    }
}

/// For each round phase and operation both runs ran in several rounds: the change
/// round by round, in how many rounds it went past the floor the same way, and in how
/// many of them it was judged a change (a round may go past the floor and still lie
/// within its interval).
fn round_sentences(base: &RunData, new: &RunData, changes: &RunChanges, floor: f64) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: Vec<(&str, keystorm_types::OpKind)> = Vec::new();
    for r in base.rows.iter().filter(|r| r.section == Section::Round) {
        if seen.contains(&(r.phase.as_str(), r.op)) {
            continue;
        }
        seen.push((r.phase.as_str(), r.op));
        let ratios: Vec<f64> = base
            .rows
            .iter()
            .filter(|b| b.section == Section::Round && b.phase == r.phase && b.op == r.op)
            .filter_map(|b| {
                let n = new.rows.iter().find(|n| {
                    n.section == Section::Round
                        && n.round == b.round
                        && n.phase == b.phase
                        && n.op == b.op
                })?;
                (b.stats.ops_per_sec > 0.0).then(|| n.stats.ops_per_sec / b.stats.ops_per_sec)
            })
            .collect();
        if ratios.len() < 2 {
            continue;
        }
        let up = ratios.iter().filter(|x| **x > 1.0 + floor).count();
        let down = ratios.iter().filter(|x| **x < 1.0 - floor).count();
        let each: Vec<String> = ratios.iter().map(|x| percent(*x)).collect();
        let n = ratios.len();
        let recurs = match (up, down) {
            (0, 0) => "within the noise floor in every round".to_string(),
            (u, 0) if u == n => "higher in every round".to_string(),
            (0, d) if d == n => "lower in every round".to_string(),
            (u, d) => {
                let mut parts = Vec::new();
                if u > 0 {
                    parts.push(format!("higher in {u}"));
                }
                if d > 0 {
                    parts.push(format!("lower in {d}"));
                }
                if n - u - d > 0 {
                    parts.push(format!("within the floor in {}", n - u - d));
                }
                format!("{} of {n} rounds: it does not recur", parts.join(", "))
            }
        };
        let rounds_judged: Vec<&Change> = changes
            .changes
            .iter()
            .filter(|c| {
                c.section == Section::Round
                    && !c.all_rounds
                    && c.phase == r.phase
                    && c.op == r.op
                    && c.metric == "ops_per_sec"
            })
            .collect();
        let judged = rounds_judged
            .iter()
            .filter(|c| matches!(c.verdict, Verdict::Improved | Verdict::Regressed))
            .count();
        out.push(format!(
            "{} {} throughput round by round: {} — {recurs}; judged a change in {judged} of {}.",
            r.phase,
            r.op.as_str(),
            each.join(", "),
            rounds_judged.len()
        ));
    }
    out
}
