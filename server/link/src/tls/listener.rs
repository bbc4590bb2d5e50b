//! HTTPS for `keystorm serve`: a listener whose connections arrive with their TLS
//! handshake done. The accept loop only accepts; each handshake runs in a task of its
//! own, so one slow or silent client holds up no other. A client speaking plain HTTP to
//! it gets a JSON answer saying to use https, not a connection that just drops. It is
//! an `axum::serve` listener, so the server's graceful shutdown works as with plain TCP.
//!
//! Sockets opened and left silent must not lock new clients out, so handshakes are
//! bounded in time and the ones under way in number, and a cap reached makes room by
//! letting the oldest handshake go rather than refusing the newcomer (the book of
//! handshakes under way is the `pending` module):
//!
//! - [`HANDSHAKE_TIMEOUT`], 5 s. A handshake is at most two round trips and a
//!   signature, well under a second even across continents; 5 s leaves room for a busy
//!   client and two lost packets (TCP sends again after 1 s, then 2 s more).
//! - [`PENDING_PER_PEER`], 64, from one peer (an IPv4 address, or an IPv6 /64). A
//!   browser opens a few connections and an agent one at a time; 64 leaves room for a
//!   fleet of agents behind one NAT reconnecting at once. A legitimate handshake ends in
//!   milliseconds, so to push one out an attacker at the same address must open 64 new
//!   connections within it; sockets merely held open only push out each other. One
//!   address alone cannot reach the overall cap, so it never gets clients at other
//!   addresses let go.
//! - [`PENDING_IN_ALL`], 512, from all peers: it bounds the sockets and tasks that
//!   silent clients hold, and takes at least 8 addresses to reach. It is half the usual
//!   default limit of 1024 open files, so handshakes under way cannot use up the
//!   process's descriptors by themselves: accepting would then stall, and with it the
//!   making of room, while the other half serves connections and runs.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use super::pending::{PendingCaps, PendingHandshakes};
use super::reload::ServedPair;

/// Longest a client may take to finish its handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// Handshakes under way at once from one peer; past it, the peer's oldest is let go.
pub const PENDING_PER_PEER: usize = 64;
/// Handshakes under way at once in all; past it, the oldest is let go.
pub const PENDING_IN_ALL: usize = 512;
/// The first byte of a TLS handshake record (a ClientHello).
const TLS_HANDSHAKE: u8 = 0x16;

type Ready = (TlsStream<TcpStream>, SocketAddr);

/// Accepts TCP connections and hands them on once their handshake is done.
pub struct TlsListener {
    ready: mpsc::Receiver<Ready>,
    local: SocketAddr,
    accepting: JoinHandle<()>,
}

impl TlsListener {
    /// Serves `pair` (as it is when each connection arrives) on `tcp`.
    pub fn new(tcp: TcpListener, pair: Arc<ServedPair>) -> std::io::Result<TlsListener> {
        let caps = PendingCaps {
            per_peer: PENDING_PER_PEER,
            in_all: PENDING_IN_ALL,
        };
        TlsListener::with_limits(tcp, pair, HANDSHAKE_TIMEOUT, caps)
    }

    fn with_limits(
        tcp: TcpListener,
        pair: Arc<ServedPair>,
        timeout: Duration,
        caps: PendingCaps,
    ) -> std::io::Result<TlsListener> {
        let local = tcp.local_addr()?;
        let (sender, ready) = mpsc::channel(64);
        let pending = PendingHandshakes::new(caps);
        let accepting = tokio::spawn(accept_loop(tcp, pair, sender, timeout, pending));
        Ok(TlsListener {
            ready,
            local,
            accepting,
        })
    }
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        // Stops accepting (the socket closes); handshakes under way end with nowhere
        // to go.
        self.accepting.abort();
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> Ready {
        match self.ready.recv().await {
            Some(ready) => ready,
            // The accept loop ends only with this listener.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.local)
    }
}

async fn accept_loop(
    mut tcp: TcpListener,
    pair: Arc<ServedPair>,
    ready: mpsc::Sender<Ready>,
    timeout: Duration,
    pending: Arc<PendingHandshakes>,
) {
    loop {
        // axum's own accept: connection errors skipped, others (too many open files)
        // waited out.
        let (stream, peer) = axum::serve::Listener::accept(&mut tcp).await;
        let mut place = pending.admit(peer.ip());
        let _ = stream.set_nodelay(true);
        let config = pair.current();
        let ready = ready.clone();
        tokio::spawn(async move {
            let shaken = tokio::select! {
                shaken = tokio::time::timeout(timeout, handshake(stream, config)) => {
                    shaken.unwrap_or_else(|_| {
                        tracing::debug!("{peer}: no TLS handshake within {timeout:?}");
                        None
                    })
                }
                () = place.let_go() => {
                    tracing::debug!("{peer}: TLS handshake let go to make room for newer ones");
                    None
                }
            };
            drop(place);
            if let Some(tls) = shaken {
                // Refused once the server is stopping: the connection just closes.
                let _ = ready.send((tls, peer)).await;
            }
        });
    }
}

/// The connection with its handshake done; `None` if the client went, failed the
/// handshake or spoke plain HTTP (answered).
async fn handshake(
    mut stream: TcpStream,
    config: Arc<rustls::ServerConfig>,
) -> Option<TlsStream<TcpStream>> {
    let mut first = [0u8; 1];
    if stream.peek(&mut first).await.ok()? == 0 {
        return None;
    }
    if first[0] != TLS_HANDSHAKE {
        answer_plain_http(&mut stream).await;
        return None;
    }
    match TlsAcceptor::from(config).accept(stream).await {
        Ok(tls) => Some(tls),
        Err(e) => {
            tracing::debug!("TLS handshake failed: {e}");
            None
        }
    }
}

/// Tells a plain HTTP client to use https, as the API's JSON error.
async fn answer_plain_http(stream: &mut TcpStream) {
    let body = r#"{"error":"https_required","detail":"this keystorm server speaks HTTPS only: use https:// with the same host and port"}"#;
    let response = format!(
        "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut request = [0u8; 8192];
    let _ = stream.read(&mut request).await;
    if stream.write_all(response.as_bytes()).await.is_err() {
        return;
    }
    let _ = stream.shutdown().await;
    // Read what the client still sends before closing, so the close does not reset the
    // connection before the client read the answer.
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        while matches!(stream.read(&mut request).await, Ok(n) if n > 0) {}
    })
    .await;
}

#[cfg(test)]
#[path = "listener_tests.rs"]
mod tests;
