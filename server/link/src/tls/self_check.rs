//! What a client will hold against the certificate the controller is given, found as
//! it is loaded: a CA certificate (basicConstraints CA:TRUE, what `openssl req -x509`
//! makes unless told otherwise), which rustls clients — keystorm's agents among them —
//! refuse as a server's, or a certificate out of its dates.

use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, RootCertStore};

/// A warning about `chain` (the server's certificate first), if a client trusting its
/// last certificate would still refuse it.
pub fn self_check(chain: &[CertificateDer<'static>], cert_file: &str) -> Option<String> {
    let (leaf, rest) = chain.split_first()?;
    let mut roots = RootCertStore::empty();
    roots.add(chain.last()?.clone()).ok()?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let verifier = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
        .build()
        .ok()?;
    // The name is checked last: a certificate refused before that is refused whatever
    // the name.
    let name = ServerName::try_from("keystorm.invalid").ok()?;
    let refused = verifier
        .verify_server_cert(leaf, rest, &name, &[], UnixTime::now())
        .err()?;
    let rustls::Error::InvalidCertificate(why) = refused else {
        return None;
    };
    match why {
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => Some(format!(
            "the certificate in {cert_file} has expired: clients will refuse it"
        )),
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => Some(
            format!("the certificate in {cert_file} is not valid yet: clients will refuse it"),
        ),
        other if format!("{other:?}").contains("CaUsedAsEndEntity") => Some(format!(
            "the certificate in {cert_file} is a CA certificate (basicConstraints CA:TRUE): \
             keystorm agents refuse it as a server's; make it with -addext \
             basicConstraints=critical,CA:FALSE"
        )),
        _ => None,
    }
}
