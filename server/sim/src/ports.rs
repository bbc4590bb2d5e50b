//! One target, several listening ports: what a cluster of gateways in front of one
//! store looks like to a client that spreads its load over them. Every port serves the
//! same store and state (objects, index, injection, counters), with an extra latency and
//! faults of its own on top of the target's (one gateway slower or failing more than
//! the others; both can change while the port serves), counts the requests it
//! received, and can be closed — no new connection accepted, the open ones dropped, as
//! when a gateway process is killed — and reopened on the same address. Each port is in
//! the target's list of ports, so the admin API can do the same (`admin_ports`).
//!
//! The target's first port (`start`) is one of these too (`SimHandle::main_port`).

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::port_faults::PortFaultsError;
use crate::port_list::{Gateway, Pending};
use crate::request::Op;
use crate::state::{Port, State};
use crate::{FaultConfig, FaultCounts, LatencyConfig, ObjectOp};

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
        let port = Arc::new(Port::new(state.clone(), addr.port(), extra));
        let serving = serve(listener, port.clone(), &target_stop);
        let inner = Arc::new(Inner {
            addr,
            port,
            target_stop,
            open: tokio::sync::Mutex::new(Some(serving)),
        });
        let gateway: Arc<dyn Gateway> = inner.clone();
        state.ports.add(Arc::downgrade(&gateway));
        Ok(PortHandle { inner })
    }

    /// The address the port listens on (the port picked, if 0 was asked for); it stays
    /// the same across `close` and `reopen`.
    pub fn addr(&self) -> SocketAddr {
        self.inner.addr
    }

    /// `http://ADDR`, e.g. `http://127.0.0.1:9001`.
    pub fn endpoint(&self) -> String {
        self.inner.endpoint()
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

    /// Replaces the port's own faults (`None`: none), drawn for the object requests
    /// that arrive on it after the target's own (a request gets one fault at most):
    /// the request faults only (`slow_down`, `internal_error`, `reset`, `stall`,
    /// `corrupt`, with `stall_time`, `ops` and `seed`); the index faults are the
    /// store's, and refused here.
    pub fn set_faults(&self, faults: Option<FaultConfig>) -> Result<(), PortFaultsError> {
        self.inner.set_faults(faults)
    }

    /// What the port's own faults injected so far (the target's are in
    /// [`crate::SimHandle::fault_counts`], with every port's).
    pub fn fault_counts(&self) -> FaultCounts {
        self.inner.port.faults.counts()
    }

    /// Stops listening and closes the port's open connections, requests in flight
    /// included, as when a gateway dies: a new connection is refused, a kept-alive one
    /// fails on its next request. Returns once the listener and every connection are
    /// closed; does nothing if the port is closed already.
    pub async fn close(&self) {
        self.inner.close_now().await;
    }

    /// Listens again on the same address; does nothing if the port is open. Fails if
    /// the address is taken meanwhile, or if the target has stopped.
    pub async fn reopen(&self) -> std::io::Result<()> {
        self.inner.reopen_now().await
    }

    /// Whether the port is listening (neither closed nor stopped with the target).
    pub async fn is_open(&self) -> bool {
        self.inner.open_now().await
    }
}

impl Inner {
    async fn close_now(&self) {
        let serving = self.open.lock().await.take();
        if let Some(s) = serving {
            s.stop.cancel();
            let _ = s.task.await;
        }
    }

    async fn reopen_now(&self) -> std::io::Result<()> {
        let mut open = self.open.lock().await;
        if open.is_some() {
            return Ok(());
        }
        if self.target_stop.is_cancelled() {
            return Err(std::io::Error::other("the target has stopped"));
        }
        let listener = TcpListener::bind(self.addr).await?;
        *open = Some(serve(listener, self.port.clone(), &self.target_stop));
        Ok(())
    }

    async fn open_now(&self) -> bool {
        self.open.lock().await.is_some() && !self.target_stop.is_cancelled()
    }
}

impl Gateway for Inner {
    fn number(&self) -> u16 {
        self.addr.port()
    }

    fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn requests(&self, op: Op) -> u64 {
        self.port.requests(op)
    }

    fn faults(&self) -> Option<FaultConfig> {
        self.port.faults.config()
    }

    fn set_faults(&self, faults: Option<FaultConfig>) -> Result<(), PortFaultsError> {
        self.port.faults.set(faults, u64::from(self.addr.port()))
    }

    fn injected(&self, op: ObjectOp) -> FaultCounts {
        self.port.faults.counts_of(op)
    }

    fn is_open(&self) -> Pending<'_, bool> {
        Box::pin(self.open_now())
    }

    fn close(&self) -> Pending<'_, ()> {
        Box::pin(self.close_now())
    }

    fn reopen(&self) -> Pending<'_, std::io::Result<()>> {
        Box::pin(self.reopen_now())
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
