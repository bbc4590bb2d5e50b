//! One keep-alive connection of the wire client: a TCP stream whose reads the kernel
//! stamps (see `fast::stamped`), TLS over it for `https`, and the buffer responses are
//! read into. The task that sends a request reads its answer on the same connection,
//! so nothing here is shared or locked.

use std::borrow::Cow;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

pub(crate) use super::fields::Fields;
use crate::fast::stamped::{Slot, StampedStream};

/// Where a connection goes: the host and port it was made to, and whether over TLS.
/// A request's is borrowed from its URI; a connection keeps its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Peer<'a> {
    pub host: Cow<'a, str>,
    pub port: u16,
    pub tls: bool,
}

/// The buffer a connection starts with; it grows while reads fill it (big bodies), up
/// to [`MAX_BUFFER`].
const FIRST_BUFFER: usize = 16 * 1024;
const MAX_BUFFER: usize = 512 * 1024;

enum Io {
    Plain(StampedStream),
    Tls(Box<TlsStream<StampedStream>>),
}

pub(crate) struct Conn {
    io: Io,
    pub peer: Peer<'static>,
    /// Bytes read and not yet taken: `buf[start..end]`.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The request head (and a small body) as written, kept for the next request.
    pub out: Vec<u8>,
    /// The header fields of the last response head read.
    pub fields: Fields,
}

impl Conn {
    /// Connects to `peer` (no Nagle), TLS over it when the peer asks for it.
    pub async fn connect(peer: &Peer<'_>, tls: Option<&TlsConnector>) -> io::Result<Conn> {
        let host = peer.host.trim_start_matches('[').trim_end_matches(']');
        let tcp = TcpStream::connect((host, peer.port)).await?;
        tcp.set_nodelay(true)?;
        let stream = StampedStream::new(tcp)?;
        let io = match (peer.tls, tls) {
            (false, _) => Io::Plain(stream),
            (true, Some(connector)) => {
                let name = rustls::pki_types::ServerName::try_from(host.to_string())
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
                Io::Tls(Box::new(connector.connect(name, stream).await?))
            }
            (true, None) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "https asked of a client without TLS",
                ));
            }
        };
        Ok(Conn {
            io,
            peer: Peer {
                host: Cow::Owned(peer.host.to_string()),
                port: peer.port,
                tls: peer.tls,
            },
            buf: vec![0; FIRST_BUFFER],
            start: 0,
            end: 0,
            out: Vec::with_capacity(1024),
            fields: Fields::default(),
        })
    }

    fn stream(&self) -> &StampedStream {
        match &self.io {
            Io::Plain(s) => s,
            Io::Tls(t) => t.get_ref().0,
        }
    }

    /// The kernel's stamps of this connection's exchanges, when it stamps.
    pub fn slot(&self) -> Option<&Arc<Slot>> {
        self.stream().slot()
    }

    pub async fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        match &mut self.io {
            Io::Plain(s) => s.write_all(data).await,
            Io::Tls(t) => t.write_all(data).await,
        }
    }

    /// Writes `out` (the request head) and hands it back for the next request.
    pub async fn write_out(&mut self) -> io::Result<()> {
        let out = std::mem::take(&mut self.out);
        let written = self.write_all(&out).await;
        self.out = out;
        written
    }

    pub async fn flush(&mut self) -> io::Result<()> {
        match &mut self.io {
            Io::Plain(s) => s.flush().await,
            Io::Tls(t) => t.flush().await,
        }
    }

    /// The bytes read and not yet taken.
    pub fn buffered(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// The bytes read and not yet taken, and the fields to parse a head of them into.
    pub fn buffered_and_fields(&mut self) -> (&[u8], &mut Fields) {
        (&self.buf[self.start..self.end], &mut self.fields)
    }

    /// Takes the first `n` buffered bytes.
    pub fn take(&mut self, n: usize) -> &[u8] {
        let from = self.start;
        self.start += n;
        debug_assert!(self.start <= self.end);
        &self.buf[from..from + n]
    }

    /// Reads more bytes after those buffered; `Ok(0)` when the peer closed.
    pub async fn fill(&mut self) -> io::Result<usize> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else {
                self.grow();
            }
        }
        let room = self.buf.len() - self.end;
        let n = std::future::poll_fn(|cx| {
            let mut read = ReadBuf::new(&mut self.buf[self.end..]);
            let polled = match &mut self.io {
                Io::Plain(s) => Pin::new(s).poll_read(cx, &mut read),
                Io::Tls(t) => Pin::new(t.as_mut()).poll_read(cx, &mut read),
            };
            polled.map_ok(|()| read.filled().len())
        })
        .await?;
        self.end += n;
        // A read that filled all the room asks for a bigger buffer next time.
        if n == room && self.buf.len() < MAX_BUFFER {
            self.grow();
        }
        Ok(n)
    }

    fn grow(&mut self) {
        let size = (self.buf.len() * 2).min(MAX_BUFFER).max(self.buf.len());
        self.buf.resize(size, 0);
    }

    /// Whether an idle connection can carry the next request: nothing came on it
    /// since its last answer — no close, no stray bytes. Asks the kernel only when the
    /// runtime saw the socket become readable.
    pub fn still_open(&mut self) -> bool {
        if self.start != self.end {
            return false;
        }
        let mut cx = Context::from_waker(Waker::noop());
        match self.stream().poll_read_ready(&mut cx) {
            Poll::Pending => return true,
            Poll::Ready(Err(_)) => return false,
            Poll::Ready(Ok(())) => {}
        }
        self.start = 0;
        self.end = 0;
        let mut read = ReadBuf::new(&mut self.buf);
        let polled = match &mut self.io {
            Io::Plain(s) => Pin::new(s).poll_read(&mut cx, &mut read),
            // TLS may read a session ticket and give nothing: still open.
            Io::Tls(t) => Pin::new(t.as_mut()).poll_read(&mut cx, &mut read),
        };
        matches!(polled, Poll::Pending)
    }
}
