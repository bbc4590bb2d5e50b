//! TLS for keystorm's own HTTP: the controller serving HTTPS (`serve --tls-cert
//! --tls-key`, the pair read again on SIGHUP), its clients (the agent link and `run
//! --controller`) trusting the system's roots or one CA file and saying in one line why
//! a handshake failed, and the rule that plain HTTP stays on loopback unless
//! `--insecure-http` says otherwise.

mod client;
mod failure;
mod listener;
mod pair;
mod pending;
mod plain_http;
mod reload;
mod self_check;

pub use client::{TlsConfigError, client_config};
pub use failure::describe;
pub use listener::TlsListener;
pub use pair::PairPaths;
pub use plain_http::{
    client_refusal, client_warning, is_loopback_host, serve_refusal, serve_warning,
};
pub use reload::ServedPair;
