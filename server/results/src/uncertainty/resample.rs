//! The bootstrap itself: a phase's figures (throughput, bandwidth, latency percentiles,
//! error and tail shares) computed again on many resamples of its seconds. Seconds are
//! drawn in blocks of consecutive ones (a moving-block bootstrap, about the cube root
//! of their number long, so a burst or a slow drift that spans seconds stays
//! together); where a figure spans several rounds, the rounds are drawn first and each
//! drawn round's seconds are then resampled within it. Latency is resampled exactly:
//! the drawn seconds' histograms are added up and the percentile read from the sum,
//! never an average of percentiles.

use keystorm_types::OpKind;

use super::seconds::Second;

/// Resamples drawn.
pub const RESAMPLES: usize = 500;
/// Fewer measured seconds than this (in one round or one phase) give no interval.
pub const MIN_SECONDS: usize = 10;
/// A figure over this many rounds or more resamples the rounds themselves.
pub const MIN_ROUNDS: usize = 3;

/// What a phase's operation did, in the figures compared and shown.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    pub ops_per_sec: f64,
    pub mib_per_sec: f64,
    /// Latency percentiles (µs); 0 without a latency histogram.
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    /// Failed operations as a share of all.
    pub error_rate: f64,
    /// Operations at or over each tail mark, as a share of the timed ones.
    pub slow_share: [f64; MAX_MARKS],
}

/// Tail marks a figure set has room for.
pub const MAX_MARKS: usize = 4;

/// Why a figure has no interval.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TooFew {
    #[error("{have} measured second{}; an interval needs at least {need}", if *have == 1 { "" } else { "s" })]
    Seconds { have: usize, need: usize },
    #[error(
        "{rounds} rounds of {seconds} measured seconds in all; an interval needs {MIN_ROUNDS} \
         rounds or {MIN_SECONDS} seconds"
    )]
    Rounds { rounds: usize, seconds: usize },
    #[error("no operation measured")]
    Nothing,
}

/// A figure set, and the same figures on each resample.
#[derive(Debug, Clone)]
pub struct Draws {
    pub estimate: Figures,
    pub resamples: Vec<Figures>,
    /// Seconds (points) the figures come from, in all rounds.
    pub seconds: usize,
    pub rounds: usize,
    /// Operations timed (in the latency histograms), in all rounds.
    pub timed: u64,
}

/// Sums of drawn seconds, with their latency counts on the phase's own value scale.
struct Totals<'a> {
    values: &'a [u64],
    counts: Vec<u64>,
    ops: u64,
    errors: u64,
    bytes: u64,
    time: f64,
}

impl<'a> Totals<'a> {
    fn new(values: &'a [u64]) -> Self {
        Totals {
            values,
            counts: vec![0; values.len()],
            ops: 0,
            errors: 0,
            bytes: 0,
            time: 0.0,
        }
    }

    fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        (self.ops, self.errors, self.bytes, self.time) = (0, 0, 0, 0.0);
    }

    fn add(&mut self, s: &Indexed) {
        self.ops += s.ops;
        self.errors += s.errors;
        self.bytes += s.bytes;
        self.time += s.duration_s;
        for &(i, c) in &s.latency {
            self.counts[i as usize] += c;
        }
    }

    fn figures(&self, marks_us: &[u64]) -> Figures {
        let per_time = |v: f64| if self.time > 0.0 { v / self.time } else { 0.0 };
        let timed: u64 = self.counts.iter().sum();
        let at = |q: f64| {
            if timed == 0 {
                return 0.0;
            }
            // The value whose bucket holds the q-th operation, as HdrHistogram reads it.
            let wanted = ((q * timed as f64).ceil() as u64).clamp(1, timed);
            let mut seen = 0;
            for (i, c) in self.counts.iter().enumerate() {
                seen += c;
                if seen >= wanted {
                    return self.values[i] as f64;
                }
            }
            self.values.last().map_or(0.0, |v| *v as f64)
        };
        let mut slow_share = [0.0; MAX_MARKS];
        for (share, mark) in slow_share.iter_mut().zip(marks_us) {
            let from = self.values.partition_point(|v| v < mark);
            let slow: u64 = self.counts[from..].iter().sum();
            *share = if timed > 0 {
                slow as f64 / timed as f64
            } else {
                0.0
            };
        }
        let all = self.ops + self.errors;
        Figures {
            ops_per_sec: per_time(self.ops as f64),
            mib_per_sec: per_time(self.bytes as f64 / 1_048_576.0),
            p50_us: at(0.5),
            p99_us: at(0.99),
            p999_us: at(0.999),
            error_rate: if all > 0 {
                self.errors as f64 / all as f64
            } else {
                0.0
            },
            slow_share,
        }
    }
}

/// One second of one operation, its latency on the phase's value scale.
struct Indexed {
    ops: u64,
    errors: u64,
    bytes: u64,
    duration_s: f64,
    latency: Vec<(u32, u64)>,
}

/// The figures of `op` over `rounds` (each a round's seconds, or the one list of a
/// phase without rounds) and on [`RESAMPLES`] resamples of them, drawn with `seed`
/// (two runs compared must be drawn with different seeds); tails counted at
/// `marks_us` (at most [`MAX_MARKS`]).
pub fn draws(
    rounds: &[&[Second]],
    op: OpKind,
    marks_us: &[u64],
    seed: u64,
) -> Result<Draws, TooFew> {
    let seconds: usize = rounds.iter().map(|r| r.len()).sum();
    let judged_by_rounds = rounds.len() >= MIN_ROUNDS;
    if !judged_by_rounds && seconds < MIN_SECONDS {
        return Err(if rounds.len() > 1 {
            TooFew::Rounds {
                rounds: rounds.len(),
                seconds,
            }
        } else {
            TooFew::Seconds {
                have: seconds,
                need: MIN_SECONDS,
            }
        });
    }
    let mut values: Vec<u64> = rounds
        .iter()
        .flat_map(|r| r.iter())
        .filter_map(|s| s.ops.get(&op))
        .flat_map(|o| o.latency.iter().map(|(v, _)| *v))
        .collect();
    values.sort_unstable();
    values.dedup();
    let indexed: Vec<Vec<Indexed>> = rounds
        .iter()
        .map(|r| {
            r.iter()
                .map(|s| {
                    let o = s.ops.get(&op).cloned().unwrap_or_default();
                    Indexed {
                        ops: o.ops,
                        errors: o.errors,
                        bytes: o.bytes,
                        duration_s: s.duration_s,
                        latency: o
                            .latency
                            .iter()
                            .map(|(v, c)| (values.partition_point(|x| x < v) as u32, *c))
                            .collect(),
                    }
                })
                .collect()
        })
        .collect();
    let marks = &marks_us[..marks_us.len().min(MAX_MARKS)];
    let mut totals = Totals::new(&values);
    for s in indexed.iter().flatten() {
        totals.add(s);
    }
    if totals.ops + totals.errors == 0 {
        return Err(TooFew::Nothing);
    }
    let estimate = totals.figures(marks);
    let timed = totals.counts.iter().sum();
    let mut rng = fastrand::Rng::with_seed(seed);
    let resamples = (0..RESAMPLES)
        .map(|_| {
            totals.clear();
            if judged_by_rounds {
                for _ in 0..indexed.len() {
                    let round = &indexed[rng.usize(0..indexed.len())];
                    draw_blocks(round, &mut rng, &mut totals);
                }
            } else {
                for round in &indexed {
                    draw_blocks(round, &mut rng, &mut totals);
                }
            }
            totals.figures(marks)
        })
        .collect();
    Ok(Draws {
        estimate,
        resamples,
        seconds,
        rounds: rounds.len(),
        timed,
    })
}

/// Adds blocks of consecutive seconds of `round`, drawn with replacement, until as many
/// seconds as it has are taken.
fn draw_blocks(round: &[Indexed], rng: &mut fastrand::Rng, totals: &mut Totals) {
    let n = round.len();
    if n == 0 {
        return;
    }
    let block = ((n as f64).cbrt().round() as usize).clamp(1, n);
    let starts = n - block + 1;
    let mut taken = 0;
    while taken < n {
        let start = rng.usize(0..starts);
        for s in &round[start..start + block.min(n - taken)] {
            totals.add(s);
        }
        taken += block;
    }
}

/// The `q`-quantile of `values` (sorted in place).
pub fn quantile(values: &mut [f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let last = values.len() - 1;
    values[((q * last as f64).round() as usize).min(last)]
}
