//! Response bodies: stored bytes, a run of zeros (size-only objects, without
//! allocating their size), or nothing.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

static ZEROS: [u8; 64 * 1024] = [0; 64 * 1024];

pub enum SimBody {
    Bytes(Option<Bytes>),
    Zeros(u64),
}

impl SimBody {
    pub fn empty() -> SimBody {
        SimBody::Bytes(None)
    }

    pub fn bytes(b: impl Into<Bytes>) -> SimBody {
        let b = b.into();
        SimBody::Bytes((!b.is_empty()).then_some(b))
    }
}

impl Body for SimBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
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
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            SimBody::Bytes(b) => b.is_none(),
            SimBody::Zeros(n) => *n == 0,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            SimBody::Bytes(b) => SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64)),
            SimBody::Zeros(n) => SizeHint::with_exact(*n),
        }
    }
}
