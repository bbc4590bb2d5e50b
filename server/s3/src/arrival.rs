//! When a response arrived, for the caller that times it.
//!
//! A call's latency ends when its response reached the client's socket, not when the
//! task that reads it ran again. The `fast` client's connections know the first (see
//! `fast::stamped`); a call run inside [`timed`] hands them back, with the instants the
//! kernel received the response's first and last bytes. Calls that cannot tell (the
//! `sdk` client, a kernel that would not stamp, a connection that moved on) give
//! `None`, and the caller keeps its own clock.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use crate::fast::stamped::Slot;

/// When a response's first and last bytes reached the socket, by the kernel's stamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub first: Instant,
    pub last: Instant,
}

/// The connection and exchange of the last response a call inside [`timed`] got.
type Noted = Option<(Arc<Slot>, u64)>;

tokio::task_local! {
    static LAST_RESPONSE: Cell<Noted>;
}

/// Runs `call`; returns what it returned and when its last response arrived, if its
/// client could tell.
///
/// `call` is polled where it lies, inside the scope: an `async` wrapper would keep it
/// both as its argument and as what it awaits, and the op futures timed here are
/// kilobytes, copied whole each time the future holding them moves.
pub fn timed<F: Future>(call: F) -> impl Future<Output = (F::Output, Option<Arrival>)> {
    LAST_RESPONSE.scope(Cell::new(None), Timed { call })
}

pin_project_lite::pin_project! {
    /// `call`, and when its last response arrived once it is done.
    struct Timed<F> {
        #[pin]
        call: F,
    }
}

impl<F: Future> Future for Timed<F> {
    type Output = (F::Output, Option<Arrival>);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let out = ready!(self.project().call.poll(cx));
        Poll::Ready((out, so_far()))
    }
}

/// When the last response of the call under way arrived, as far as it has been read.
pub(crate) fn so_far() -> Option<Arrival> {
    LAST_RESPONSE
        .try_with(|noted| {
            let n = noted.take();
            let arrival = n
                .as_ref()
                .and_then(|(slot, exchange)| slot.arrival(*exchange))
                .map(|(first, last)| Arrival { first, last });
            noted.set(n);
            arrival
        })
        .ok()
        .flatten()
}

/// The exchange under way on the connection of `slot` is the call's latest.
pub(crate) fn note_slot(slot: &Arc<Slot>) {
    let exchange = slot.exchange();
    let _ = LAST_RESPONSE.try_with(|noted| noted.set(Some((slot.clone(), exchange))));
}

/// Whether this system's kernel stamps received data: a byte sent over a loopback
/// connection of its own came stamped (asked once; the connection's receiving end then
/// stays open for the life of the process, see [`crate::fast::stamped::stamping_probe`]).
/// Asked when a `fast` client is built, so stamps are on before its first request.
pub(crate) fn kernel_stamps() -> bool {
    static PROBE: std::sync::OnceLock<Option<std::net::TcpStream>> = std::sync::OnceLock::new();
    PROBE
        .get_or_init(crate::fast::stamped::stamping_probe)
        .is_some()
}
