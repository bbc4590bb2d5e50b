//! Response bodies: stored bytes, a run of zeros (size-only objects, without
//! allocating their size), nothing, or an injected fault: a stall (part of a body,
//! then silence, then a dropped connection) or a body with one bit flipped (a copy of
//! the bytes served, or zeros around one byte with a bit set, still without allocating
//! the size).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

static ZEROS: [u8; 64 * 1024] = [0; 64 * 1024];

pub enum SimBody {
    Bytes(Option<Bytes>),
    Zeros(u64),
    /// Zeros with one byte set: `before` zeros, the byte, `after` zeros.
    FlippedZeros {
        before: u64,
        byte: Option<Bytes>,
        after: u64,
    },
    /// An injected stall: the first part of a body, then nothing until the timer
    /// fires, then an error that makes the server drop the connection.
    Stalled {
        first: Option<Bytes>,
        timer: Pin<Box<tokio::time::Sleep>>,
        /// The length announced (the whole body's).
        len: u64,
    },
}

/// Ends a stalled body.
#[derive(Debug)]
pub struct StallEnded;

impl std::fmt::Display for StallEnded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stalled body closed by fault injection")
    }
}

impl std::error::Error for StallEnded {}

impl SimBody {
    pub fn empty() -> SimBody {
        SimBody::Bytes(None)
    }

    pub fn bytes(b: impl Into<Bytes>) -> SimBody {
        let b = b.into();
        SimBody::Bytes((!b.is_empty()).then_some(b))
    }

    /// Bytes this body holds (what it announces, for a stalled one).
    pub fn len(&self) -> u64 {
        self.size_hint().exact().unwrap_or(0)
    }

    /// This body with bit `bit` (counted from the first byte's lowest bit) flipped: the
    /// bytes copied first, so what they were sliced from stays as it is. A bit past
    /// the end, or a body that is not plain bytes or zeros, is left alone.
    pub fn with_bit_flipped(self, bit: u64) -> SimBody {
        let (at, mask) = (bit / 8, 1u8 << (bit % 8));
        match self {
            SimBody::Bytes(Some(b)) if at < b.len() as u64 => {
                let mut copy = b.to_vec();
                copy[at as usize] ^= mask;
                SimBody::bytes(copy)
            }
            SimBody::Zeros(n) if at < n => SimBody::FlippedZeros {
                before: at,
                byte: Some(Bytes::from(vec![mask])),
                after: n - at - 1,
            },
            other => other,
        }
    }

    /// The first half of this body (at most 1 KiB), then a stall of `time`, then an
    /// error: the client never gets the whole body. `None` when there is no body to
    /// cut (fewer than 2 bytes).
    pub fn stalled(self, time: std::time::Duration) -> Option<SimBody> {
        let (first, len) = match self {
            SimBody::Bytes(Some(b)) if b.len() >= 2 => {
                (b.slice(..(b.len() / 2).min(1024)), b.len() as u64)
            }
            SimBody::Zeros(n) if n >= 2 => {
                (Bytes::from_static(&ZEROS[..(n / 2).min(1024) as usize]), n)
            }
            _ => return None,
        };
        Some(SimBody::Stalled {
            first: Some(first),
            timer: Box::pin(tokio::time::sleep(time)),
            len,
        })
    }
}

impl Body for SimBody {
    type Data = Bytes;
    type Error = StallEnded;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, StallEnded>>> {
        let this = self.get_mut();
        match this {
            SimBody::Bytes(b) => Poll::Ready(b.take().map(|b| Ok(Frame::data(b)))),
            SimBody::Zeros(remaining) => Poll::Ready(zeros(remaining).map(Ok)),
            SimBody::FlippedZeros {
                before,
                byte,
                after,
            } => Poll::Ready(
                zeros(before)
                    .or_else(|| byte.take().map(Frame::data))
                    .or_else(|| zeros(after))
                    .map(Ok),
            ),
            SimBody::Stalled { first, timer, .. } => {
                if let Some(b) = first.take() {
                    return Poll::Ready(Some(Ok(Frame::data(b))));
                }
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Some(Err(StallEnded))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            SimBody::Bytes(b) => b.is_none(),
            SimBody::Zeros(n) => *n == 0,
            SimBody::FlippedZeros {
                before,
                byte,
                after,
            } => *before == 0 && byte.is_none() && *after == 0,
            SimBody::Stalled { .. } => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            SimBody::Bytes(b) => SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64)),
            SimBody::Zeros(n) => SizeHint::with_exact(*n),
            SimBody::FlippedZeros {
                before,
                byte,
                after,
            } => SizeHint::with_exact(before + after + byte.as_ref().map_or(0, |b| b.len() as u64)),
            SimBody::Stalled { len, .. } => SizeHint::with_exact(*len),
        }
    }
}

/// The next frame of a run of `remaining` zeros, if any is left.
fn zeros(remaining: &mut u64) -> Option<Frame<Bytes>> {
    if *remaining == 0 {
        return None;
    }
    let n = (*remaining).min(ZEROS.len() as u64) as usize;
    *remaining -= n as u64;
    Some(Frame::data(Bytes::from_static(&ZEROS[..n])))
}
