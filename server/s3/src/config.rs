//! How to reach a target: endpoint, signing, TLS, timeouts and the measurement-minded
//! defaults (no retries, no request checksums, unsigned payloads) a benchmark needs.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Which S3 client implementation to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ClientKind {
    #[default]
    Fast,
    Sdk,
}

/// Static credentials, already resolved (from env, profile or inline).
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print secrets, not even in debug output.
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"<redacted>")
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

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
    /// Maximum idle connections kept per host; set to the phase concurrency.
    pub pool_size: usize,
    /// Send CRC32 request checksums on PUT.
    pub checksums: bool,
    /// Sign the payload with SHA-256 (otherwise UNSIGNED-PAYLOAD).
    pub payload_signing: bool,
}
