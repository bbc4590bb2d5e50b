//! `epochs: N`: every position of a key set's part read exactly N times, each epoch in
//! an order of its own. Pick number `k` is position `P_e(k mod n)` of epoch
//! `e = k / n`, where `P_e` is a keyed permutation: the workers share only a counter
//! and the picks in flight (at most one per worker), never a list of keys.
//!
//! After a crash a resume starts at the lowest pick not yet read and recorded (the
//! checkpoint's `next_pick`): the picks after it that were done before the crash are
//! read again, and none is left out.

use std::collections::BTreeSet;
use std::sync::Mutex;

use super::permutation::Permutation;
use crate::keyspace::mix64;

/// One pick of an epochs phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpochPick {
    /// Its number among all the phase's picks (from 0).
    pub number: u64,
    /// Its epoch, from 1.
    pub epoch: u32,
    /// The part position it reads.
    pub position: u64,
}

/// The picks of an epochs phase, shared by its workers.
#[derive(Debug)]
pub struct EpochPicks {
    per_epoch: u64,
    total: u64,
    key: u64,
    flight: Mutex<Flight>,
}

#[derive(Debug)]
struct Flight {
    next: u64,
    in_flight: BTreeSet<u64>,
}

impl EpochPicks {
    /// `epochs` passes over `per_epoch` positions, in orders keyed by `key`, starting at
    /// pick `from` (0, or where a resumed phase left off).
    pub fn new(per_epoch: u64, epochs: u32, key: u64, from: u64) -> EpochPicks {
        EpochPicks {
            per_epoch,
            total: per_epoch.saturating_mul(u64::from(epochs)),
            key,
            flight: Mutex::new(Flight {
                next: from,
                in_flight: BTreeSet::new(),
            }),
        }
    }

    /// Picks in all the epochs.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The next pick, or `None` once every epoch is handed out.
    pub fn begin(&self) -> Option<EpochPick> {
        let number = {
            let mut f = self.flight.lock().unwrap_or_else(|e| e.into_inner());
            if f.next >= self.total {
                return None;
            }
            let n = f.next;
            f.next += 1;
            f.in_flight.insert(n);
            n
        };
        Some(self.pick(number))
    }

    /// Pick `number` was read and its result recorded.
    pub fn finish(&self, number: u64) {
        let mut f = self.flight.lock().unwrap_or_else(|e| e.into_inner());
        f.in_flight.remove(&number);
    }

    /// The lowest pick not yet finished: every pick below it was read and recorded.
    pub fn watermark(&self) -> u64 {
        let f = self.flight.lock().unwrap_or_else(|e| e.into_inner());
        f.in_flight.first().copied().unwrap_or(f.next)
    }

    /// Picks handed out so far.
    pub fn begun(&self) -> u64 {
        let f = self.flight.lock().unwrap_or_else(|e| e.into_inner());
        f.next
    }

    /// The epoch (from 1) of the last pick handed out; the first before any.
    pub fn epoch_now(&self) -> u32 {
        let begun = self.begun();
        let last = begun.saturating_sub(1).min(self.total.saturating_sub(1));
        self.epoch_of(last)
    }

    fn epoch_of(&self, number: u64) -> u32 {
        (number / self.per_epoch.max(1)) as u32 + 1
    }

    fn pick(&self, number: u64) -> EpochPick {
        let e = number / self.per_epoch;
        let order = Permutation::new(self.per_epoch, mix64(self.key, e));
        EpochPick {
            number,
            epoch: e as u32 + 1,
            position: order.apply(number % self.per_epoch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_epoch_reads_every_position_once_in_its_own_order() {
        let picks = EpochPicks::new(1000, 3, 5, 0);
        let mut counts = vec![0u32; 1000];
        let mut orders: Vec<Vec<u64>> = vec![Vec::new(); 3];
        while let Some(p) = picks.begin() {
            counts[p.position as usize] += 1;
            orders[p.epoch as usize - 1].push(p.position);
            picks.finish(p.number);
        }
        assert!(counts.iter().all(|&c| c == 3));
        assert_ne!(orders[0], orders[1]);
        assert_ne!(orders[1], orders[2]);
        assert_eq!(picks.epoch_now(), 3);
        assert_eq!(picks.watermark(), 3000);
    }

    #[test]
    fn the_watermark_waits_for_the_lowest_pick_in_flight() {
        let picks = EpochPicks::new(10, 1, 1, 0);
        let a = picks.begin().unwrap();
        let b = picks.begin().unwrap();
        picks.finish(b.number);
        assert_eq!(picks.watermark(), a.number);
        picks.finish(a.number);
        assert_eq!(picks.watermark(), 2);
        // A resume from the watermark hands out the same picks from there on.
        let again = EpochPicks::new(10, 1, 1, 2);
        let fresh = EpochPicks::new(10, 1, 1, 0);
        fresh.begin();
        fresh.begin();
        assert_eq!(again.begin(), fresh.begin());
    }
}
