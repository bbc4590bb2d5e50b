//! How to reach a target: endpoint, signing, TLS, timeouts and the measurement-minded
//! defaults (no retries, no request checksums, unsigned payloads) a benchmark needs.

use std::path::PathBuf;
use std::time::Duration;

use keystorm_types::{ClientKind, Credentials};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsConfig {
    /// PEM file with extra CA certificates to trust.
    pub ca_file: Option<PathBuf>,
    /// Accept any server certificate (test clusters with self-signed certs).
    pub insecure_skip_verify: bool,
}

/// Everything a client needs to talk to one target.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub kind: ClientKind,
    /// `http://host:port` or `https://host`; no trailing slash.
    pub endpoint: String,
    pub region: String,
    /// Path-style addressing (`endpoint/bucket/key`) rather than virtual-host style.
    pub path_style: bool,
    pub credentials: Credentials,
    pub tls: TlsConfig,
    /// Per-request timeout (whole request, body included); `None` = no timeout.
    pub timeout: Option<Duration>,
    /// Retries after a failed attempt; 0 = each attempt is counted as it is.
    pub retries: u32,
    /// The connection pool: idle connections kept per host, as many as the tasks of the
    /// run's busiest phase issue requests from (its workers, listers, HEAD workers or
    /// objects in flight).
    pub pool_size: usize,
    /// Send CRC32 request checksums on PUT.
    pub checksums: bool,
    /// Sign the payload with SHA-256 (otherwise UNSIGNED-PAYLOAD).
    pub payload_signing: bool,
}
