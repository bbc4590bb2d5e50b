//! Request bodies that are never whole in memory. A [`Payload`] is `len` bytes read
//! from a shared pool starting at `start` and wrapping round to the pool's beginning,
//! so an object of a gibibyte is sent from a pool of a few mebibytes: the body is
//! handed to the connection as slices of the pool (no copy), and its memory does not
//! grow with the object's size. A body of plain [`Bytes`] is a payload whose pool is
//! itself.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Frame, SizeHint};

/// A request body: `len` bytes of `pool` from `start`, wrapping round.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Payload {
    pool: Bytes,
    start: usize,
    len: u64,
}

impl Payload {
    /// `len` bytes of `pool` from `start` (taken modulo the pool's length), wrapping
    /// round. An empty pool gives an empty body.
    pub fn wrapping(pool: Bytes, start: usize, len: u64) -> Payload {
        if pool.is_empty() {
            return Payload::default();
        }
        let start = start % pool.len();
        Payload { pool, start, len }
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `len` bytes from `from` of this body (clamped to it): a multipart part, sharing
    /// the pool.
    pub fn part(&self, from: u64, len: u64) -> Payload {
        let Wrapped { start, len, .. } = self.view().part(from, len);
        if len == 0 {
            return Payload::default();
        }
        Payload {
            pool: self.pool.clone(),
            start,
            len,
        }
    }

    /// The body as slices of the pool, in order (no copy).
    pub fn chunks(&self) -> Chunks {
        Chunks {
            pool: self.pool.clone(),
            at: self.start,
            left: self.len,
        }
    }

    /// The body borrowed, for reading it without touching the pool's reference count.
    pub fn view(&self) -> Wrapped<'_> {
        Wrapped {
            pool: &self.pool,
            start: self.start,
            len: self.len,
        }
    }

    /// The whole body in one piece: a slice of the pool where it does not wrap, a copy
    /// where it does (tests and small bodies only).
    pub fn to_bytes(&self) -> Bytes {
        let mut chunks = self.chunks();
        match (chunks.next(), chunks.left) {
            (None, _) => Bytes::new(),
            (Some(one), 0) => one,
            (Some(first), _) => {
                let mut all = Vec::with_capacity(self.len as usize);
                all.extend_from_slice(&first);
                for c in chunks {
                    all.extend_from_slice(&c);
                }
                Bytes::from(all)
            }
        }
    }

    /// The body as an HTTP request body of an exact length, sent chunk by chunk.
    pub fn into_body(self) -> PayloadBody {
        PayloadBody {
            chunks: self.chunks(),
        }
    }
}

impl From<Bytes> for Payload {
    fn from(bytes: Bytes) -> Payload {
        let len = bytes.len() as u64;
        Payload::wrapping(bytes, 0, len)
    }
}

impl From<Vec<u8>> for Payload {
    fn from(bytes: Vec<u8>) -> Payload {
        Payload::from(Bytes::from(bytes))
    }
}

impl From<&'static [u8]> for Payload {
    fn from(bytes: &'static [u8]) -> Payload {
        Payload::from(Bytes::from_static(bytes))
    }
}

/// A body borrowed: `len` bytes of `pool` from `start`, wrapping round.
#[derive(Clone, Copy, Debug)]
pub struct Wrapped<'a> {
    pool: &'a [u8],
    start: usize,
    len: u64,
}

impl<'a> Wrapped<'a> {
    /// `len` bytes of `pool` from `start` (modulo its length), wrapping round.
    pub fn new(pool: &'a [u8], start: usize, len: u64) -> Wrapped<'a> {
        if pool.is_empty() {
            return Wrapped {
                pool,
                start: 0,
                len: 0,
            };
        }
        Wrapped {
            pool,
            start: start % pool.len(),
            len,
        }
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `len` bytes from `from` of this body (clamped to it): what a ranged GET of
    /// those bytes returns.
    pub fn part(&self, from: u64, len: u64) -> Wrapped<'a> {
        let from = from.min(self.len);
        let len = len.min(self.len - from);
        if len == 0 || self.pool.is_empty() {
            return Wrapped::new(&[], 0, 0);
        }
        let pool_len = self.pool.len() as u64;
        let start = ((self.start as u64 + from % pool_len) % pool_len) as usize;
        Wrapped {
            pool: self.pool,
            start,
            len,
        }
    }

    /// The bytes from `from` to the end, as slices of the pool in order.
    pub fn segments_from(&self, from: u64) -> impl Iterator<Item = &'a [u8]> + use<'a> {
        let pool = self.pool;
        let from = from.min(self.len);
        let mut left = self.len - from;
        let mut at = if pool.is_empty() {
            0
        } else {
            ((self.start as u64 + from % pool.len() as u64) % pool.len() as u64) as usize
        };
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            let n = (pool.len() - at).min(usize::try_from(left).unwrap_or(usize::MAX));
            let segment = &pool[at..at + n];
            at = (at + n) % pool.len();
            left -= n as u64;
            Some(segment)
        })
    }

    /// The whole body as slices of the pool in order.
    pub fn segments(&self) -> impl Iterator<Item = &'a [u8]> + use<'a> {
        self.segments_from(0)
    }
}

impl<'a> From<&'a [u8]> for Wrapped<'a> {
    fn from(bytes: &'a [u8]) -> Wrapped<'a> {
        Wrapped::new(bytes, 0, bytes.len() as u64)
    }
}

/// The slices of a [`Payload`], in order.
pub struct Chunks {
    pool: Bytes,
    at: usize,
    left: u64,
}

impl Iterator for Chunks {
    type Item = Bytes;

    fn next(&mut self) -> Option<Bytes> {
        if self.left == 0 {
            return None;
        }
        let n = (self.pool.len() - self.at).min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let chunk = self.pool.slice(self.at..self.at + n);
        self.at = (self.at + n) % self.pool.len();
        self.left -= n as u64;
        Some(chunk)
    }
}

/// A [`Payload`] as an HTTP body: its exact length up front (so it is sent with a
/// `Content-Length`), then its slices as frames.
pub struct PayloadBody {
    chunks: Chunks,
}

impl http_body::Body for PayloadBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.get_mut().chunks.next().map(|c| Ok(Frame::data(c))))
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.left == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.chunks.left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> Bytes {
        Bytes::from((0..10u8).collect::<Vec<_>>())
    }

    #[test]
    fn a_body_longer_than_its_pool_wraps_round() {
        let p = Payload::wrapping(pool(), 7, 25);
        let want: Vec<u8> = (0..25).map(|i| ((7 + i) % 10) as u8).collect();
        assert_eq!(p.to_bytes(), want);
        let lens: Vec<usize> = p.chunks().map(|c| c.len()).collect();
        assert_eq!(lens, [3, 10, 10, 2]);
        let viewed: Vec<u8> = p.view().segments().flatten().copied().collect();
        assert_eq!(viewed, want);
    }

    #[test]
    fn parts_are_the_bytes_of_their_range() {
        let p = Payload::wrapping(pool(), 4, 33);
        let whole = p.to_bytes();
        for (from, len) in [(0, 5), (5, 11), (16, 17), (30, 100), (40, 3)] {
            let part = p.part(from, len);
            let a = (from as usize).min(whole.len());
            let b = (a + len as usize).min(whole.len());
            assert_eq!(part.to_bytes(), whole.slice(a..b), "part {from}+{len}");
        }
        let tail: Vec<u8> = p.view().segments_from(16).flatten().copied().collect();
        assert_eq!(tail, whole.slice(16..));
        let viewed: Vec<u8> = p.view().part(9, 14).segments().flatten().copied().collect();
        assert_eq!(viewed, whole.slice(9..23));
        assert!(p.view().part(40, 2).is_empty());
    }

    #[test]
    fn a_body_within_its_pool_is_one_slice() {
        let p = Payload::wrapping(pool(), 2, 5);
        assert_eq!(p.chunks().count(), 1);
        assert_eq!(p.to_bytes(), Bytes::from_static(&[2, 3, 4, 5, 6]));
        assert!(Payload::wrapping(Bytes::new(), 3, 9).is_empty());
        assert_eq!(Payload::from(Bytes::from_static(b"abc")).to_bytes(), "abc");
    }

    #[test]
    fn the_http_body_states_its_exact_length() {
        use http_body::Body;
        let body = Payload::wrapping(pool(), 0, 1 << 20).into_body();
        assert_eq!(body.size_hint().exact(), Some(1 << 20));
        assert!(!body.is_end_stream());
        assert!(Payload::default().into_body().is_end_stream());
    }
}
