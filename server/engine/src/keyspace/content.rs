//! Object bodies: one pre-generated buffer; object `i`'s body is read from it at an
//! offset computed from `i`. PUTs send slices (no copy, no per-request generation) and a
//! reader can recompute what it should get back. The buffer holds the largest object
//! and [`OFFSET_SPAN`] more, up to [`POOL_CAP`]: a larger object wraps round to the
//! buffer's beginning, so a phase of 1 GiB objects needs 16 MiB for its content,
//! however many are in flight.

use bytes::Bytes;
use keystorm_s3::Payload;
use keystorm_s3::payload::Wrapped;

use crate::plan::Content;

/// Extra bytes past the largest object, so offsets vary the content between objects:
/// a body starts at one of this many offsets.
pub const OFFSET_SPAN: u64 = 4096;

/// The most content a buffer holds for its largest object (it holds
/// [`OFFSET_SPAN`] more): objects larger than this repeat it.
pub const POOL_CAP: u64 = 16 << 20;

#[derive(Debug, Clone)]
pub struct ContentPool {
    buf: Bytes,
}

impl ContentPool {
    pub fn new(content: Content, seed: u64, max_object: u64) -> ContentPool {
        let len = (max_object.min(POOL_CAP) + OFFSET_SPAN) as usize;
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

    /// `size` bytes starting at an offset chosen by `hash`, wrapping round.
    pub fn slice(&self, hash: u64, size: u64) -> Payload {
        Payload::wrapping(self.buf.clone(), ContentPool::offset(hash) as usize, size)
    }

    /// The same bytes borrowed, for a reader comparing what it got with them (no
    /// reference count touched, which every worker would share).
    pub fn bytes(&self, hash: u64, size: u64) -> Wrapped<'_> {
        Wrapped::new(&self.buf, ContentPool::offset(hash) as usize, size)
    }
}
