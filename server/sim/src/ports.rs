//! One target, several listening ports: what a cluster of gateways in front of one
//! store looks like to a client that spreads its load over them. Every port serves the
//! same store and state (objects, index, injection, counters), with an extra latency of
//! its own on top of the target's (one gateway slower than the others; it can change
//! while the port serves), counts the requests it received, and can be closed — no new
//! connection accepted, the open ones dropped, as when a gateway process is killed —
//! and reopened on the same address.
//!
//! The target's first port (`start`) is one of these too (`SimHandle::main_port`).

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::LatencyConfig;
use crate::request::Op;
use crate::state::{Port, State};

/// One port of a running target (see [`crate::SimHandle::listen_also`]). Clones share
/// the port; dropping every handle leaves the port serving until the target stops.
#[derive(Clone)]
pub struct PortHandle {
    inner: Arc<Inner>,
}

struct Inner {
    addr: SocketAddr,
    port: Arc<Port>,
    /// The target's: cancelled when the target stops, which stops every port.
    target_stop: CancellationToken,
    /// The accept loop while the port is open.
    open: tokio::sync::Mutex<Option<Serving>>,
}

struct Serving {
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl PortHandle {
    /// Serves `state` on `listener`, with `extra` latency added.
    pub(crate) fn serving(
        listener: TcpListener,
        state: Arc<State>,
        extra: LatencyConfig,
        target_stop: CancellationToken,
    ) -> std::io::Result<PortHandle> {
        let addr = listener.local_addr()?;
        let port = Arc::new(Port::new(state, extra));
        let serving = serve(listener, port.clone(), &target_stop);
        Ok(PortHandle {
            inner: Arc::new(Inner {
                addr,
                port,
                target_stop,
                open: tokio::sync::Mutex::new(Some(serving)),
            }),
        })
    }

    /// The address the port listens on (the port picked, if 0 was asked for); it stays
    /// the same across `close` and `reopen`.
    pub fn addr(&self) -> SocketAddr {
        self.inner.addr
    }

    /// `http://ADDR`, e.g. `http://127.0.0.1:9001`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.inner.addr)
    }

    /// Requests of operation `op` received on this port so far (admin calls aside, as in
    /// [`crate::SimHandle::requests`], which counts every port's), closed periods and
    /// all.
    pub fn requests(&self, op: Op) -> u64 {
        self.inner.port.requests(op)
    }

    /// Replaces the latency the port adds (to its requests from the next one on; those
    /// already waiting keep theirs). `LatencyConfig::default()` adds nothing.
    pub fn set_latency(&self, extra: LatencyConfig) {
        self.inner.port.set_extra(extra);
    }

    /// Stops listening and closes the port's open connections, requests in flight
    /// included, as when a gateway dies: a new connection is refused, a kept-alive one
    /// fails on its next request. Returns once the listener and every connection are
    /// closed; does nothing if the port is closed already.
    pub async fn close(&self) {
        let serving = self.inner.open.lock().await.take();
        if let Some(s) = serving {
            s.stop.cancel();
            let _ = s.task.await;
        }
    }

    /// Listens again on the same address; does nothing if the port is open. Fails if
    /// the address is taken meanwhile, or if the target has stopped.
    pub async fn reopen(&self) -> std::io::Result<()> {
        let mut open = self.inner.open.lock().await;
        if open.is_some() {
            return Ok(());
        }
        if self.inner.target_stop.is_cancelled() {
            return Err(std::io::Error::other("the target has stopped"));
        }
        let listener = TcpListener::bind(self.inner.addr).await?;
        *open = Some(serve(
            listener,
            self.inner.port.clone(),
            &self.inner.target_stop,
        ));
        Ok(())
    }

    /// Whether the port is listening (neither closed nor stopped with the target).
    pub async fn is_open(&self) -> bool {
        self.inner.open.lock().await.is_some() && !self.inner.target_stop.is_cancelled()
    }
}

impl std::fmt::Debug for PortHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PortHandle")
            .field("addr", &self.inner.addr)
            .finish_non_exhaustive()
    }
}

/// Starts the accept loop of `listener`, stopped by the port's own token or the
/// target's.
fn serve(listener: TcpListener, port: Arc<Port>, target_stop: &CancellationToken) -> Serving {
    let stop = target_stop.child_token();
    let task = tokio::spawn(crate::server::serve(listener, port, stop.clone()));
    Serving { stop, task }
}
