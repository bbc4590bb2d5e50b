//! TLS for the fast client: the system's roots plus an optional CA file, or — for test
//! clusters with self-signed certificates, and only when the workload asks — no
//! verification at all.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

use crate::TlsConfig;

/// Why TLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("TLS set-up: {0}")]
    Setup(#[from] rustls::Error),
    #[error("tls.ca_file {}: {source}", path.display())]
    CaFile {
        path: std::path::PathBuf,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("tls.ca_file {}: no PEM certificate in it", .0.display())]
    NoCertificate(std::path::PathBuf),
}

pub fn client_config(tls: &TlsConfig) -> Result<rustls::ClientConfig, TlsError> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()?;
    if tls.insecure_skip_verify {
        return Ok(builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AcceptAnyCertificate(provider)))
            .with_no_client_auth());
    }
    let mut roots = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    for cert in native.certs {
        // A broken system certificate must not stop the run; the others still work.
        let _ = roots.add(cert);
    }
    if let Some(path) = &tls.ca_file {
        let ca_file = |e: Box<dyn std::error::Error + Send + Sync>| TlsError::CaFile {
            path: path.clone(),
            source: e,
        };
        let pem = std::fs::read(path).map_err(|e| ca_file(e.into()))?;
        let mut added = 0;
        for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
            let cert = cert.map_err(|e| ca_file(e.into()))?;
            roots.add(cert).map_err(|e| ca_file(e.into()))?;
            added += 1;
        }
        if added == 0 {
            return Err(TlsError::NoCertificate(path.clone()));
        }
    }
    Ok(builder.with_root_certificates(roots).with_no_client_auth())
}

/// Accepts every certificate: `insecure_skip_verify` only.
#[derive(Debug)]
struct AcceptAnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AcceptAnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
