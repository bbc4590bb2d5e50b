//! The listener on loopback with a certificate made here: a silent client holds up no
//! other and is let go after the handshake timeout; a plain HTTP client is told to use
//! https.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::serve::Listener;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::*;
use crate::tls::{PairPaths, ServedPair};

/// A self-signed pair for 127.0.0.1 written in `dir`; the certificate's PEM.
fn write_pair(dir: &std::path::Path) -> (PairPaths, String) {
    let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let paths = PairPaths {
        cert: dir.join("tls.crt"),
        key: dir.join("tls.key"),
    };
    let pem = made.cert.pem();
    std::fs::write(&paths.cert, &pem).unwrap();
    std::fs::write(&paths.key, made.signing_key.serialize_pem()).unwrap();
    (paths, pem)
}

async fn listening(timeout: Duration) -> (TlsListener, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (paths, pem) = write_pair(dir.path());
    let pair = ServedPair::load(paths).unwrap();
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let listener = TlsListener::with_timeout(tcp, pair, timeout).unwrap();
    (listener, pem, dir)
}

/// A TLS client trusting `pem`, handshaken with the listener at `addr`.
async fn tls_client(
    addr: std::net::SocketAddr,
    pem: &str,
) -> tokio_rustls::client::TlsStream<TcpStream> {
    let ca = std::env::temp_dir().join(format!("keystorm-listener-ca-{}.pem", addr.port()));
    std::fs::write(&ca, pem).unwrap();
    let config = crate::tls::client_config(Some(&ca)).unwrap();
    let _ = std::fs::remove_file(&ca);
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    connector.connect(name, tcp).await.unwrap()
}

#[tokio::test]
async fn a_silent_client_holds_up_no_other_handshake() {
    let (mut listener, pem, _dir) = listening(Duration::from_secs(60)).await;
    let addr = listener.local_addr().unwrap();
    // Connected, and saying nothing: its handshake waits for its first byte.
    let _silent = TcpStream::connect(addr).await.unwrap();
    let client = tokio::spawn({
        let pem = pem.clone();
        async move { tls_client(addr, &pem).await }
    });
    let (_served, peer) = tokio::time::timeout(Duration::from_secs(10), listener.accept())
        .await
        .expect("the second client's connection is accepted while the first is silent");
    let client = client.await.unwrap();
    assert_eq!(peer, client.get_ref().0.local_addr().unwrap());
}

#[tokio::test]
async fn a_client_that_does_not_finish_its_handshake_is_let_go() {
    let (_listener, _pem, _dir) = listening(Duration::from_millis(300)).await;
    let addr = _listener.local_addr().unwrap();
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let start = Instant::now();
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(10), silent.read(&mut buf))
        .await
        .expect("the server closes the connection");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    assert!(start.elapsed() >= Duration::from_millis(250));
}

#[tokio::test]
async fn a_plain_http_client_is_told_to_use_https() {
    let (_listener, _pem, _dir) = listening(Duration::from_secs(10)).await;
    let addr = _listener.local_addr().unwrap();
    let mut plain = TcpStream::connect(addr).await.unwrap();
    plain
        .write_all(b"GET /api/status HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(10), plain.read_to_string(&mut answer))
        .await
        .unwrap()
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 400 "), "{answer}");
    let body: serde_json::Value =
        serde_json::from_str(answer.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(body["error"], "https_required");
    assert!(body["detail"].as_str().unwrap().contains("https://"));
}
