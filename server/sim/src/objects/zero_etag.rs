//! The ETag of a size-only object: the MD5 of the zeros a GET of it returns, so a
//! client that checks a body against its ETag finds them equal. Hashing every byte of
//! an object on each read would cost what the size-only mode saves, so each thread
//! keeps two small, fixed-size memories: the digests of the last few sizes asked for
//! (the common case, a few fixed sizes, is a lookup), and the MD5 state after every
//! whole step of zeros up to `LADDER_END`, so any other size up to there costs at
//! most one step of hashing. Neither grows with the number of objects.

use std::cell::RefCell;

use md5::{Digest, Md5};

/// Zeros hashed per step of the ladder.
const STEP: usize = 4 * 1024;
/// The ladder reaches this many zeros (1024 states of about 100 bytes per thread).
pub const LADDER_END: u64 = 1024 * STEP as u64;
/// Sizes whose digests a thread remembers.
const REMEMBERED: usize = 32;

static ZEROS: [u8; STEP] = [0; STEP];

/// What one thread keeps.
#[derive(Default)]
struct Memo {
    /// (size, digest), replaced oldest first once full.
    recent: Vec<(u64, [u8; 16])>,
    /// Where the next digest goes once `recent` is full.
    next: usize,
    /// `ladder[k]`: the MD5 state after `k × STEP` zeros, built as far as asked.
    ladder: Vec<Md5>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// The ETag a size-only single PUT gets: the MD5 of `size` zero bytes, the body a GET
/// returns. A lookup for a size asked for lately on this thread; otherwise at most
/// `STEP` bytes hashed up to `LADDER_END`, and every byte past it above.
pub fn size_only_etag(size: u64) -> [u8; 16] {
    MEMO.try_with(|m| m.borrow_mut().etag(size))
        .unwrap_or_else(|_| hash_zeros(Md5::new(), size))
}

impl Memo {
    fn etag(&mut self, size: u64) -> [u8; 16] {
        if let Some((_, digest)) = self.recent.iter().find(|(s, _)| *s == size) {
            return *digest;
        }
        let steps = size.min(LADDER_END) / STEP as u64;
        let digest = hash_zeros(self.state_after(steps as usize), size - steps * STEP as u64);
        self.remember(size, digest);
        digest
    }

    /// The MD5 state after `steps` steps of zeros, the ladder extended to it.
    fn state_after(&mut self, steps: usize) -> Md5 {
        if self.ladder.is_empty() {
            self.ladder.push(Md5::new());
        }
        while self.ladder.len() <= steps {
            let mut next = self.ladder[self.ladder.len() - 1].clone();
            next.update(ZEROS);
            self.ladder.push(next);
        }
        self.ladder[steps].clone()
    }

    fn remember(&mut self, size: u64, digest: [u8; 16]) {
        if self.recent.len() < REMEMBERED {
            self.recent.push((size, digest));
        } else {
            self.recent[self.next] = (size, digest);
            self.next = (self.next + 1) % REMEMBERED;
        }
    }
}

/// Whether `size_only_etag(size)` costs at most one step of hashing, whatever this
/// thread asked for before.
pub fn cheap(size: u64) -> bool {
    size <= LADDER_END
}

/// `state` after `n` more zeros, finished.
fn hash_zeros(mut state: Md5, mut n: u64) -> [u8; 16] {
    while n > 0 {
        let take = n.min(STEP as u64) as usize;
        state.update(&ZEROS[..take]);
        n -= take as u64;
    }
    state.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_is_the_md5_of_the_zeros_a_get_returns() {
        assert_eq!(
            hex::encode(size_only_etag(0)),
            "d41d8cd98f00b204e9800998ecf8427e",
            "the MD5 of nothing"
        );
        let zeros = |n: usize| -> [u8; 16] { Md5::digest(vec![0u8; n]).into() };
        assert_eq!(size_only_etag(1024), zeros(1024));
        // Around the steps and the ladder's end, asked twice (the second a lookup).
        let sizes = [
            1,
            STEP - 1,
            STEP,
            STEP + 1,
            3 * STEP + 17,
            LADDER_END as usize - 1,
            LADDER_END as usize,
            LADDER_END as usize + STEP + 5,
        ];
        for _ in 0..2 {
            for n in sizes {
                assert_eq!(size_only_etag(n as u64), zeros(n), "{n} zeros");
            }
        }
    }

    #[test]
    fn the_memory_stays_bounded() {
        for size in 0..(3 * REMEMBERED as u64) {
            size_only_etag(size * 1000);
        }
        MEMO.with(|m| {
            let m = m.borrow();
            assert_eq!(m.recent.len(), REMEMBERED);
            assert!(m.ladder.len() <= (LADDER_END as usize / STEP) + 1);
        });
        // Evicted sizes are worked out again, the same.
        assert_eq!(size_only_etag(0), <[u8; 16]>::from(Md5::digest([0u8; 0])));
    }
}
