//! Object bodies: one pre-generated buffer; object `i`'s body is a slice of it at an
//! offset computed from `i`. PUTs send slices (no copy, no per-request generation) and a
//! reader can recompute what it should get back.

use bytes::Bytes;

use crate::plan::Content;

/// Extra bytes past the largest object, so offsets vary the content between objects:
/// a body starts at one of this many offsets.
pub const OFFSET_SPAN: u64 = 4096;

#[derive(Debug, Clone)]
pub struct ContentPool {
    buf: Bytes,
}

impl ContentPool {
    pub fn new(content: Content, seed: u64, max_object: u64) -> ContentPool {
        let len = (max_object + OFFSET_SPAN) as usize;
        let buf = match content {
            Content::Zero => vec![0u8; len],
            Content::Random => {
                let mut rng = fastrand::Rng::with_seed(seed);
                let mut v = vec![0u8; len];
                rng.fill(&mut v);
                v
            }
        };
        ContentPool {
            buf: Bytes::from(buf),
        }
    }

    /// Where in the buffer the body chosen by `hash` starts.
    pub fn offset(hash: u64) -> u64 {
        hash % OFFSET_SPAN
    }

    /// `size` bytes starting at an offset chosen by `hash`.
    pub fn slice(&self, hash: u64, size: u64) -> Bytes {
        self.buf.slice(self.range(hash, size))
    }

    /// The same bytes borrowed, for a reader comparing what it got with them (no
    /// reference count touched, which every worker would share).
    pub fn bytes(&self, hash: u64, size: u64) -> &[u8] {
        &self.buf[self.range(hash, size)]
    }

    fn range(&self, hash: u64, size: u64) -> std::ops::Range<usize> {
        let offset = ContentPool::offset(hash) as usize;
        let end = (offset + size as usize).min(self.buf.len());
        offset.min(end)..end
    }
}
