//! One operation on an object larger than the phase's `parts_above`: a PUT as a
//! multipart upload and a GET as ranged GETs, `parts_in_flight` parts at once inside
//! the worker's task. Every request goes where the gateways' spread sends it and its
//! retries count as the operation's; the object is one operation, timed from its
//! first request to its last response. A part's body is a part of the object's
//! [`Payload`] (slices of the content buffer) and a ranged GET's body is compared as it
//! streams in, so memory holds nothing per part: a phase of 1 GiB objects needs no more
//! than one of 16 MiB objects.

use std::future::Future;
use std::time::{Duration, Instant};

use futures_util::stream::{FuturesUnordered, StreamExt};

use super::verify::{BodyCheck, Mismatch};
use crate::gateways::{Gateways, Retried, Seat};
use crate::plan::PartPlan;
use crate::transfer::ranges;
use keystorm_s3::Payload;
use keystorm_s3::arrival::{self, Arrival};
use keystorm_s3::payload::Wrapped;
use keystorm_types::OpError;

/// Where the operation's requests go and how it splits the object.
pub(super) struct Parted<'a> {
    pub gateways: &'a Gateways,
    pub parts: PartPlan,
    pub bucket: &'a str,
    pub key: &'a str,
}

/// What a GET in ranges read.
pub(super) struct RangedGet {
    pub bytes: u64,
    /// From the operation's start to the first bytes of any range.
    pub ttfb: Duration,
    /// The MD5 the object's ETag states, if it is one.
    pub md5: Option<[u8; 16]>,
    /// The first difference from what was written (lowest offset), where checked.
    pub mismatch: Option<Mismatch>,
    /// When the first and the last bytes of all ranges arrived, where every range's
    /// client could tell.
    pub arrival: Option<Arrival>,
}

/// Runs `make(item)` for each of `items`, at most `at_once` at a time, handing each
/// result to `take` as it comes; after the first one `take` refuses (returns false) no
/// more are started, and those running are waited for.
async fn at_most<I, T, Fut>(
    mut items: impl Iterator<Item = I>,
    at_once: u32,
    mut make: impl FnMut(I) -> Fut,
    mut take: impl FnMut(T) -> bool,
) where
    Fut: Future<Output = T>,
{
    let mut running = FuturesUnordered::new();
    let mut refused = false;
    loop {
        while !refused && running.len() < at_once.max(1) as usize {
            let Some(item) = items.next() else { break };
            running.push(make(item));
        }
        match running.next().await {
            Some(out) => refused |= !take(out),
            None => return,
        }
    }
}

impl Parted<'_> {
    /// A multipart upload of `body`: create, the parts, complete (abort where a part
    /// failed). Returns the result and the endpoint of its last request.
    pub async fn put(
        &self,
        seat: &mut Seat,
        retried: &mut Retried,
        body: &Payload,
        metadata: &[(String, String)],
    ) -> (Result<(), OpError>, usize) {
        let (bucket, key) = (self.bucket, self.key);
        let (created, endpoint) = self
            .gateways
            .run(seat, retried, |c| {
                c.create_multipart_upload(bucket, key, metadata)
            })
            .await;
        let id = match created {
            Ok(id) => id,
            Err(e) => return (Err(e), endpoint),
        };
        let parts = body.len().div_ceil(self.parts.part_size.max(1));
        let mut etags = Vec::with_capacity(parts as usize);
        let mut failed = None;
        let base = &*seat;
        at_most(
            ranges(body.len(), self.parts.part_size).enumerate(),
            self.parts.parts_in_flight,
            |(n, (a, b))| {
                let number = n as u32 + 1;
                let part = body.part(a, b - a + 1);
                let mut seat = base.part(number);
                let id = id.as_str();
                async move {
                    let mut part_retried = Retried::new();
                    let (r, endpoint) = self
                        .gateways
                        .run(&mut seat, &mut part_retried, |c| {
                            c.upload_part(bucket, key, id, number, part.clone())
                        })
                        .await;
                    (number, r, endpoint, part_retried)
                }
            },
            |(number, r, endpoint, part_retried)| {
                retried.extend(part_retried);
                match r {
                    Ok(etag) => etags.push((number, etag)),
                    Err(e) => {
                        failed.get_or_insert((e, endpoint));
                    }
                }
                failed.is_none()
            },
        )
        .await;
        if let Some((e, endpoint)) = failed {
            let mut ignored = Retried::new();
            let _ = self
                .gateways
                .run(seat, &mut ignored, |c| {
                    c.abort_multipart_upload(bucket, key, &id)
                })
                .await;
            return (Err(e), endpoint);
        }
        etags.sort_unstable_by_key(|(n, _)| *n);
        let (r, endpoint) = self
            .gateways
            .run(seat, retried, |c| {
                c.complete_multipart_upload(bucket, key, &id, &etags)
            })
            .await;
        (r.map(|_| ()), endpoint)
    }

    /// Ranged GETs of the object's `size` bytes, each checked against `expected` (the
    /// whole object as written) where given.
    pub async fn get(
        &self,
        seat: &mut Seat,
        retried: &mut Retried,
        size: u64,
        expected: Option<Wrapped<'_>>,
    ) -> (Result<RangedGet, OpError>, usize) {
        let (bucket, key) = (self.bucket, self.key);
        let start = Instant::now();
        let mut got = RangedGet {
            bytes: 0,
            ttfb: Duration::MAX,
            md5: None,
            mismatch: None,
            arrival: None,
        };
        let mut stamped = Some(None::<Arrival>);
        let mut failed = None;
        let mut last_endpoint = 0;
        let base = &*seat;
        at_most(
            ranges(size, self.parts.part_size).enumerate(),
            self.parts.parts_in_flight,
            |(n, (a, b))| {
                let mut seat = base.part(n as u32);
                let expected = expected.map(|w| w.part(a, b - a + 1));
                // Each range in its own scope: its arrival is its own, not another's.
                arrival::timed(async move {
                    let mut part_retried = Retried::new();
                    let sent = Instant::now();
                    let (r, endpoint) = self
                        .gateways
                        .run(&mut seat, &mut part_retried, |c| async move {
                            let mut check = expected.map(|w| BodyCheck::range(w, a));
                            let mut sink = |chunk: &[u8]| {
                                if let Some(c) = check.as_mut() {
                                    c.feed(chunk);
                                }
                                Ok(())
                            };
                            let outcome = c.get_object_to(bucket, key, Some((a, b)), &mut sink);
                            let outcome = outcome.await?;
                            Ok((outcome, check.and_then(BodyCheck::finish)))
                        })
                        .await;
                    (sent, r, endpoint, part_retried)
                })
            },
            |((sent, r, endpoint, part_retried), arrived)| {
                retried.extend(part_retried);
                last_endpoint = endpoint;
                match r {
                    Ok((outcome, mismatch)) => {
                        got.bytes += outcome.bytes;
                        got.ttfb = got.ttfb.min(sent.duration_since(start) + outcome.ttfb);
                        got.md5 = got.md5.or(outcome.md5);
                        got.mismatch = lowest(got.mismatch, mismatch);
                        stamped = match (stamped, arrived) {
                            (Some(so_far), Some(a)) => Some(Some(spanning(so_far, a))),
                            _ => None,
                        };
                    }
                    Err(e) => {
                        failed.get_or_insert((e, endpoint));
                    }
                }
                failed.is_none()
            },
        )
        .await;
        if let Some((e, endpoint)) = failed {
            return (Err(e), endpoint);
        }
        if got.ttfb == Duration::MAX {
            got.ttfb = start.elapsed();
        }
        got.arrival = stamped.flatten();
        (Ok(got), last_endpoint)
    }
}

/// The first bytes of either and the last of either.
fn spanning(so_far: Option<Arrival>, a: Arrival) -> Arrival {
    match so_far {
        None => a,
        Some(s) => Arrival {
            first: s.first.min(a.first),
            last: s.last.max(a.last),
        },
    }
}

/// Of two differences, the one at the lower offset (a length difference after a byte).
fn lowest(a: Option<Mismatch>, b: Option<Mismatch>) -> Option<Mismatch> {
    let at = |m: &Mismatch| match m {
        Mismatch::Byte { offset, .. } => *offset,
        _ => u64::MAX,
    };
    match (a, b) {
        (Some(a), Some(b)) => Some(if at(&b) < at(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn at_most_keeps_the_limit_and_stops_starting_after_a_refusal() {
        let running = std::cell::Cell::new(0u32);
        let most = std::cell::Cell::new(0u32);
        let mut seen = Vec::new();
        at_most(
            0..10,
            3,
            |n| {
                running.set(running.get() + 1);
                most.set(most.get().max(running.get()));
                let running = &running;
                async move {
                    tokio::task::yield_now().await;
                    running.set(running.get() - 1);
                    n
                }
            },
            |n| {
                seen.push(n);
                n != 4
            },
        )
        .await;
        assert_eq!(most.get(), 3);
        assert!(seen.contains(&4));
        // Started before the refusal: at most the 3 in flight when 4 was refused, then
        // nothing more.
        assert!(seen.len() <= 7, "{seen:?}");
        assert!(!seen.contains(&9), "{seen:?}");
    }

    #[test]
    fn the_lowest_difference_is_reported() {
        let byte = |offset| Mismatch::Byte {
            offset,
            got: 1,
            expected: 2,
        };
        let length = Mismatch::Length {
            got: 3,
            expected: 4,
        };
        assert_eq!(lowest(Some(byte(9)), Some(byte(3))), Some(byte(3)));
        assert_eq!(lowest(Some(length), Some(byte(30))), Some(byte(30)));
        assert_eq!(lowest(None, Some(length)), Some(length));
    }
}
