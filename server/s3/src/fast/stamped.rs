//! Connections that learn when each response reached the socket, from the kernel.
//!
//! A latency measured when the task reading the response runs again carries the time
//! it waited to be scheduled: on a busy client, or an idle one whose threads sleep
//! between requests, tens to hundreds of microseconds that are the client's, not the
//! store's. Linux stamps every received packet as it arrives (`SO_TIMESTAMPNS`); each
//! read here asks for the stamp of what it read (`recvmsg`), so a response's first and
//! last bytes carry the time they arrived, however late the reader ran.
//!
//! A connection carries one HTTP/1.1 exchange at a time: a write starts the next one,
//! and the reads after it stamp its response. The request's task notes its
//! connection's [`Slot`] and exchange when it sends (see [`crate::arrival`]) and reads
//! the stamps once the response is read; the exchange number tells it when the
//! connection moved on to another request first.

use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use std::io::Write;

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;

use super::clock_pair;

/// Kernel stamps older than this are not believed (the wall clock moved meanwhile).
const OLDEST_STAMP: Duration = Duration::from_secs(10);

/// The stamps of a connection's last few exchanges: a connection goes back to the pool
/// as soon as its response is read off the socket, and may carry the next request or
/// two before the task of the last one looks. Times are nanoseconds after [`epoch`],
/// plus one; 0 is "none yet", [`UNKNOWN`] "a read came without a stamp".
#[derive(Default)]
pub(crate) struct Slot {
    exchange: AtomicU64,
    kept: [Kept; KEPT],
}

/// How many exchanges a connection keeps the stamps of.
const KEPT: usize = 4;

/// One exchange's stamps, tagged with its number.
#[derive(Default)]
struct Kept {
    tag: AtomicU64,
    first: AtomicU64,
    last: AtomicU64,
}

const UNKNOWN: u64 = u64::MAX;

/// The instant stamps count from: before the oldest stamp believed at the first use.
fn epoch() -> Instant {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(|| {
        let now = Instant::now();
        now.checked_sub(OLDEST_STAMP * 2).unwrap_or(now)
    })
}

fn to_ticks(at: Instant) -> u64 {
    at.saturating_duration_since(epoch()).as_nanos() as u64 + 1
}

fn from_ticks(ticks: u64) -> Instant {
    epoch() + Duration::from_nanos(ticks - 1)
}

impl Slot {
    fn kept(&self, exchange: u64) -> &Kept {
        &self.kept[(exchange % KEPT as u64) as usize]
    }

    /// A request (or part of one) went out: what is read next is its response. Only
    /// the connection's own task writes and reads, so the stores need no locking; the
    /// tag is stored last and checked on both sides of a reader's loads.
    fn wrote(&self) {
        let next = self.exchange.load(Ordering::SeqCst) + 1;
        let kept = self.kept(next);
        kept.tag.store(0, Ordering::SeqCst);
        kept.first.store(0, Ordering::SeqCst);
        kept.last.store(0, Ordering::SeqCst);
        kept.tag.store(next, Ordering::SeqCst);
        self.exchange.store(next, Ordering::SeqCst);
    }

    /// Bytes arrived at `at` (`None`: the kernel gave no stamp).
    fn read(&self, at: Option<Instant>) {
        let ticks = at.map(to_ticks).unwrap_or(UNKNOWN);
        let kept = self.kept(self.exchange.load(Ordering::SeqCst));
        if kept.first.load(Ordering::SeqCst) == 0 {
            kept.first.store(ticks, Ordering::SeqCst);
        }
        kept.last.store(ticks, Ordering::SeqCst);
    }

    /// The exchange under way.
    pub fn exchange(&self) -> u64 {
        self.exchange.load(Ordering::SeqCst)
    }

    /// When exchange `exchange`'s response began and last arrived, if the connection
    /// still keeps its stamps and every read of it was stamped.
    pub fn arrival(&self, exchange: u64) -> Option<(Instant, Instant)> {
        let kept = self.kept(exchange);
        if kept.tag.load(Ordering::SeqCst) != exchange {
            return None;
        }
        let first = kept.first.load(Ordering::SeqCst);
        let last = kept.last.load(Ordering::SeqCst);
        if kept.tag.load(Ordering::SeqCst) != exchange {
            return None;
        }
        match (first, last) {
            (0, _) | (_, 0) | (UNKNOWN, _) | (_, UNKNOWN) => None,
            (f, l) => Some((from_ticks(f), from_ticks(l))),
        }
    }
}

/// A TCP stream whose reads are stamped by the kernel (when it agreed to stamp them).
/// A stamped one is read with `recvmsg` on a descriptor of the runtime's poll; like
/// tokio's own streams, a read or write that did not fill its buffer marks the socket
/// drained, so the next one waits for the poll instead of asking the kernel in vain.
pub struct StampedStream(Stream);

enum Stream {
    Plain(TcpStream),
    Stamped {
        fd: AsyncFd<std::net::TcpStream>,
        slot: Arc<Slot>,
    },
}

impl StampedStream {
    pub(crate) fn new(tcp: TcpStream) -> io::Result<StampedStream> {
        if ask_for_stamps(tcp.as_raw_fd()).is_err() {
            return Ok(StampedStream(Stream::Plain(tcp)));
        }
        let tcp = tcp.into_std()?;
        // SAFETY: the std stream owns its descriptor, which stays open and the same
        // until the `AsyncFd` (its only owner) drops it.
        let fd = unsafe {
            AsyncFd::register_with_interest(tcp, Interest::READABLE | Interest::WRITABLE)
        }
        .map_err(|e| e.into_parts().1)?;
        Ok(StampedStream(Stream::Stamped {
            fd,
            slot: Arc::default(),
        }))
    }

    /// The stamps of this connection's exchanges, when the kernel stamps them.
    pub(crate) fn slot(&self) -> Option<&Arc<Slot>> {
        match &self.0 {
            Stream::Plain(_) => None,
            Stream::Stamped { slot, .. } => Some(slot),
        }
    }

    /// Ready when the runtime saw the socket readable (data, a close or an error).
    pub(crate) fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &self.0 {
            Stream::Plain(tcp) => tcp.poll_read_ready(cx),
            Stream::Stamped { fd, .. } => fd.poll_read_ready(cx).map_ok(|_| ()),
        }
    }
}

/// How many bytes a probe sends, a millisecond apart, waiting for one to come stamped.
const PROBE_TRIES: u32 = 200;

/// The receiving end of a loopback connection whose data has come stamped, or `None`
/// when the kernel gave no stamp within [`PROBE_TRIES`] bytes. Linux turns receive
/// stamps on for the whole system a moment after the first socket asks (from a work
/// queue), and off after the last one closes: data received meanwhile carries none.
/// Kept open, the probe holds them on from before the first request of a process.
pub(crate) fn stamping_probe() -> Option<std::net::TcpStream> {
    use std::io::Write;
    use std::net::{Ipv4Addr, TcpListener};
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).ok()?;
    let mut sender = std::net::TcpStream::connect(listener.local_addr().ok()?).ok()?;
    let (receiver, _) = listener.accept().ok()?;
    ask_for_stamps(receiver.as_raw_fd()).ok()?;
    let mut byte = [MaybeUninit::uninit(); 16];
    for _ in 0..PROBE_TRIES {
        sender.write_all(b"s").ok()?;
        if let Ok((n, Some(_))) = recv_stamped(receiver.as_raw_fd(), &mut byte)
            && n > 0
        {
            return Some(receiver);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    None
}

/// Asks the kernel to stamp the socket's received data.
pub(crate) fn ask_for_stamps(fd: RawFd) -> io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: sets an integer socket option on a socket we hold, from a live integer.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Reads into `buf` with `recvmsg`; the bytes read and when the kernel received them.
fn recv_stamped(fd: RawFd, buf: &mut [MaybeUninit<u8>]) -> io::Result<(usize, Option<Instant>)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // Room for one timestamp message, aligned for `cmsghdr`.
    let mut control = [0u64; 8];
    // SAFETY: an all-zero msghdr is valid; its pointers are set below to live buffers.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: `msg` points at `iov` (over `buf`) and `control`, all alive for the call;
    // the kernel writes at most their lengths.
    let n = unsafe {
        libc::syscall(
            libc::SYS_recvmsg,
            fd,
            &mut msg as *mut libc::msghdr,
            libc::MSG_DONTWAIT,
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((n as usize, stamp_of(&msg)))
}

/// Writes `buf` on the socket `fd` without waiting (and without `SIGPIPE` on a closed
/// one). Like the read above, a system call of its own: glibc's wrappers of both are
/// cancellation points, two atomic operations each in a threaded process, for a thread
/// nothing ever cancels.
fn send(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: the kernel reads at most `buf.len()` bytes from `buf`, alive for the call.
    let n = unsafe {
        libc::syscall(
            libc::SYS_sendto,
            fd,
            buf.as_ptr(),
            buf.len(),
            libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
            std::ptr::null::<libc::sockaddr>(),
            0,
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(n as usize)
}

/// The `SCM_TIMESTAMPNS` message of a received `msg`, as an instant of this process.
fn stamp_of(msg: &libc::msghdr) -> Option<Instant> {
    // SAFETY: `msg` was filled by recvmsg; the CMSG macros walk its control buffer
    // within `msg_controllen`, and the data of a timestamp message is a timespec.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_TIMESTAMPNS
            {
                let ts: libc::timespec = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast());
                return instant_of(ts);
            }
            cmsg = libc::CMSG_NXTHDR(msg, cmsg);
        }
    }
    None
}

/// A wall-clock stamp as an [`Instant`] (see [`clock_pair`] for how the clocks are
/// read); `None` for one older than [`OLDEST_STAMP`].
fn instant_of(stamp: libc::timespec) -> Option<Instant> {
    let stamped = Duration::new(u64::try_from(stamp.tv_sec).ok()?, stamp.tv_nsec as u32);
    let (at, age) = clock_pair::instant_at(stamped)?;
    (age <= OLDEST_STAMP).then_some(at)
}

impl AsyncRead for StampedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let (fd, slot) = match &mut self.get_mut().0 {
            Stream::Plain(tcp) => return Pin::new(tcp).poll_read(cx, buf),
            Stream::Stamped { fd, slot } => (fd, slot),
        };
        loop {
            let mut ready = ready!(fd.poll_read_ready(cx))?;
            // SAFETY: recvmsg only writes into the unfilled part, and only `n` bytes of
            // it are marked filled below.
            let unfilled = unsafe { buf.unfilled_mut() };
            let room = unfilled.len();
            match ready.try_io(|io| recv_stamped(io.as_raw_fd(), unfilled)) {
                Ok(Ok((n, at))) => {
                    if 0 < n && n < room {
                        ready.clear_ready();
                    }
                    // SAFETY: the kernel wrote `n` bytes at the start of `unfilled`.
                    unsafe { buf.assume_init(n) };
                    buf.advance(n);
                    if n > 0 {
                        slot.read(at);
                    }
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => continue,
            }
        }
    }
}

/// Writes with `write` on a stamped stream's descriptor: marks the exchange begun, and
/// the socket full when not all of it went.
fn poll_write_stamped(
    fd: &AsyncFd<std::net::TcpStream>,
    slot: &Slot,
    cx: &mut Context<'_>,
    len: usize,
    write: impl Fn(&std::net::TcpStream) -> io::Result<usize>,
) -> Poll<io::Result<usize>> {
    loop {
        let mut ready = ready!(fd.poll_write_ready(cx))?;
        match ready.try_io(|io| write(io.get_ref())) {
            Ok(Ok(n)) => {
                if 0 < n && n < len {
                    ready.clear_ready();
                }
                if n > 0 {
                    slot.wrote();
                }
                return Poll::Ready(Ok(n));
            }
            Ok(Err(e)) => return Poll::Ready(Err(e)),
            Err(_would_block) => continue,
        }
    }
}

impl AsyncWrite for StampedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().0 {
            Stream::Plain(tcp) => Pin::new(tcp).poll_write(cx, buf),
            Stream::Stamped { fd, slot } => {
                poll_write_stamped(fd, slot, cx, buf.len(), |io| send(io.as_raw_fd(), buf))
            }
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().0 {
            Stream::Plain(tcp) => Pin::new(tcp).poll_write_vectored(cx, bufs),
            Stream::Stamped { fd, slot } => {
                let len = bufs.iter().map(|b| b.len()).sum();
                poll_write_stamped(fd, slot, cx, len, |mut io| io.write_vectored(bufs))
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            Stream::Plain(tcp) => Pin::new(tcp).poll_flush(cx),
            Stream::Stamped { .. } => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().0 {
            Stream::Plain(tcp) => Pin::new(tcp).poll_shutdown(cx),
            Stream::Stamped { fd, .. } => {
                Poll::Ready(fd.get_ref().shutdown(std::net::Shutdown::Write))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exchange_long_gone_gives_no_stamps() {
        let slot = Slot::default();
        slot.wrote();
        let mine = slot.exchange();
        let t = Instant::now();
        slot.read(Some(t));
        slot.read(Some(t + Duration::from_micros(5)));
        let (first, last) = slot.arrival(mine).unwrap();
        assert!(last - first == Duration::from_micros(5));
        // The connection took the next requests before this one's task looked: its
        // stamps are kept for a few exchanges, then no longer.
        for more in 1..KEPT as u64 {
            slot.wrote();
            slot.read(Some(t + Duration::from_micros(9 + more)));
            assert_eq!(slot.arrival(mine), Some((first, last)), "{more} later");
        }
        slot.wrote();
        slot.read(Some(t + Duration::from_micros(20)));
        assert!(slot.arrival(mine).is_none());
    }

    #[test]
    fn a_read_without_a_stamp_spoils_the_exchange() {
        let slot = Slot::default();
        slot.wrote();
        let mine = slot.exchange();
        slot.read(Some(Instant::now()));
        slot.read(None);
        assert!(slot.arrival(mine).is_none());
        // Nothing read yet: nothing to give either.
        slot.wrote();
        assert!(slot.arrival(slot.exchange()).is_none());
    }

    #[test]
    fn stamps_older_than_the_bound_are_not_believed() {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        let at = |d: Duration| libc::timespec {
            tv_sec: d.as_secs() as libc::time_t,
            tv_nsec: d.subsec_nanos() as libc::c_long,
        };
        let recent = instant_of(at(wall - Duration::from_millis(3))).unwrap();
        let age = Instant::now() - recent;
        assert!(
            age >= Duration::from_millis(3) && age < OLDEST_STAMP,
            "{age:?}"
        );
        assert!(instant_of(at(wall - OLDEST_STAMP * 2)).is_none());
    }
}
