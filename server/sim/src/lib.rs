//! keystorm's embedded S3 target: an in-process S3 endpoint on loopback that
//! implements the operations the harness uses, with S3-correct XML, headers and error
//! codes. It is what demos and tests run against with zero set-up, and it can run as
//! a process of its own (`keystorm sim`) for benchmarks.
//!
//! Objects live in memory, bytes and all, or — in `size-only` mode — as sizes and
//! metadata only, so millions of keys fit; packed, at little more than their bytes and
//! keys (`objects`). A memory budget (`budget`) turns writes away with 507
//! InsufficientStorage before the process could outgrow the machine, keeping what it
//! holds.
//!
//! Beyond plain S3 it imitates what matters of Ceph RGW for benchmarks: a sharded
//! bucket index with dynamic resharding that blocks writes (`index`, `reshard`), the
//! admin API calls that report it (`admin`, `rgw_json`), and latency and fault
//! injection on object operations (`inject`, delays kept to time and recorded by
//! `delay_record`) — and on the index itself, which can lose entries in a reshard and
//! repeat a key across listing pages, as RGW's has — all set through [`SimConfig`].
//!
//! One target can listen on several ports (`ports`), like gateways in front of one
//! store: each with a latency and faults of its own added (`port_faults`), each able
//! to close and reopen, from this process or through the admin API (`port_list`,
//! `admin_ports`).

mod admin;
mod admin_call;
mod admin_ports;
mod body;
mod budget;
mod chunked;
mod clock;
mod config;
mod data;
mod delay_record;
mod document;
mod errors;
mod handlers;
mod index;
mod inject;
mod list;
mod machine;
mod multipart;
mod objects;
mod payload;
mod port_faults;
mod port_list;
mod ports;
mod request;
mod reshard;
mod reshard_log;
mod rgw_json;
mod server;
mod sigv4;
mod state;
mod store;
mod tally;
mod xml;

use std::net::SocketAddr;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

pub use budget::{OverBudget, human as human_bytes};
pub use clock::now_ms;
pub use config::{
    FaultConfig, FaultCounts, IndexConfig, LatencyConfig, ObjectOp, SimConfig, Storage,
};
pub use data::Data;
pub use delay_record::{DelayPercentiles, DelayStats};
pub use index::IndexView;
pub use machine::default_budget;
pub use objects::{Meta, ObjectRef, size_only_etag};
pub use port_faults::{PortFaultsError, check_port_faults};
pub use ports::PortHandle;
pub use request::Op;
pub use reshard_log::ReshardRecord;
pub use store::{Object, Store};

/// A running target, on one port or several (`listen_also`). `shutdown` stops it and
/// waits until every port and connection is closed; dropping the handle stops it too,
/// without waiting.
pub struct SimHandle {
    store: Arc<Store>,
    state: Arc<state::State>,
    stop: CancellationToken,
    /// The port `start` opened.
    main: PortHandle,
    /// The ports `listen_also` opened.
    others: std::sync::Mutex<Vec<PortHandle>>,
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl SimHandle {
    /// The address of the port `start` opened.
    pub fn addr(&self) -> SocketAddr {
        self.main.addr()
    }

    /// `http://127.0.0.1:PORT`, of the port `start` opened.
    pub fn endpoint(&self) -> String {
        self.main.endpoint()
    }

    /// The port `start` opened, to count its requests or close and reopen it like the
    /// others.
    pub fn main_port(&self) -> &PortHandle {
        &self.main
    }

    /// Serves the same target (store, index, injection, counters) on `addr` too (port 0
    /// picks a free one), with `extra` latency added to every object request that
    /// arrives there, after the target's own latency and drawn apart from it (recorded
    /// in [`SimHandle::delays`] as kind `port`). The port stops with the target.
    pub async fn listen_also(
        &self,
        addr: SocketAddr,
        extra: LatencyConfig,
    ) -> std::io::Result<PortHandle> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let port = PortHandle::serving(listener, self.state.clone(), extra, self.stop.clone())?;
        self.others
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(port.clone());
        Ok(port)
    }

    /// Every port: the one `start` opened, then those `listen_also` opened, in order.
    pub fn ports(&self) -> Vec<PortHandle> {
        let others = self.others.lock().unwrap_or_else(|p| p.into_inner());
        std::iter::once(&self.main)
            .chain(others.iter())
            .cloned()
            .collect()
    }

    /// The target's contents, for inspection.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The reshards the target did (the last 1000).
    pub fn reshards(&self) -> Vec<ReshardRecord> {
        self.store.reshards.all()
    }

    /// How many times the reshard thread looked at every bucket (0 without dynamic
    /// resharding): wait for it to advance to know a check ran.
    pub fn reshard_checks(&self) -> u64 {
        self.store.reshards.checks()
    }

    /// `bucket`'s index now (shards, instance id, marker, whether it is resharding), or
    /// `None` if there is no such bucket.
    pub fn bucket_index(&self, bucket: &str) -> Option<IndexView> {
        self.store.bucket(bucket).map(|b| b.index.view())
    }

    /// The faults the target injected so far, by kind (with the index entries its
    /// reshards lost), its ports' own included.
    pub fn fault_counts(&self) -> FaultCounts {
        ObjectOp::ALL
            .into_iter()
            .map(|op| self.state.ports.injected(op))
            .fold(self.state.injector.counts(), |a, b| a + b)
    }

    /// The faults the target injected so far into the requests of one operation group
    /// (`Put` includes multipart parts, `List` both list versions, `Delete` both
    /// delete calls), its ports' own included.
    pub fn fault_counts_of(&self, op: ObjectOp) -> FaultCounts {
        self.state.injector.counts_of(op) + self.state.ports.injected(op)
    }

    /// What the delays the target applied came to: drawn against applied, per kind.
    pub fn delays(&self) -> Vec<DelayStats> {
        self.store.delays.stats()
    }

    /// Requests of operation `op` the target received so far, on every port (admin calls
    /// aside).
    pub fn requests(&self, op: Op) -> u64 {
        self.state.requests[op as usize].load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Requests of `op` (`GetObject` or `HeadObject`) per (bucket, key) so far; empty
    /// unless the target was started with `tally_keys`.
    pub fn key_requests(&self, op: Op) -> std::collections::HashMap<(String, String), u64> {
        self.state
            .key_tally
            .as_ref()
            .map(|t| t.of(op))
            .unwrap_or_default()
    }

    /// (bytes held, budget): the target's memory use by its own accounting.
    pub fn memory(&self) -> (u64, u64) {
        (self.store.budget.used(), self.store.budget.limit())
    }

    /// Objects in `bucket`, or `None` if there is no such bucket.
    pub fn object_count(&self, bucket: &str) -> Option<u64> {
        self.store.object_count(bucket)
    }

    /// Stops accepting connections on every port and closes the open ones; returns once
    /// they are closed.
    pub async fn shutdown(self) {
        self.stop.cancel();
        for port in self.ports() {
            port.close().await;
        }
    }
}

/// Starts the target on `addr` (port 0 picks a free port).
pub async fn start(addr: SocketAddr, config: SimConfig) -> std::io::Result<SimHandle> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let budget = config.max_memory.unwrap_or_else(machine::default_budget);
    let store = Arc::new(Store::new(config.storage, config.index.clone(), budget));
    let stop = CancellationToken::new();
    let injector = Arc::new(inject::Injector::new(config.latency, config.faults));
    let state = Arc::new(state::State {
        store: store.clone(),
        credentials: config.credentials,
        injector: injector.clone(),
        no_multi_delete: config.no_multi_delete,
        requests: Default::default(),
        key_tally: config.tally_keys.then(tally::KeyTally::default),
        ports: Default::default(),
        inflight: config
            .max_inflight
            .map(|n| tokio::sync::Semaphore::new(n as usize)),
    });
    tokio::spawn(reshard::reshard_thread(
        store.clone(),
        injector,
        config.index,
        stop.clone(),
    ));
    let main = PortHandle::serving(
        listener,
        state.clone(),
        LatencyConfig::default(),
        stop.clone(),
    )
    .inspect_err(|_| stop.cancel())?;
    Ok(SimHandle {
        store,
        state,
        stop,
        main,
        others: Default::default(),
    })
}
