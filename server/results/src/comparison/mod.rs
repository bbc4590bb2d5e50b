//! Runs compared, each metric's change judged rather than just computed: for every
//! phase × round × operation that two runs share (and for a round phase's rounds
//! together), throughput, bandwidth, latency percentiles, error and tail shares, each
//! as a ratio new ÷ base with its 95 % interval and a verdict against a noise floor
//! ([`judge`]). The intervals come from each run's own seconds ([`crate::uncertainty`]);
//! a round's change is judged against the spread between rounds too
//! ([`round_spread`]); a percentile that was mostly an open loop's schedule lag is
//! marked and not judged.
//! One implementation for `keystorm compare`, the API and the compare page.

mod index_story;
pub mod judge;
pub mod metric;
pub mod round_spread;
mod searches;
pub mod story;
mod types;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use keystorm_types::OpKind;

pub use index_story::IndexStory;
pub use judge::{Verdict, percent};
pub use metric::{Better, METRIC_NAMES, Metric, SUSTAINABLE_RATE, known_name};
pub use types::{Change, Comparison, RunChanges, RunData, RunLabel, VerdictCounts};

use crate::uncertainty::{self, Draws, Estimate, TooFew};
use crate::{ResultsError, Section, SummaryRow};

/// The default noise floor: changes within ±2 % are no change.
pub const DEFAULT_NOISE_FLOOR: f64 = 0.02;
/// A percentile is judged only where each run timed at least this many operations
/// beyond it: p99.9 of 12,000 operations rests on its 12 slowest, and resampling so
/// few says little about where they would fall next time (it calls changes that are
/// not there).
pub const MIN_TAIL_OPS: f64 = 50.0;
/// A percentile is mostly schedule lag when the lag at it is at least this share of
/// the latency at it (as the run page marks it).
pub const MOSTLY_LAG: f64 = 0.5;

/// What to compare and how strictly.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// Changes within ± this share are no change (0.02 is ±2 %).
    pub noise_floor: f64,
    /// Judge only these metrics (names as [`Metric::name`]; `tails` for every mark);
    /// empty is all.
    pub metrics: Vec<String>,
    /// Judge only these operations; empty is all.
    pub ops: Vec<OpKind>,
    /// The marks tails are counted at (µs); by default the base run's own (its
    /// workload's `tail_marks`), else 1 s and 10 s.
    pub tail_marks_us: Vec<u64>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            noise_floor: DEFAULT_NOISE_FLOOR,
            metrics: Vec::new(),
            ops: Vec::new(),
            tail_marks_us: crate::tail_marks::DEFAULT_TAIL_MARKS_US.to_vec(),
        }
    }
}

/// A name of `metrics` or `ops` that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    #[error("{0:?} is not a metric: use {METRIC_NAMES} (or one tail mark, e.g. over_1s)")]
    Metric(String),
    #[error("{0:?} is not an operation: use put, get, head, list or delete")]
    Op(String),
}

impl CompareOptions {
    /// The options of a noise floor and metric and operation names as given (on the
    /// command line, in a query), every name checked.
    pub fn from_names(
        noise_floor: f64,
        metrics: &[String],
        ops: &[String],
    ) -> Result<CompareOptions, OptionError> {
        let options = CompareOptions::default();
        if let Some(bad) = metrics
            .iter()
            .find(|m| !known_name(m, &options.tail_marks_us))
        {
            return Err(OptionError::Metric(bad.clone()));
        }
        let ops = ops
            .iter()
            .map(|o| OpKind::parse(o).ok_or_else(|| OptionError::Op(o.clone())))
            .collect::<Result<_, _>>()?;
        Ok(CompareOptions {
            noise_floor,
            metrics: metrics.to_vec(),
            ops,
            ..options
        })
    }
}

/// The runs in `new_dirs` compared with the run in `base_dir`.
pub fn compare_dirs(
    base_dir: &Path,
    new_dirs: &[PathBuf],
    options: &CompareOptions,
) -> Result<Comparison, ResultsError> {
    let base = RunData::read(base_dir)?;
    let news = new_dirs
        .iter()
        .map(|d| RunData::read(d))
        .collect::<Result<Vec<_>, _>>()?;
    let own_marks = base
        .rows
        .iter()
        .find_map(|r| r.stats.latency_us.slower_than.marks());
    match own_marks {
        Some(marks) if options.tail_marks_us == crate::tail_marks::DEFAULT_TAIL_MARKS_US => {
            let options = CompareOptions {
                tail_marks_us: marks.as_us().to_vec(),
                ..options.clone()
            };
            Ok(compare(&base, &news, &options))
        }
        _ => Ok(compare(&base, &news, options)),
    }
}

/// What a row of the comparison is: a phase × round × operation, or a round phase's
/// rounds together (`round` none, `all_rounds`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    section: Section,
    round: Option<u32>,
    all_rounds: bool,
    phase: String,
    op: OpKind,
    /// For the rounds together of two runs: the rounds both finished (empty until
    /// [`Key::spanning`] says).
    rounds: Vec<u32>,
}

impl Key {
    /// The key as judged between `base` and `new`: the rounds together only over the
    /// rounds both runs finished (a run stopped in round 2 is not set against another's
    /// four rounds), and not at all where they share fewer than 2 (their rounds are
    /// judged one by one).
    fn spanning(&self, base: &RunData, new: &RunData) -> Option<Key> {
        if !self.all_rounds {
            return Some(self.clone());
        }
        let theirs = self.rounds_in(new);
        let rounds: Vec<u32> = self
            .rounds_in(base)
            .into_iter()
            .filter(|r| theirs.contains(r))
            .collect();
        (rounds.len() >= 2).then(|| Key {
            rounds,
            ..self.clone()
        })
    }

    /// The rounds in which `run` finished this phase × operation (a round cut short by
    /// a kill has seconds but no row).
    fn rounds_in(&self, run: &RunData) -> Vec<u32> {
        let mut rounds: Vec<u32> = run
            .rows
            .iter()
            .filter(|r| r.section == Section::Round && r.phase == self.phase && r.op == self.op)
            .filter_map(|r| r.round)
            .collect();
        rounds.sort_unstable();
        rounds.dedup();
        rounds
    }

    /// For rounds together spanning fewer rounds than a run measured, which rounds
    /// they are: `over rounds 1–2, the rounds both runs finished`.
    fn spanned_words(&self, base: &RunData, new: &RunData) -> Option<String> {
        let all = |run: &RunData| self.rounds_in(run).len();
        let (first, last) = (self.rounds.first()?, self.rounds.last()?);
        (self.all_rounds && (self.rounds.len() < all(base) || self.rounds.len() < all(new)))
            .then(|| format!("over rounds {first}–{last}, the rounds both runs finished"))
    }

    fn words(&self) -> String {
        let place = if self.all_rounds {
            format!("{} (all rounds)", self.phase)
        } else {
            crate::place_words(self.section, self.round, &self.phase)
        };
        format!("{place} {}", self.op.as_str())
    }
}

/// The rows of a run in comparison order: per round where a phase has rounds, then
/// each round phase's rounds together, then what ran after.
fn keys_of(rows: &[SummaryRow]) -> Vec<Key> {
    let mut keys: Vec<Key> = Vec::new();
    let mut together: Vec<Key> = Vec::new();
    for r in rows {
        let key = Key {
            section: r.section,
            round: r.round,
            all_rounds: false,
            phase: r.phase.clone(),
            op: r.op,
            rounds: Vec::new(),
        };
        if r.section == Section::Round {
            let all = Key {
                round: None,
                all_rounds: true,
                ..key.clone()
            };
            if !together.contains(&all) {
                together.push(all);
            }
        } else if r.section == Section::After && !together.is_empty() {
            keys.append(&mut together);
        }
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.append(&mut together);
    keys
}

/// The runs compared with `base`.
pub fn compare(base: &RunData, news: &[RunData], options: &CompareOptions) -> Comparison {
    let marks = &options.tail_marks_us[..options
        .tail_marks_us
        .len()
        .min(uncertainty::resample::MAX_MARKS)];
    let wanted_op = |op: &OpKind| options.ops.is_empty() || options.ops.contains(op);
    let base_keys: Vec<Key> = keys_of(&base.rows)
        .into_iter()
        .filter(|k| wanted_op(&k.op))
        .collect();
    let mut base_draws: HashMap<Key, Result<Draws, TooFew>> = HashMap::new();
    let runs = news
        .iter()
        .enumerate()
        .map(|(i, new)| {
            let new_keys: Vec<Key> = keys_of(&new.rows)
                .into_iter()
                .filter(|k| wanted_op(&k.op))
                .collect();
            let mut changes = Vec::new();
            let shared = base_keys.iter().filter(|k| new_keys.contains(k));
            for key in shared.filter_map(|k| k.spanning(base, new)) {
                let key = &key;
                let b = base_draws
                    .entry(key.clone())
                    .or_insert_with(|| draws_of(base, key, marks, uncertainty::SEED));
                let n = draws_of(new, key, marks, uncertainty::SEED + 1 + i as u64);
                let judged = judge_key(key, b, &n, base, new, marks, options);
                let said = key.spanned_words(base, new);
                changes.extend(judged.into_iter().map(|mut c| {
                    if let Some(said) = &said {
                        c.why = format!("{} ({said})", c.why);
                    }
                    c
                }));
            }
            round_spread::widen_rounds(&mut changes, options.noise_floor);
            if options.metrics.is_empty() || options.metrics.iter().any(|m| m == SUSTAINABLE_RATE) {
                changes.extend(
                    searches::search_changes(base, new, options.noise_floor)
                        .into_iter()
                        .filter(|c| wanted_op(&c.op)),
                );
            }
            let mut counts = VerdictCounts::default();
            for c in &changes {
                match c.verdict {
                    Verdict::Improved => counts.improved += 1,
                    Verdict::Regressed => counts.regressed += 1,
                    Verdict::NoChange => counts.no_change += 1,
                    Verdict::Inconclusive => counts.inconclusive += 1,
                    Verdict::Lag => counts.not_judged += 1,
                }
            }
            let mut run = RunChanges {
                run: new.label.clone(),
                paragraph: String::new(),
                index: new.index,
                counts,
                changes,
                only_in_base: base_keys
                    .iter()
                    .filter(|k| !new_keys.contains(k))
                    .map(Key::words)
                    .collect(),
                only_in_new: new_keys
                    .iter()
                    .filter(|k| !base_keys.contains(k))
                    .map(Key::words)
                    .collect(),
            };
            run.paragraph = story::paragraph(base, new, &run, options.noise_floor);
            run
        })
        .collect();
    Comparison {
        base: base.label.clone(),
        base_index: base.index,
        noise_floor: options.noise_floor,
        confidence: 0.95,
        tail_marks_us: marks.to_vec(),
        runs,
    }
}

/// A key's draws in one run: a round's or a phase's seconds, or those of the rounds the
/// key spans.
fn draws_of(run: &RunData, key: &Key, marks: &[u64], seed: u64) -> Result<Draws, TooFew> {
    if key.all_rounds {
        let rounds: Vec<&[uncertainty::Second]> = key
            .rounds
            .iter()
            .map(|&r| run.seconds.of(Section::Round, Some(r), &key.phase))
            .collect();
        uncertainty::draws(&rounds, key.op, marks, seed)
    } else {
        let seconds = run.seconds.of(key.section, key.round, &key.phase);
        uncertainty::draws(&[seconds], key.op, marks, seed)
    }
}

/// The rows a key stands for in a run (for `all_rounds`, those of the rounds it spans).
fn rows_of<'a>(run: &'a RunData, key: &'a Key) -> impl Iterator<Item = &'a SummaryRow> {
    run.rows.iter().filter(move |r| {
        r.section == key.section
            && r.phase == key.phase
            && r.op == key.op
            && if key.all_rounds {
                r.round.is_some_and(|n| key.rounds.contains(&n))
            } else {
                r.round == key.round
            }
    })
}

/// Whether a percentile of a key was mostly schedule lag in any of its rows.
fn mostly_lag(run: &RunData, key: &Key, q: metric::LagQuantile) -> bool {
    rows_of(run, key).any(|r| {
        let Some(lag) = r.stats.schedule_lag_us else {
            return false;
        };
        let l = &r.stats.latency_us;
        let (lag, latency) = match q {
            metric::LagQuantile::P50 => (lag.p50, l.p50),
            metric::LagQuantile::P99 => (lag.p99, l.p99),
            metric::LagQuantile::P999 => (lag.p999, l.p999),
        };
        latency > 0 && lag as f64 >= MOSTLY_LAG * latency as f64
    })
}

/// The metrics of one key judged (those `options` asks for and the runs have).
fn judge_key(
    key: &Key,
    base_draws: &Result<Draws, TooFew>,
    new_draws: &Result<Draws, TooFew>,
    base: &RunData,
    new: &RunData,
    marks: &[u64],
    options: &CompareOptions,
) -> Vec<Change> {
    let figure = |run: &RunData, f: fn(&SummaryRow) -> f64| rows_of(run, key).map(f).sum::<f64>();
    let moved_bytes =
        figure(base, |r| r.stats.bytes as f64) + figure(new, |r| r.stats.bytes as f64) > 0.0;
    let failed =
        figure(base, |r| r.stats.errors as f64) + figure(new, |r| r.stats.errors as f64) > 0.0;
    let timed = figure(base, |r| r.stats.latency_us.max as f64) > 0.0;
    let mut metrics = vec![Metric::OpsPerSec];
    if moved_bytes {
        metrics.push(Metric::MibPerSec);
    }
    if timed {
        metrics.extend([Metric::P50, Metric::P99, Metric::P999]);
    }
    if failed {
        metrics.push(Metric::ErrorRate);
    }
    for (at, &mark_us) in marks.iter().enumerate() {
        let slow =
            |d: &Result<Draws, TooFew>| d.as_ref().is_ok_and(|d| d.estimate.slow_share[at] > 0.0);
        if slow(base_draws) || slow(new_draws) {
            metrics.push(Metric::Slow { mark_us, at });
        }
    }
    metrics
        .into_iter()
        .filter(|m| options.metrics.is_empty() || m.named_in(&options.metrics))
        .map(|metric| {
            let mut change = Change {
                section: key.section,
                round: key.round,
                all_rounds: key.all_rounds,
                phase: key.phase.clone(),
                op: key.op,
                metric: metric.name(),
                better: metric.better(),
                base: base_draws
                    .as_ref()
                    .ok()
                    .map(|d| Estimate::of(d, |f| metric.of(f))),
                new: new_draws
                    .as_ref()
                    .ok()
                    .map(|d| Estimate::of(d, |f| metric.of(f))),
                ratio: None,
                verdict: Verdict::Inconclusive,
                why: String::new(),
            };
            if let Some(q) = metric.percentile()
                && (mostly_lag(base, key, q) || mostly_lag(new, key, q))
            {
                change.verdict = Verdict::Lag;
                change.why = "mostly the client's schedule lag (an open loop that could not \
                              send on time), not the store's latency"
                    .into();
                return change;
            }
            if let (Some(q), Ok(b), Ok(n)) = (metric.percentile(), base_draws, new_draws)
                && let Some(why) = too_few_beyond(q, &metric.name(), b, n)
            {
                change.why = why;
                return change;
            }
            match (base_draws, new_draws) {
                (Ok(b), Ok(n)) => {
                    let judged = judge::judge(metric, b, n, options.noise_floor);
                    change.ratio = judged.ratio;
                    change.verdict = judged.verdict;
                    change.why = judged.why;
                    let rounds = b.rounds.min(n.rounds);
                    if key.all_rounds && rounds >= uncertainty::MIN_ROUNDS {
                        round_spread::widen_few_rounds(&mut change, rounds, options.noise_floor);
                    }
                }
                (Err(e), _) => change.why = format!("base: {e}"),
                (_, Err(e)) => change.why = format!("new: {e}"),
            }
            change
        })
        .collect()
}

/// Why a percentile cannot be judged from so few operations beyond it, if so.
fn too_few_beyond(q: metric::LagQuantile, name: &str, base: &Draws, new: &Draws) -> Option<String> {
    let beyond = |d: &Draws| d.timed as f64 * (1.0 - q.share());
    let fewer = if beyond(base) <= beyond(new) {
        base
    } else {
        new
    };
    if beyond(fewer) >= MIN_TAIL_OPS {
        return None;
    }
    let needed = (MIN_TAIL_OPS / (1.0 - q.share())).ceil() as u64;
    Some(format!(
        "{name} of {} operations rests on its {} slowest; judging it needs at least {needed} \
         operations in each run",
        fewer.timed,
        beyond(fewer).floor() as u64
    ))
}

#[cfg(test)]
mod tests;
