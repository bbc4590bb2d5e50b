//! What keystorm's own clients of a controller (the agent link, `run --controller`)
//! trust: the CA certificates of `--ca-file` alone when it is given, else the system's.

use std::path::Path;
use std::sync::Arc;

use rustls::{ClientConfig, RootCertStore};

use super::pair::{PairError, read_certificates};

/// Why the client configuration could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TlsConfigError {
    /// The `--ca-file` could not be read, or holds a certificate that is not one.
    #[error(transparent)]
    CaFile(#[from] PairError),
    /// The TLS library refused the protocol versions asked of it.
    #[error("TLS set-up: {0}")]
    SetUp(rustls::Error),
}

/// A client configuration trusting the CA certificates in `ca_file`, or the system's
/// when there is none.
pub fn client_config(ca_file: Option<&Path>) -> Result<ClientConfig, TlsConfigError> {
    let mut roots = RootCertStore::empty();
    match ca_file {
        Some(path) => {
            for cert in read_certificates("--ca-file", path)? {
                roots.add(cert).map_err(|e| PairError::BadPem {
                    flag: "--ca-file",
                    path: path.to_path_buf(),
                    reason: e.to_string(),
                })?;
            }
        }
        None => {
            // A broken system certificate must not stop the others from working.
            for cert in rustls_native_certs::load_native_certs().certs {
                let _ = roots.add(cert);
            }
        }
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(TlsConfigError::SetUp)?
        .with_root_certificates(roots)
        .with_no_client_auth())
}
