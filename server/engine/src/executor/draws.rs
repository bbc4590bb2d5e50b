//! Where every random choice a phase worker makes per operation comes from, so that a
//! workload and its seed fix what each worker issues.
//!
//! The `n`-th operation of worker `w` in the phase at position `p` of the run draws from
//! its own generator, seeded by a keyed mix of (workload seed, `p`, `w`, `n`) alone: the
//! op of a mix, the key picked inside the window (uniform or Zipf) and the page start of
//! a list all come from it. A choice never depends on the wall clock, on other workers,
//! or on how many values an earlier operation happened to draw (a Zipf pick may draw
//! several). Sizes, content and metadata are already functions of (seed, key index).
//!
//! Keep every per-operation draw here: splitting one workload over several agents or
//! shards relies on each (phase, worker, sequence number) yielding the same choice
//! wherever it runs.

use rand_distr::Distribution;

use crate::keyspace::mix64;
use crate::plan::Selection;
use keystorm_types::OpKind;

/// Salt that keeps the worker streams apart from the keyspace's own hash streams.
const SALT_WORKER: u64 = 0x5157_0010;

/// The draws of one worker in one phase: the seed of its `n`-th operation's generator
/// is a pure function of (seed, phase position, worker id, `n`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct WorkerDraws {
    key: u64,
}

impl WorkerDraws {
    /// The stream of worker `worker` in the phase at `phase` (0-based position among
    /// all the run's phases, rounds unrolled).
    pub fn new(seed: u64, phase: usize, worker: u32) -> WorkerDraws {
        let per_phase = mix64(seed ^ SALT_WORKER, phase as u64);
        WorkerDraws {
            key: mix64(per_phase, u64::from(worker)),
        }
    }

    /// The generator of operation number `sequence` (0 = the worker's first).
    pub fn op(&self, sequence: u64) -> OpDraw {
        OpDraw {
            rng: fastrand::Rng::with_seed(mix64(self.key, sequence)),
        }
    }
}

/// The choices of one operation.
pub(crate) struct OpDraw {
    rng: fastrand::Rng,
}

impl OpDraw {
    /// The op of a weighted mix, given cumulative weights ending at `total` (> 0).
    pub fn mix_op(&mut self, cumulative: &[(OpKind, u32)], total: u32) -> OpKind {
        let pick = self.rng.u32(0..total);
        cumulative
            .iter()
            .find(|(_, upto)| pick < *upto)
            .map(|(op, _)| *op)
            .unwrap_or(OpKind::Get)
    }

    /// Offset into a window of `len` (> 0) live objects for the selection (0 = tail,
    /// oldest).
    pub fn offset(&mut self, selection: Selection, len: u64) -> u64 {
        match selection {
            Selection::Uniform => self.rng.u64(0..len),
            Selection::Zipf { exponent } => {
                // Rank 1 is the newest key (the head).
                let rank = rand_distr::Zipf::new(len as f64, exponent)
                    .map(|z| z.sample(&mut ZipfRng(&mut self.rng)) as u64)
                    .unwrap_or(1)
                    .clamp(1, len);
                len - rank
            }
        }
    }

    /// A uniform index below `n` (> 0), e.g. a bucket.
    pub fn below(&mut self, n: u64) -> u64 {
        self.rng.u64(0..n)
    }
}

/// Lets rand_distr draw from fastrand.
struct ZipfRng<'a>(&'a mut fastrand::Rng);

impl rand::RngCore for ZipfRng<'_> {
    fn next_u32(&mut self) -> u32 {
        self.0.u32(..)
    }
    fn next_u64(&mut self) -> u64 {
        self.0.u64(..)
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.0.fill(dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIX: [(OpKind, u32); 4] = [
        (OpKind::Get, 70),
        (OpKind::Put, 90),
        (OpKind::List, 95),
        (OpKind::Delete, 100),
    ];

    /// What worker `worker` of phase `phase` chooses for its first `n` operations, the
    /// way the worker and the op runner draw them (op, then key offset in a window of
    /// 10 000).
    fn sequence(
        seed: u64,
        phase: usize,
        worker: u32,
        selection: Selection,
        n: u64,
    ) -> Vec<(OpKind, u64)> {
        let draws = WorkerDraws::new(seed, phase, worker);
        (0..n)
            .map(|i| {
                let mut d = draws.op(i);
                let op = d.mix_op(&MIX, 100);
                (op, d.offset(selection, 10_000))
            })
            .collect()
    }

    const SELECTIONS: [Selection; 2] = [Selection::Uniform, Selection::Zipf { exponent: 1.1 }];

    #[test]
    fn one_seed_gives_one_sequence_per_worker() {
        for selection in SELECTIONS {
            for worker in [0, 1, 31] {
                assert_eq!(
                    sequence(5, 2, worker, selection, 1000),
                    sequence(5, 2, worker, selection, 1000),
                    "worker {worker}, {selection:?}"
                );
            }
        }
    }

    #[test]
    fn another_seed_phase_or_worker_gives_another_sequence() {
        for selection in SELECTIONS {
            let base = sequence(5, 2, 0, selection, 1000);
            assert_ne!(base, sequence(6, 2, 0, selection, 1000), "seed");
            assert_ne!(base, sequence(5, 3, 0, selection, 1000), "phase");
            assert_ne!(base, sequence(5, 2, 1, selection, 1000), "worker");
        }
    }

    #[test]
    fn draws_follow_the_weights_and_the_selection() {
        let seq = sequence(1, 0, 0, Selection::Uniform, 20_000);
        let gets = seq.iter().filter(|(op, _)| *op == OpKind::Get).count() as f64;
        assert!((gets / 20_000.0 - 0.70).abs() < 0.02, "get share {gets}");
        let mean = seq.iter().map(|(_, o)| *o as f64).sum::<f64>() / 20_000.0;
        assert!((mean - 5000.0).abs() < 200.0, "uniform mean {mean}");
        // Zipf favours the head (the newest keys, the largest offsets).
        let zipf = sequence(1, 0, 0, Selection::Zipf { exponent: 1.1 }, 20_000);
        let top = zipf.iter().filter(|(_, o)| *o >= 9_990).count();
        assert!(top > 20_000 / 4, "head picks {top}");
    }
}
