//! A failed TLS handshake with a controller, said in one line with what to do about it,
//! instead of the HTTP library's chain of wrapped errors.

use std::error::Error;

use rustls::CertificateError;

/// What went wrong and what to do, if `error` (or an error it wraps) is a TLS failure;
/// `ca_file` is the CA the client trusted, if it was given one.
pub fn describe(
    error: &(dyn Error + 'static),
    ca_file: Option<&std::path::Path>,
) -> Option<String> {
    let tls = find_tls_error(error)?;
    let trust = match ca_file {
        Some(path) => format!(
            "the CA in --ca-file {} did not sign it: give the CA that signed it",
            path.display()
        ),
        None => "give --ca-file with the CA that signed it".to_string(),
    };
    Some(match tls {
        rustls::Error::InvalidCertificate(cert) => match cert {
            CertificateError::UnknownIssuer => {
                format!("its certificate is not trusted (unknown issuer): {trust}")
            }
            CertificateError::BadSignature => {
                format!("its certificate is not trusted (bad signature): {trust}")
            }
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                "its certificate is not made out to the name in the URL: use a name it holds, \
                 or make it with that name in its subjectAltName"
                    .to_string()
            }
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                "its certificate has expired: give it a new one (`keystorm serve` reads it \
                 again on SIGHUP)"
                    .to_string()
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                "its certificate is not valid yet: is the clock of this host or the \
                 controller's wrong?"
                    .to_string()
            }
            CertificateError::Revoked => "its certificate is revoked".to_string(),
            other if format!("{other:?}").contains("CaUsedAsEndEntity") => {
                "its certificate is a CA certificate (basicConstraints CA:TRUE), which cannot \
                 be a server's: make it with -addext basicConstraints=critical,CA:FALSE"
                    .to_string()
            }
            other => format!("its certificate is not accepted ({other:?}): {trust}"),
        },
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => {
            "it does not speak TLS there: use http://, or start it with --tls-cert and \
             --tls-key"
                .to_string()
        }
        other => format!("the TLS handshake failed: {other}"),
    })
}

/// The TLS error in `error`'s chain. An `io::Error` hides the error it wraps from
/// `source()` (and may wrap another `io::Error`), so each link is also looked into.
fn find_tls_error<'a>(error: &'a (dyn Error + 'static)) -> Option<&'a rustls::Error> {
    if let Some(tls) = error.downcast_ref::<rustls::Error>() {
        return Some(tls);
    }
    let wrapped = error
        .downcast_ref::<std::io::Error>()
        .and_then(|io| io.get_ref())
        .map(|inner| inner as &(dyn Error + 'static));
    wrapped
        .and_then(find_tls_error)
        .or_else(|| error.source().and_then(find_tls_error))
}
