//! What keystorm's own clients of a controller (the agent link, `run --controller`)
//! trust: the CA certificates of `--ca-file` alone when it is given, else the system's.

use std::path::Path;
use std::sync::Arc;

use rustls::{ClientConfig, RootCertStore};

use super::pair::{PairError, read_certificates};

/// A client configuration trusting the CA certificates in `ca_file`, or the system's
/// when there is none.
pub fn client_config(ca_file: Option<&Path>) -> Result<ClientConfig, String> {
    let mut roots = RootCertStore::empty();
    match ca_file {
        Some(path) => {
            for cert in read_certificates("--ca-file", path).map_err(|e| e.to_string())? {
                roots.add(cert).map_err(|e| {
                    PairError::BadPem {
                        flag: "--ca-file",
                        path: path.to_path_buf(),
                        reason: e.to_string(),
                    }
                    .to_string()
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
        .map_err(|e| format!("TLS set-up: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}
