//! Proving a GET returned what keystorm wrote (a phase's `verify`): the body is compared
//! chunk by chunk, as it streams in, with the bytes regenerated from the keyspace (a
//! slice of the shared content buffer, so nothing is held per object), its length with
//! the object's size, and an MD5 ETag with the MD5 of those bytes. The MD5 of each
//! distinct body is computed once and kept in a fixed table: object bodies are slices
//! of one buffer at a few thousand offsets, so for each of the first few object sizes
//! the table holds the MD5 of the body at every offset, and an ETag check costs a
//! lookup without a lock.

use std::sync::OnceLock;

use md5::{Digest, Md5};

use crate::keyspace::OFFSET_SPAN;
use keystorm_s3::GetOutcome;
use keystorm_s3::payload::Wrapped;

/// Object sizes whose MD5s the table keeps, a row of [`OFFSET_SPAN`] for each: fixed
/// sizes use one, a few weighted sizes a few; bodies of any further size (a uniform
/// size distribution has thousands) are hashed each time they are verified.
const SIZES: usize = 8;

/// Where a body first differed from what was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mismatch {
    /// The byte at `offset` is `got`, not `expected`.
    Byte { offset: u64, got: u8, expected: u8 },
    /// The body has `got` bytes, not `expected` (equal up to the shorter).
    Length { got: u64, expected: u64 },
    /// The body is right but the ETag states another MD5.
    Etag,
}

impl Mismatch {
    /// What a user reads in the run's events and first-error warning.
    pub fn describe(&self) -> String {
        match self {
            Mismatch::Byte {
                offset,
                got,
                expected,
            } => format!("byte {offset} is {got:#04x}, written {expected:#04x}"),
            Mismatch::Length { got, expected } => {
                format!("{got} bytes returned, {expected} written")
            }
            Mismatch::Etag => "the body is right but the ETag states another MD5".to_string(),
        }
    }
}

/// Compares a body, chunk by chunk, with the bytes written.
pub(crate) struct BodyCheck<'a> {
    expected: Wrapped<'a>,
    /// Where the body starts in the object (a ranged GET's first byte), so a
    /// difference is reported at its offset in the object.
    base: u64,
    /// Bytes seen so far.
    at: u64,
    first: Option<Mismatch>,
}

impl<'a> BodyCheck<'a> {
    pub fn new(expected: impl Into<Wrapped<'a>>) -> BodyCheck<'a> {
        BodyCheck::range(expected.into(), 0)
    }

    /// A check of the bytes of an object from `base` on (a ranged GET): `expected` is
    /// those bytes.
    pub fn range(expected: Wrapped<'a>, base: u64) -> BodyCheck<'a> {
        BodyCheck {
            expected,
            base,
            at: 0,
            first: None,
        }
    }

    /// Takes the next chunk; after the first difference the rest is only counted.
    pub fn feed(&mut self, chunk: &[u8]) {
        if self.first.is_none() {
            let mut rest = chunk;
            let mut at = self.at;
            for want in self.expected.segments_from(self.at) {
                if rest.is_empty() {
                    break;
                }
                let n = want.len().min(rest.len());
                let (want, got) = (&want[..n], &rest[..n]);
                // One memcmp in the common case; the byte is looked for only once it
                // differs.
                if want != got
                    && let Some(i) = want.iter().zip(got).position(|(w, g)| w != g)
                {
                    self.first = Some(Mismatch::Byte {
                        offset: self.base + at + i as u64,
                        got: got[i],
                        expected: want[i],
                    });
                    break;
                }
                rest = &rest[n..];
                at += n as u64;
            }
        }
        self.at += chunk.len() as u64;
    }

    /// The first difference of the whole body, its length included.
    pub fn finish(self) -> Option<Mismatch> {
        let expected = self.expected.len();
        self.first
            .or((self.at != expected).then_some(Mismatch::Length {
                got: self.at,
                expected,
            }))
    }
}

/// The MD5s of the bodies verified: for each of the first [`SIZES`] object sizes seen,
/// one MD5 per offset of the content buffer, each computed the first time it is needed.
/// Shared by a run's workers and bounded whatever the number of keys (at most
/// `SIZES * OFFSET_SPAN` MD5s, about 80 KiB a size); a lookup takes no lock and writes
/// nothing once the MD5 is known.
#[derive(Default)]
pub(crate) struct Md5Table {
    rows: [OnceLock<Row>; SIZES],
}

/// The MD5s of the bodies of one size, by offset.
struct Row {
    size: u64,
    md5s: Box<[OnceLock<[u8; 16]>]>,
}

/// Which body: where it starts in the content buffer and how long it is.
pub(crate) type BodyId = (u64, u64);

impl Md5Table {
    /// The MD5 of `body` (identified by `id`), computed once per id while the table has
    /// a row for its size.
    pub fn md5<'b>(&self, (offset, size): BodyId, body: impl Into<Wrapped<'b>>) -> [u8; 16] {
        let body = body.into();
        let digest = || -> [u8; 16] {
            let mut md5 = Md5::new();
            for segment in body.segments() {
                md5.update(segment);
            }
            md5.finalize().into()
        };
        let Ok(offset) = usize::try_from(offset) else {
            return digest();
        };
        for row in &self.rows {
            let row = row.get_or_init(|| Row {
                size,
                md5s: (0..OFFSET_SPAN).map(|_| OnceLock::new()).collect(),
            });
            if row.size == size {
                return match row.md5s.get(offset) {
                    Some(md5) => *md5.get_or_init(digest),
                    None => digest(),
                };
            }
        }
        digest()
    }
}

/// The verdict on a GET: the body's first difference, else an ETag that states another
/// MD5 than the body's (when the ETag is an MD5 at all).
pub(crate) fn verdict(
    body: Option<Mismatch>,
    outcome: &GetOutcome,
    id: BodyId,
    expected: Wrapped<'_>,
    md5s: &Md5Table,
) -> Option<Mismatch> {
    body.or_else(|| {
        let stated = outcome.md5?;
        (stated != md5s.md5(id, expected)).then_some(Mismatch::Etag)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(expected: &[u8], chunks: &[&[u8]]) -> Option<Mismatch> {
        let mut c = BodyCheck::new(expected);
        for chunk in chunks {
            c.feed(chunk);
        }
        c.finish()
    }

    #[test]
    fn a_body_read_in_any_chunks_matches_what_was_written() {
        let written: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        assert_eq!(check(&written, &[&written]), None);
        assert_eq!(
            check(
                &written,
                &[&written[..1], &written[1..600], &written[600..]]
            ),
            None
        );
        assert_eq!(check(&[], &[]), None);
    }

    #[test]
    fn a_range_of_a_body_that_wraps_is_checked_at_its_offsets_in_the_object() {
        let pool: Vec<u8> = (0..100u8).collect();
        // An object of 250 bytes from offset 30 of the pool, wrapping round it.
        let object = Wrapped::new(&pool, 30, 250);
        let bytes: Vec<u8> = object.segments().flatten().copied().collect();
        let (from, len) = (60, 120);
        let mut got = bytes[from..from + len].to_vec();
        let check = |got: &[u8]| {
            let mut c = BodyCheck::range(object.part(from as u64, len as u64), from as u64);
            for chunk in got.chunks(37) {
                c.feed(chunk);
            }
            c.finish()
        };
        assert_eq!(check(&got), None);
        got[90] ^= 0x80;
        assert_eq!(
            check(&got),
            Some(Mismatch::Byte {
                offset: 150,
                got: bytes[150] ^ 0x80,
                expected: bytes[150],
            })
        );
    }

    #[test]
    fn finds_the_first_flipped_byte_across_chunks() {
        let written = vec![7u8; 1000];
        let mut got = written.clone();
        got[700] ^= 0x10;
        got[900] ^= 0x01;
        assert_eq!(
            check(&written, &[&got[..512], &got[512..]]),
            Some(Mismatch::Byte {
                offset: 700,
                got: 0x17,
                expected: 7
            })
        );
    }

    #[test]
    fn a_short_or_long_body_is_a_length_mismatch() {
        let written = vec![1u8; 100];
        assert_eq!(
            check(&written, &[&written[..60]]),
            Some(Mismatch::Length {
                got: 60,
                expected: 100
            })
        );
        let mut longer = written.clone();
        longer.push(1);
        assert_eq!(
            check(&written, &[&longer[..50], &longer[50..]]),
            Some(Mismatch::Length {
                got: 101,
                expected: 100
            })
        );
        // A difference before the end is reported first.
        assert!(matches!(
            check(&written, &[&[0u8; 10]]),
            Some(Mismatch::Byte { offset: 0, .. })
        ));
    }

    #[test]
    fn an_etag_that_states_another_md5_is_caught_and_the_md5_computed_once() {
        let body = b"hello".to_vec();
        let right: [u8; 16] = Md5::digest(&body).into();
        let table = Md5Table::default();
        let outcome = |md5| GetOutcome {
            bytes: 5,
            ttfb: std::time::Duration::ZERO,
            md5,
        };
        assert_eq!(
            verdict(None, &outcome(Some(right)), (3, 5), body[..].into(), &table),
            None
        );
        assert_eq!(
            verdict(None, &outcome(None), (3, 5), body[..].into(), &table),
            None
        );
        assert_eq!(
            verdict(
                None,
                &outcome(Some([0; 16])),
                (3, 5),
                body[..].into(),
                &table
            ),
            Some(Mismatch::Etag)
        );
        // The table answers from its row: a different body under the same id is not
        // hashed again (ids name bodies uniquely).
        assert_eq!(table.md5((3, 5), &b"other"[..]), right);
        assert_ne!(table.md5((4, 5), &b"other"[..]), right);
    }

    #[test]
    fn every_offset_of_a_size_is_kept_and_sizes_past_the_rows_are_still_right() {
        let table = Md5Table::default();
        let body = |offset: u64, size: u64| format!("{offset}/{size}").into_bytes();
        let md5 = |b: &[u8]| -> [u8; 16] { Md5::digest(b).into() };
        for offset in 0..OFFSET_SPAN {
            assert_eq!(
                table.md5((offset, 7), &body(offset, 7)[..]),
                md5(&body(offset, 7))
            );
        }
        // Every one of them answered from the table, none evicted by another.
        for offset in 0..OFFSET_SPAN {
            assert_eq!(
                table.md5((offset, 7), &b"not hashed"[..]),
                md5(&body(offset, 7))
            );
        }
        // More sizes than rows: each still gets its own body's MD5, never another's.
        for size in 0..3 * SIZES as u64 {
            for offset in [0, 1, OFFSET_SPAN - 1, OFFSET_SPAN, u64::MAX] {
                let b = body(offset, size);
                assert_eq!(
                    table.md5((offset, size), &b[..]),
                    md5(&b),
                    "{offset}/{size}"
                );
            }
        }
    }
}
