//! The listener on loopback with a certificate made here: a silent client holds up no
//! other and is let go after the handshake timeout; a cap on handshakes under way,
//! reached, lets the oldest go (the peer's own, or anyone's for the overall cap) and
//! never a newer one or another peer's; a plain HTTP client is told to use https.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::serve::Listener;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};

use super::*;
use crate::tls::{PairPaths, ServedPair};

/// Longer than any of these tests: a handshake let go here was let go to make room.
const NEVER: Duration = Duration::from_secs(3600);
/// How long a test waits for what the listener should do before it fails.
const DEADLINE: Duration = Duration::from_secs(60);

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
    let caps = PendingCaps {
        per_peer: PENDING_PER_PEER,
        in_all: PENDING_IN_ALL,
    };
    listening_with(timeout, caps).await
}

async fn listening_with(
    timeout: Duration,
    caps: PendingCaps,
) -> (TlsListener, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (paths, pem) = write_pair(dir.path());
    let pair = ServedPair::load(paths).unwrap();
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let listener = TlsListener::with_limits(tcp, pair, timeout, caps).unwrap();
    (listener, pem, dir)
}

/// A listener whose handshakes never time out, with caps `per_peer` and `in_all`; its
/// address.
async fn listening_capped(
    per_peer: usize,
    in_all: usize,
) -> (TlsListener, std::net::SocketAddr, String, tempfile::TempDir) {
    let caps = PendingCaps { per_peer, in_all };
    let (listener, pem, dir) = listening_with(NEVER, caps).await;
    let addr = listener.local_addr().unwrap();
    (listener, addr, pem, dir)
}

/// The next connection `listener` hands on, its handshake done.
async fn next_accepted(listener: &mut TlsListener) -> Ready {
    tokio::time::timeout(DEADLINE, listener.accept())
        .await
        .expect("a connection is accepted")
}

/// A TLS client trusting `pem`, handshaken with the listener at `addr`.
async fn tls_client(
    addr: std::net::SocketAddr,
    pem: &str,
) -> tokio_rustls::client::TlsStream<TcpStream> {
    let tcp = TcpStream::connect(addr).await.unwrap();
    shake_hands(tcp, pem).await.unwrap()
}

/// The TLS handshake over `tcp`, trusting `pem`.
async fn shake_hands(
    tcp: TcpStream,
    pem: &str,
) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
    let port = tcp.local_addr().unwrap().port();
    let ca = std::env::temp_dir().join(format!("keystorm-listener-ca-{port}.pem"));
    std::fs::write(&ca, pem).unwrap();
    let config = crate::tls::client_config(Some(&ca)).unwrap();
    let _ = std::fs::remove_file(&ca);
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    connector.connect(name, tcp).await
}

/// A connection to `addr` from the loopback address `from` (any of 127.0.0.0/8 is this
/// host's), which says nothing.
async fn silent_from(addr: std::net::SocketAddr, from: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(std::net::SocketAddr::new(from.parse().unwrap(), 0))
        .unwrap();
    socket.connect(addr).await.unwrap()
}

/// Waits for the server to close `silent`.
async fn closed(silent: &mut TcpStream, which: &str) {
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(DEADLINE, silent.read(&mut buf))
        .await
        .unwrap_or_else(|_| panic!("the server closes {which}"));
    assert!(matches!(read, Ok(0) | Err(_)), "{which}: {read:?}");
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

#[tokio::test]
async fn a_peer_at_its_cap_has_its_oldest_handshake_let_go_and_a_new_client_gets_in() {
    let (mut listener, addr, pem, _dir) = listening_capped(2, 16).await;
    let mut oldest = silent_from(addr, "127.0.0.1").await;
    let mut second = silent_from(addr, "127.0.0.1").await;
    let _third = silent_from(addr, "127.0.0.1").await;
    closed(&mut oldest, "the oldest silent connection").await;

    // A client of the same address, with both places taken by silent ones.
    let client = tokio::spawn(async move { tls_client(addr, &pem).await });
    let (_served, peer) = next_accepted(&mut listener).await;
    let client = client.await.unwrap();
    assert_eq!(peer, client.get_ref().0.local_addr().unwrap());
    closed(&mut second, "the next oldest silent connection").await;
}

#[tokio::test]
async fn the_overall_cap_lets_the_oldest_of_any_peer_go() {
    let (mut listener, addr, pem, _dir) = listening_capped(4, 2).await;
    let mut oldest = silent_from(addr, "127.0.0.2").await;
    let _newer = silent_from(addr, "127.0.0.3").await;
    let client = tokio::spawn(async move { tls_client(addr, &pem).await });
    closed(
        &mut oldest,
        "the oldest silent connection, of another address",
    )
    .await;
    next_accepted(&mut listener).await;
    client.await.unwrap();
}

#[tokio::test]
async fn silent_connections_of_one_peer_push_out_no_other_peers_handshake() {
    let (mut listener, addr, pem, _dir) = listening_capped(2, 16).await;
    // Connected first, its handshake not begun while another address floods.
    let waiting = silent_from(addr, "127.0.0.2").await;
    let mut flood = Vec::new();
    for _ in 0..12 {
        flood.push(silent_from(addr, "127.0.0.3").await);
    }
    // The flood's tenth is let go as its twelfth comes in: the server took in all of it.
    closed(&mut flood[9], "the flooding address's older connections").await;
    let shaken = tokio::spawn(async move { shake_hands(waiting, &pem).await });
    next_accepted(&mut listener).await;
    shaken
        .await
        .unwrap()
        .expect("the waiting client's handshake, begun after the flood, finishes");
}
