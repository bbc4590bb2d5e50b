//! Response bodies: stored bytes, a run of zeros (size-only objects, without
//! allocating their size), nothing, or an injected stall (part of a body, then
//! silence, then a dropped connection).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

static ZEROS: [u8; 64 * 1024] = [0; 64 * 1024];

pub enum SimBody {
    Bytes(Option<Bytes>),
    Zeros(u64),
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
            SimBody::Zeros(remaining) => {
                if *remaining == 0 {
                    return Poll::Ready(None);
                }
                let n = (*remaining).min(ZEROS.len() as u64) as usize;
                *remaining -= n as u64;
                Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(&ZEROS[..n])))))
            }
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
            SimBody::Stalled { .. } => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            SimBody::Bytes(b) => SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64)),
            SimBody::Zeros(n) => SizeHint::with_exact(*n),
            SimBody::Stalled { len, .. } => SizeHint::with_exact(*len),
        }
    }
}
