//! The target's memory budget: what it holds is counted by its own accounting (object
//! bytes, key and metadata text, and a fixed overhead per object, per multipart part),
//! never by sampling the process's RSS. A write past the budget is refused with an S3
//! error while everything held stays readable, listable and deletable; deletes give
//! the room back.

use std::sync::atomic::{AtomicU64, Ordering};

/// Budget charged per object besides its key, bytes and metadata: its packed entry
/// (numbers, ETag when kept) and its share of the chunk it sits in.
pub const ENTRY_OVERHEAD: u64 = 48;
/// Charged per object that keeps bytes, besides the bytes: the handle to them, their
/// reference count's allocation (see `data`), the ETag.
pub const PAYLOAD_OVERHEAD: u64 = 64;
/// Charged per multipart part held, besides its bytes.
pub const PART_OVERHEAD: u64 = 96;

/// Charged per object with a content type or user metadata, besides their text and a
/// slot per user pair: the record holding them and the object's handle to it. Objects
/// written alike share one record, but each is charged as if it had its own, so the
/// charge does not depend on the order of writes and a delete gives back exactly what
/// the write took.
pub const META_OVERHEAD: u64 = 56;

/// What an object with a `key_len`-byte key, `payload` bytes kept (`None` in size-only
/// mode) and `meta` bytes of content type and user metadata (see `objects::meta_len`)
/// counts against the budget.
pub fn object_cost(key_len: usize, payload: Option<usize>, meta: Option<usize>) -> u64 {
    let payload = payload.map_or(0, |p| p as u64 + PAYLOAD_OVERHEAD);
    let meta = meta.map_or(0, |m| m as u64 + META_OVERHEAD);
    key_len as u64 + ENTRY_OVERHEAD + payload + meta
}

/// What a multipart part of `payload` bytes kept counts against the budget.
pub fn part_cost(payload: Option<usize>) -> u64 {
    PART_OVERHEAD + payload.map_or(0, |p| p as u64)
}

#[derive(Debug)]
pub struct Budget {
    limit: u64,
    used: AtomicU64,
}

/// A write the budget has no room for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the target's memory budget of {} is full ({} held, this write needs {} more); \
     delete objects to make room, or give it a larger budget (`keystorm sim \
     --max-memory SIZE`, or `max_memory` under `target.embedded` in the workload)",
    human(*limit), human(*used), human(*wanted)
)]
pub struct OverBudget {
    pub limit: u64,
    pub used: u64,
    pub wanted: u64,
}

impl Budget {
    pub fn new(limit: u64) -> Budget {
        Budget {
            limit,
            used: AtomicU64::new(0),
        }
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Whether a write of `cost` that frees `freed` would fit now (without taking it).
    pub fn check(&self, cost: u64, freed: u64) -> Result<(), OverBudget> {
        let used = self.used();
        self.verdict(used, cost, freed).map(|_| ())
    }

    fn verdict(&self, used: u64, cost: u64, freed: u64) -> Result<u64, OverBudget> {
        let next = used.saturating_add(cost).saturating_sub(freed);
        if cost > freed && next > self.limit {
            return Err(OverBudget {
                limit: self.limit,
                used,
                wanted: cost - freed,
            });
        }
        Ok(next)
    }

    /// Takes `cost` and gives back `freed` (what the write replaces), unless that
    /// would go past the limit. A write that frees at least what it takes always fits.
    pub fn charge(&self, cost: u64, freed: u64) -> Result<(), OverBudget> {
        let mut used = self.used();
        loop {
            let next = self.verdict(used, cost, freed)?;
            match self
                .used
                .compare_exchange_weak(used, next, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return Ok(()),
                Err(now) => used = now,
            }
        }
    }

    /// Takes `bytes` ahead of a write whose body is still to be read, so concurrent
    /// large bodies cannot all pass a check that each alone passes; given back when
    /// dropped unless the write went through (see [`Reservation::commit`]).
    pub fn reserve(&self, bytes: u64) -> Result<Reservation<'_>, OverBudget> {
        self.charge(bytes, 0)?;
        Ok(Reservation {
            budget: self,
            bytes,
        })
    }

    /// Gives back what a removed object or part counted.
    pub fn release(&self, bytes: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(bytes))
            });
    }
}

/// Budget taken ahead of a write; pass [`bytes`](Self::bytes) as what the write frees
/// (it replaces the reservation), then [`commit`](Self::commit) once it went through.
#[derive(Debug)]
pub struct Reservation<'a> {
    budget: &'a Budget,
    bytes: u64,
}

impl Reservation<'_> {
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The write took the reservation's place: nothing to give back.
    pub fn commit(mut self) {
        self.bytes = 0;
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.budget.release(self.bytes);
    }
}

/// `2.0 MiB`: a byte count as people read it.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_fit_until_the_limit_and_deletes_make_room() {
        let b = Budget::new(1000);
        b.charge(600, 0).unwrap();
        let e = b.charge(500, 0).unwrap_err();
        assert_eq!((e.limit, e.used, e.wanted), (1000, 600, 500));
        assert_eq!(b.used(), 600, "a refused write takes nothing");
        // Replacing 600 bytes with 700 needs only 100 more.
        b.charge(700, 600).unwrap();
        assert_eq!(b.used(), 700);
        b.charge(300, 0).unwrap();
        assert!(b.check(1, 0).is_err());
        // Smaller replacements always fit, even at the limit.
        b.charge(10, 300).unwrap();
        assert_eq!(b.used(), 710);
        b.release(710);
        b.release(5);
        assert_eq!(b.used(), 0);
    }

    #[test]
    fn a_reservation_is_given_back_unless_committed() {
        let b = Budget::new(1000);
        let r = b.reserve(800).unwrap();
        assert!(b.reserve(300).is_err(), "the reservation holds its room");
        drop(r);
        assert_eq!(b.used(), 0);
        let r = b.reserve(800).unwrap();
        // The write takes the reservation's place.
        b.charge(790, r.bytes()).unwrap();
        r.commit();
        assert_eq!(b.used(), 790);
    }

    #[test]
    fn the_refusal_names_the_budget_and_how_to_raise_it() {
        let b = Budget::new(2 << 20);
        b.charge(2 << 20, 0).unwrap();
        let m = b.charge(1100, 0).unwrap_err().to_string();
        assert!(m.contains("memory budget of 2.0 MiB is full"), "{m}");
        assert!(m.contains("1.1 KiB more"), "{m}");
        assert!(
            m.contains("--max-memory") && m.contains("target.embedded"),
            "{m}"
        );
        assert_eq!(human(0), "0 B");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(3 << 30), "3.0 GiB");
    }
}
