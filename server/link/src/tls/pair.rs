//! The controller's certificate and key: read from PEM files and checked to belong
//! together, as the server configuration rustls serves them with. Each error names the
//! file and the flag it came from, and says what to give instead.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// Where the certificate (chain) and its key are.
#[derive(Debug, Clone)]
pub struct PairPaths {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Why a certificate and key cannot be served (or a CA file cannot be read).
#[derive(Debug, thiserror::Error)]
pub enum PairError {
    #[error("{flag} {}: cannot read it ({source})", path.display())]
    Unreadable {
        flag: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{flag} {}: no PEM certificate in it (a file starting -----BEGIN CERTIFICATE-----)",
        path.display()
    )]
    NoCertificate { flag: &'static str, path: PathBuf },
    #[error(
        "--tls-key {}: no PEM private key in it (a file starting -----BEGIN PRIVATE KEY-----, \
         -----BEGIN EC PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----)",
        .0.display()
    )]
    NoKey(PathBuf),
    #[error("{flag} {}: not valid PEM ({reason})", path.display())]
    BadPem {
        flag: &'static str,
        path: PathBuf,
        reason: String,
    },
    #[error(
        "--tls-key {} is not the key of the certificate in --tls-cert {}: give the key the \
         certificate was made for",
        key.display(),
        cert.display()
    )]
    Mismatch { cert: PathBuf, key: PathBuf },
    #[error("--tls-cert {} with --tls-key {}: {reason}", cert.display(), key.display())]
    Unusable {
        cert: PathBuf,
        key: PathBuf,
        reason: String,
    },
}

/// The server configuration serving the pair at `paths` (HTTP/1.1, TLS 1.2 and 1.3),
/// and what clients will hold against the certificate, if anything.
pub fn load_pair(paths: &PairPaths) -> Result<(Arc<ServerConfig>, Option<String>), PairError> {
    let certs = read_certificates("--tls-cert", &paths.cert)?;
    let warning = super::self_check::self_check(&certs, &paths.cert.display().to_string());
    let key = read_key(&paths.key)?;
    let unusable = |reason: String| PairError::Unusable {
        cert: paths.cert.clone(),
        key: paths.key.clone(),
        reason,
    };
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| unusable(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| match e {
            rustls::Error::InconsistentKeys(_) => PairError::Mismatch {
                cert: paths.cert.clone(),
                key: paths.key.clone(),
            },
            other => unusable(other.to_string()),
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok((Arc::new(config), warning))
}

/// The certificates of the PEM file given with `flag` (a server's own first).
pub fn read_certificates(
    flag: &'static str,
    path: &Path,
) -> Result<Vec<CertificateDer<'static>>, PairError> {
    let pem = read(flag, path)?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| PairError::BadPem {
            flag,
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
    if certs.is_empty() {
        return Err(PairError::NoCertificate {
            flag,
            path: path.to_path_buf(),
        });
    }
    Ok(certs)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, PairError> {
    let pem = read("--tls-key", path)?;
    PrivateKeyDer::from_pem_slice(&pem).map_err(|e| match e {
        rustls::pki_types::pem::Error::NoItemsFound => PairError::NoKey(path.to_path_buf()),
        other => PairError::BadPem {
            flag: "--tls-key",
            path: path.to_path_buf(),
            reason: other.to_string(),
        },
    })
}

fn read(flag: &'static str, path: &Path) -> Result<Vec<u8>, PairError> {
    std::fs::read(path).map_err(|source| PairError::Unreadable {
        flag,
        path: path.to_path_buf(),
        source,
    })
}
