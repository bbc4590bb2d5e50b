//! Certificates made for a test (a CA of its own, and server pairs it signs for
//! 127.0.0.1 and localhost), and a small blocking HTTPS client that trusts one CA and
//! can say which certificate a server presented.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

/// A certificate authority of the test's own.
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
    /// Its certificate as a PEM file (what `--ca-file` is given).
    pub file: PathBuf,
}

/// A server certificate and key as PEM files, and the certificate itself.
pub struct ServerPair {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub der: Vec<u8>,
}

impl TestCa {
    /// A new CA named `name`, its certificate written to `dir/NAME-ca.pem`.
    pub fn new(dir: &Path, name: &str) -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, format!("{name} test CA"));
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        let file = dir.join(format!("{name}-ca.pem"));
        std::fs::write(&file, issuer.pem()).unwrap();
        TestCa { issuer, file }
    }

    /// A server certificate for 127.0.0.1 and localhost signed by this CA, written as
    /// `dir/STEM.crt` and `dir/STEM.key`.
    pub fn issue(&self, dir: &Path, stem: &str) -> ServerPair {
        self.issue_into(
            &dir.join(format!("{stem}.crt")),
            &dir.join(format!("{stem}.key")),
        )
    }

    /// A new server certificate and key written over `cert` and `key`.
    pub fn issue_into(&self, cert: &Path, key: &Path) -> ServerPair {
        self.issue_for(cert, key, &["127.0.0.1", "localhost"])
    }

    /// A new server certificate for `names` (host names or IP addresses) and its key,
    /// written over `cert` and `key`.
    pub fn issue_for(&self, cert: &Path, key: &Path, names: &[&str]) -> ServerPair {
        let params =
            CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .unwrap();
        let signing_key = KeyPair::generate().unwrap();
        let made = params.signed_by(&signing_key, &self.issuer).unwrap();
        std::fs::write(key, signing_key.serialize_pem()).unwrap();
        std::fs::write(cert, made.pem()).unwrap();
        ServerPair {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            der: made.der().to_vec(),
        }
    }
}

/// `serve` flags serving `pair`.
pub fn tls_flags(pair: &ServerPair) -> Vec<String> {
    vec![
        "--tls-cert".into(),
        pair.cert.display().to_string(),
        "--tls-key".into(),
        pair.key.display().to_string(),
    ]
}

/// A TLS connection to the server at `url` (https://HOST:PORT) trusting only `ca`.
fn connect(url: &str, ca: &Path) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    let addr = url.strip_prefix("https://").expect("an https:// URL");
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let host = addr.rsplit_once(':').unwrap().0.to_string();
    let name = ServerName::try_from(host).unwrap();
    let connection = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    rustls::StreamOwned::new(connection, TcpStream::connect(addr).unwrap())
}

/// The certificate the server at `url` presents to a new connection.
pub fn presented_certificate(url: &str, ca: &Path) -> Vec<u8> {
    let mut tls = connect(url, ca);
    while tls.conn.is_handshaking() {
        tls.conn.complete_io(&mut tls.sock).unwrap();
    }
    tls.conn.peer_certificates().unwrap()[0].to_vec()
}

/// `METHOD path` of the server at `url` over HTTPS trusting `ca`, with a JSON `body`;
/// the status and the body of the answer.
pub fn https_request(
    url: &str,
    ca: &Path,
    method: &str,
    path: &str,
    body: Option<&serde_json::Value>,
) -> (u16, String) {
    https_request_with(url, ca, None, method, path, body)
}

/// [`https_request`] with the bearer `token`, if any.
pub fn https_request_with(
    url: &str,
    ca: &Path,
    token: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&serde_json::Value>,
) -> (u16, String) {
    let mut tls = connect(url, ca);
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let host = url.strip_prefix("https://").unwrap();
    let authorization = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    write!(
        tls,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{authorization}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    // A server may close without a TLS close_notify once it answered.
    if let Err(e) = tls.read_to_end(&mut answer) {
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof, "{e}");
    }
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

/// GET `path` as JSON, which must answer 200.
pub fn https_get_json(url: &str, ca: &Path, path: &str) -> serde_json::Value {
    let (status, body) = https_request(url, ca, "GET", path, None);
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}
