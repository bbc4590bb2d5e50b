//! A comparison in one paragraph, as an engineer would write up a study by eye: the
//! throughput ratio of each operation with its interval, the reshards and write stalls
//! each run met with their time, and whether a difference recurs round after round or
//! rests on one round.

use serde::{Deserialize, Serialize};

use super::{Change, RunChanges, RunData, percent};
use crate::{EventReader, Logged, RunEvent, Section};

/// What a run's bucket index did: reshards and write stalls, counted with their time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IndexStory {
    pub reshards: u64,
    /// Seconds from the poll before each reshard to the one that saw it done, added up.
    pub reshard_s: f64,
    pub stalls: u64,
    /// Seconds of stalled writes, added up.
    pub stall_s: f64,
    /// Writes the stalls held (slower than the stall's latency threshold).
    pub held_writes: u64,
    /// The longest a write waited in a stall (µs).
    pub longest_write_us: u64,
}

impl IndexStory {
    /// The reshards and stalls of the run in `dir`, from its event log.
    pub fn read(dir: &std::path::Path) -> IndexStory {
        let mut story = IndexStory::default();
        let Some(mut log) = EventReader::open(dir) else {
            return story;
        };
        while let Some(Logged { event, .. }) = log.next_of(&["reshard", "stall"]) {
            match event {
                RunEvent::Reshard(r) => {
                    story.reshards += 1;
                    story.reshard_s += (r.end_t_s - r.start_t_s).max(0.0);
                }
                RunEvent::Stall(s) => {
                    story.stalls += 1;
                    story.stall_s += (s.end_t_s - s.start_t_s).max(0.0);
                    story.held_writes += s.held_writes;
                    story.longest_write_us = story.longest_write_us.max(s.longest_write_us);
                }
                _ => {}
            }
        }
        story
    }

    /// `4 reshards (12.0 s in all) and 16 write stalls (45.2 s in all; 320 writes held,
    /// the longest 45.0 s)`, or `no reshard and no write stall`.
    pub fn words(&self) -> String {
        let reshards = match self.reshards {
            0 => "no reshard".to_string(),
            n => format!("{n} reshard{} ({:.1} s in all)", plural(n), self.reshard_s),
        };
        let stalls = match self.stalls {
            0 => "no write stall".to_string(),
            n => {
                let held = if self.held_writes > 0 {
                    format!(
                        "; {} write{} held, the longest {}",
                        self.held_writes,
                        plural(self.held_writes),
                        crate::latency_text(self.longest_write_us)
                    )
                } else {
                    String::new()
                };
                format!(
                    "{n} write stall{} ({:.1} s in all{held})",
                    plural(n),
                    self.stall_s
                )
            }
        };
        format!("{reshards} and {stalls}")
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

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
    sentences.extend(round_sentences(base, new, floor));
    sentences.join(" ")
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
/// round by round, and in how many rounds it went past the floor the same way.
fn round_sentences(base: &RunData, new: &RunData, floor: f64) -> Vec<String> {
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
        let recurs = match (up, down) {
            (0, 0) => "within the noise floor in every round".to_string(),
            (u, 0) if u == ratios.len() => "higher in every round".to_string(),
            (0, d) if d == ratios.len() => "lower in every round".to_string(),
            (u, d) => format!(
                "higher in {u} and lower in {d} of {} rounds: it does not recur",
                ratios.len()
            ),
        };
        out.push(format!(
            "{} {} throughput round by round: {} — {recurs}.",
            r.phase,
            r.op.as_str(),
            each.join(", ")
        ));
    }
    out
}
