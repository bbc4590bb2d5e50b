//! What every request handler shares: the store, the credentials it checks, the fault
//! injector and the request counters, and the error that drops a connection. The accept
//! loop (server.rs) and the handlers (handlers.rs, admin.rs) all use it, and it uses none
//! of them.

use std::sync::Arc;

use crate::store::Store;

pub(crate) struct State {
    pub store: Arc<Store>,
    pub credentials: Option<(String, String)>,
    /// Shared with the reshard thread, which draws the index entries it loses.
    pub injector: Arc<crate::inject::Injector>,
    pub no_multi_delete: bool,
    /// Requests received, by operation (admin calls not counted).
    pub requests: [std::sync::atomic::AtomicU64; crate::request::Op::COUNT],
    /// GETs and HEADs per key, when the configuration asks for them.
    pub key_tally: Option<crate::tally::KeyTally>,
}

/// An injected reset: the service fails, so hyper drops the connection unanswered.
#[derive(Debug)]
pub(crate) struct Reset;

impl std::fmt::Display for Reset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection reset by fault injection")
    }
}

impl std::error::Error for Reset {}
