//! Latency and fault injection on object operations: a delay drawn per request from
//! the operation's distribution, and at most one fault per request (503 SlowDown, 500,
//! a reset connection, a stalled answer, a GET body with one bit flipped) — or, in a
//! multi-object delete, failures of single keys — counted exactly so tests can compare
//! what a client saw with what was injected. Also the bucket index's failures around
//! resharding: entries a reshard loses, and keys a continued listing repeats.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::delay_record::DelayKind;
use crate::request::Op;
use crate::{FaultConfig, FaultCounts, LatencyConfig, ObjectOp};
use keystorm_types::Delay;

/// What happens to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    SlowDown,
    InternalError,
    Reset,
    Stall,
    /// A GET answered normally but for one flipped bit of its body; counted only once
    /// there is a body to corrupt (`corrupt_bit`).
    Corrupt,
}

/// Where each fault kind is counted.
const SLOW_DOWN: usize = 0;
const INTERNAL_ERROR: usize = 1;
const RESET: usize = 2;
const STALL: usize = 3;
const KEY_ERROR: usize = 4;
const CORRUPT: usize = 5;
const LISTED_TWICE: usize = 6;
const KINDS: usize = 7;

/// Sets the reshards' generator apart from the requests' one of the same seed.
const RESHARD_STREAM: u64 = 0x9e37_79b9_7f4a_7c15;

pub struct Injector {
    latency: LatencyConfig,
    faults: FaultConfig,
    any_fault: bool,
    /// Whether each operation group (as `kind` numbers them) gets faults.
    fault_ops: [bool; 5],
    /// One generator for every draw, so a seed gives the same faults to the same
    /// sequence of requests.
    rng: Mutex<fastrand::Rng>,
    /// Faults injected, by operation group (as `kind` numbers them) and fault kind
    /// (as the constants above number them).
    counts: [[AtomicU64; KINDS]; 5],
    /// Reshards draw their lost entries from a generator of their own: they run beside
    /// the requests, and must not shift the requests' draws (nor the requests theirs).
    reshard_rng: Mutex<fastrand::Rng>,
    /// Index entries reshards lost (no operation group's).
    lost_on_reshard: AtomicU64,
}

/// The number `kind` gives an operation group.
fn group(op: ObjectOp) -> usize {
    match op {
        ObjectOp::Put => 0,
        ObjectOp::Get => 1,
        ObjectOp::Head => 2,
        ObjectOp::List => 3,
        ObjectOp::Delete => 4,
    }
}

/// The operations injection applies to, grouped as configured.
fn kind(op: Op) -> Option<usize> {
    match op {
        Op::PutObject | Op::UploadPart => Some(0),
        Op::GetObject => Some(1),
        Op::HeadObject => Some(2),
        Op::ListObjectsV1 | Op::ListObjectsV2 => Some(3),
        Op::DeleteObject | Op::DeleteObjects => Some(4),
        _ => None,
    }
}

/// The distribution `latency` gives requests of `op`, if any, and the kind of delay it
/// is recorded as; `None` for operations injection leaves alone.
pub(crate) fn latency_of(latency: &LatencyConfig, op: Op) -> Option<(DelayKind, Delay)> {
    let l = latency;
    let (kind, delay) = match kind(op)? {
        0 => (DelayKind::Put, l.put),
        1 => (DelayKind::Get, l.get),
        2 => (DelayKind::Head, l.head),
        3 => (DelayKind::List, l.list),
        _ => (DelayKind::Delete, l.delete),
    };
    delay.map(|d| (kind, d))
}

impl Injector {
    pub fn new(latency: LatencyConfig, faults: FaultConfig) -> Injector {
        let seed = if faults.seed != 0 {
            faults.seed
        } else {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        };
        let any_fault = faults.slow_down
            + faults.internal_error
            + faults.reset
            + faults.stall
            + faults.key_error
            + faults.corrupt
            + faults.list_twice
            > 0.0;
        let mut fault_ops = [faults.ops.is_empty(); 5];
        for &op in &faults.ops {
            fault_ops[group(op)] = true;
        }
        Injector {
            latency,
            faults,
            any_fault,
            fault_ops,
            rng: Mutex::new(fastrand::Rng::with_seed(seed)),
            counts: Default::default(),
            reshard_rng: Mutex::new(fastrand::Rng::with_seed(seed ^ RESHARD_STREAM)),
            lost_on_reshard: AtomicU64::new(0),
        }
    }

    fn rng(&self) -> std::sync::MutexGuard<'_, fastrand::Rng> {
        self.rng.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The added latency of one request of `op`, if any, and what it is recorded as.
    pub fn delay(&self, op: Op) -> Option<(DelayKind, Duration)> {
        let (kind, delay) = latency_of(&self.latency, op)?;
        Some((kind, delay.sample(&mut self.rng())))
    }

    /// The fault of one request of `op`, if any, counted (a corruption only once it
    /// has a body: see `corrupt_bit`).
    pub fn fault(&self, op: Op) -> Option<Fault> {
        let group = kind(op)?;
        if !self.any_fault || !self.fault_ops[group] {
            return None;
        }
        let f = &self.faults;
        let corrupt = if op == Op::GetObject { f.corrupt } else { 0.0 };
        let fault = {
            let mut rng = self.rng();
            [
                (f.slow_down, Fault::SlowDown),
                (f.internal_error, Fault::InternalError),
                (f.reset, Fault::Reset),
                (f.stall, Fault::Stall),
                (corrupt, Fault::Corrupt),
            ]
            .into_iter()
            .find(|(rate, _)| *rate > 0.0 && rng.f64() < *rate)
            .map(|(_, fault)| fault)
        }?;
        let slot = match fault {
            Fault::SlowDown => SLOW_DOWN,
            Fault::InternalError => INTERNAL_ERROR,
            Fault::Reset => RESET,
            Fault::Stall => STALL,
            Fault::Corrupt => return Some(fault),
        };
        self.counts[group][slot].fetch_add(1, Ordering::Relaxed);
        Some(fault)
    }

    /// The bit a drawn corruption flips in a GET body of `len` bytes (uniform over the
    /// body's bits), counted; `None` for an empty body, which stays as it is, uncounted.
    pub fn corrupt_bit(&self, len: u64) -> Option<u64> {
        let bits = len.checked_mul(8).filter(|b| *b > 0)?;
        let bit = self.rng().u64(..bits);
        self.counts[group(ObjectOp::Get)][CORRUPT].fetch_add(1, Ordering::Relaxed);
        Some(bit)
    }

    /// Whether one key of a multi-object delete fails by itself, counted.
    pub fn key_fails(&self) -> bool {
        let f = &self.faults;
        if !self.any_fault || f.key_error <= 0.0 || !self.fault_ops[group(ObjectOp::Delete)] {
            return false;
        }
        let fails = self.rng().f64() < f.key_error;
        if fails {
            self.counts[group(ObjectOp::Delete)][KEY_ERROR].fetch_add(1, Ordering::Relaxed);
        }
        fails
    }

    /// Whether a continued listing page begins with the key the page before ended on
    /// (`list_twice`), counted; drawn only if `can` says the page can (asked only when
    /// the fault is on), and the caller then repeats the key.
    pub fn list_twice(&self, can: impl FnOnce() -> bool) -> bool {
        let list = group(ObjectOp::List);
        if self.faults.list_twice <= 0.0 || !self.fault_ops[list] || !can() {
            return false;
        }
        let twice = self.rng().f64() < self.faults.list_twice;
        if twice {
            self.counts[list][LISTED_TWICE].fetch_add(1, Ordering::Relaxed);
        }
        twice
    }

    /// The keys, of a reshard's index entries `keys` (in index order), that the
    /// reshard loses (`lose_on_reshard`); none without that fault. Not counted yet: a
    /// key may be gone by the time the reshard drops it (see `count_lost`).
    pub fn draw_losses<'k>(&self, keys: impl Iterator<Item = &'k [u8]>) -> Vec<Box<[u8]>> {
        let rate = self.faults.lose_on_reshard;
        if rate <= 0.0 {
            return Vec::new();
        }
        let mut rng = self.reshard_rng.lock().unwrap_or_else(|p| p.into_inner());
        keys.filter(|_| rng.f64() < rate).map(Box::from).collect()
    }

    /// Counts index entries a reshard dropped.
    pub fn count_lost(&self, entries: u64) {
        self.lost_on_reshard.fetch_add(entries, Ordering::Relaxed);
    }

    pub fn stall_time(&self) -> Duration {
        self.faults.stall_time
    }

    /// The faults injected into every operation, and the index entries reshards lost.
    pub fn counts(&self) -> FaultCounts {
        let lost = FaultCounts {
            lost_on_reshard: self.lost_on_reshard.load(Ordering::Relaxed),
            ..FaultCounts::default()
        };
        ObjectOp::ALL
            .into_iter()
            .map(|op| self.counts_of(op))
            .fold(lost, |a, b| a + b)
    }

    /// The faults injected into the requests of one operation group (no entry a
    /// reshard lost is any group's).
    pub fn counts_of(&self, op: ObjectOp) -> FaultCounts {
        let c = |i: usize| self.counts[group(op)][i].load(Ordering::Relaxed);
        FaultCounts {
            slow_down: c(SLOW_DOWN),
            internal_error: c(INTERNAL_ERROR),
            reset: c(RESET),
            stall: c(STALL),
            key_error: c(KEY_ERROR),
            corrupt: c(CORRUPT),
            lost_on_reshard: 0,
            listed_twice: c(LISTED_TWICE),
        }
    }
}
