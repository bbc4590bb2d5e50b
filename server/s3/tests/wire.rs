//! The `fast` client's HTTP/1.1 against a server that answers in the ways HTTP/1.1
//! allows and S3 gateways use (chunks with extensions and trailers, an interim 100, a
//! body ended by the close, `Connection: close`) and in ways it does not (a head that
//! is not HTTP, a body cut short): each read right, or refused in words, and a
//! connection kept only while it can carry the next request.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use keystorm_s3::{ClientConfig, S3Client, TlsConfig};
use keystorm_types::{ClientKind, Credentials, ErrorClass};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// One scripted answer: the bytes sent, and whether the server closes after them.
struct Answer {
    bytes: &'static [u8],
    close: bool,
}

/// A server that answers each request it reads with the next scripted answer, and
/// counts the connections it accepted.
struct Scripted {
    endpoint: String,
    accepted: Arc<AtomicUsize>,
}

async fn scripted(answers: Vec<Answer>) -> Scripted {
    scripted_over(answers, None).await
}

/// [`scripted`], over TLS when `tls` is given.
async fn scripted_over(answers: Vec<Answer>, tls: Option<TlsAcceptor>) -> Scripted {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let scheme = if tls.is_some() { "https" } else { "http" };
    let endpoint = format!("{scheme}://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let answers = Arc::new(answers);
    let next = Arc::new(AtomicUsize::new(0));
    let counted = accepted.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let (answers, next, tls) = (answers.clone(), next.clone(), tls.clone());
            tokio::spawn(async move {
                match tls {
                    None => serve(socket, answers, next).await,
                    Some(tls) => {
                        if let Ok(socket) = tls.accept(socket).await {
                            serve(socket, answers, next).await
                        }
                    }
                }
            });
        }
    });
    Scripted { endpoint, accepted }
}

/// Reads requests (heads without bodies: these tests send none) and answers them.
async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    mut socket: S,
    answers: Arc<Vec<Answer>>,
    next: Arc<AtomicUsize>,
) {
    let mut read = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        while !read.windows(4).any(|w| w == b"\r\n\r\n") {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => read.extend_from_slice(&buf[..n]),
            }
        }
        let end = read.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        read.drain(..end);
        let Some(answer) = answers.get(next.fetch_add(1, Ordering::SeqCst)) else {
            return;
        };
        if socket.write_all(answer.bytes).await.is_err()
            || socket.flush().await.is_err()
            || answer.close
        {
            let _ = socket.shutdown().await;
            return;
        }
    }
}

fn client(endpoint: &str) -> ClientConfig {
    ClientConfig {
        kind: ClientKind::Fast,
        endpoint: endpoint.to_string(),
        region: "us-east-1".into(),
        path_style: true,
        credentials: Credentials {
            access_key_id: "a".into(),
            secret_access_key: "s".into(),
            session_token: None,
        },
        tls: TlsConfig::default(),
        timeout: Some(Duration::from_secs(10)),
        retries: 0,
        pool_size: 4,
        checksums: false,
        payload_signing: false,
    }
}

#[tokio::test]
async fn bodies_framed_every_way_http_allows_are_read_whole() {
    let server = scripted(vec![
        Answer {
            bytes: b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nx-trailer: t\r\n\r\n",
            close: false,
        },
        Answer {
            bytes: b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc",
            close: false,
        },
        Answer {
            bytes: b"HTTP/1.1 200 OK\r\nETag: \"e\"\r\nContent-Length: 9\r\nx-amz-meta-Color: red\r\n\r\n",
            close: false,
        },
        Answer {
            bytes: b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the close",
            close: true,
        },
        Answer {
            bytes: b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
            close: false,
        },
    ])
    .await;
    let c = S3Client::connect(&client(&server.endpoint)).await.unwrap();
    assert_eq!(c.get_object_bytes("b", "k").await.unwrap(), "hello world");
    assert_eq!(c.get_object_bytes("b", "k").await.unwrap(), "abc");
    // A HEAD's answer has no body whatever its length says.
    let head = c.head_object("b", "k").await.unwrap();
    assert_eq!(head.size, 9);
    assert_eq!(head.etag.as_deref(), Some("\"e\""));
    assert_eq!(head.metadata, [("color".to_string(), "red".to_string())]);
    // Three answers, one connection: each was read to its end and the connection kept.
    assert_eq!(server.accepted.load(Ordering::SeqCst), 1);
    assert_eq!(
        c.get_object_bytes("b", "k").await.unwrap(),
        "until the close"
    );
    // The connection the server closed is not used again.
    assert_eq!(c.get_object_bytes("b", "k").await.unwrap(), "ok");
    assert_eq!(server.accepted.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn answers_that_are_not_http_or_cut_short_are_connection_errors_in_words() {
    let server = scripted(vec![
        Answer {
            bytes: b"HTTQ/1.1 200 OK\r\n\r\n",
            close: true,
        },
        Answer {
            bytes: b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello",
            close: true,
        },
        Answer {
            bytes: b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            close: true,
        },
        Answer {
            bytes: b"",
            close: true,
        },
        Answer {
            bytes: b"HTTP/1.1 503 Slow Down\r\nContent-Length: 63\r\n\r\n<Error><Code>SlowDown</Code><Message>later</Message></Error>   ",
            close: false,
        },
    ])
    .await;
    let c = S3Client::connect(&client(&server.endpoint)).await.unwrap();
    let e = c.get_object_bytes("b", "k").await.unwrap_err();
    assert_eq!(e.class, ErrorClass::Connection, "{e}");
    assert!(
        e.message.starts_with("GET: bad response: response head"),
        "{e}"
    );
    let e = c.get_object_bytes("b", "k").await.unwrap_err();
    assert_eq!(
        (e.class, e.message.as_str()),
        (
            ErrorClass::Connection,
            "GET: connection closed 5 bytes before the body's end"
        )
    );
    let e = c.get_object_bytes("b", "k").await.unwrap_err();
    assert_eq!(e.message, "GET: bad response: chunk size \"zz\"");
    let e = c.head_object("b", "k").await.unwrap_err();
    assert_eq!(
        (e.class, e.message.as_str()),
        (
            ErrorClass::Connection,
            "HEAD: connection closed before an answer"
        )
    );
    // An error status with S3's document: its code and message reach the user.
    let e = c.get_object_bytes("b", "k").await.unwrap_err();
    assert_eq!(e.class, ErrorClass::SlowDown);
    assert_eq!(e.message, "GET: HTTP 503 SlowDown: later");
    assert_eq!(server.accepted.load(Ordering::SeqCst), 5);
}

/// The timeout is the whole request's, body included: an answer whose head came late
/// has only what is left of it to finish its body in. (Time is the test runtime's,
/// paused: it moves on to the next timer whenever nothing else can run.)
#[tokio::test(start_paused = true)]
async fn a_request_and_its_answers_body_share_one_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut read = Vec::new();
        let mut buf = [0u8; 4096];
        while !read.windows(4).any(|w| w == b"\r\n\r\n") {
            match socket.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => read.extend_from_slice(&buf[..n]),
            }
        }
        // The head after 6 of the 10 seconds, then half the body, then nothing.
        tokio::time::sleep(Duration::from_secs(6)).await;
        let _ = socket
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello")
            .await;
        std::future::pending::<()>().await;
    });
    let c = S3Client::connect(&client(&endpoint)).await.unwrap();
    let asked = tokio::time::Instant::now();
    let e = c.delete_object("b", "k").await.unwrap_err();
    let waited = asked.elapsed();
    assert_eq!(
        (e.class, e.message.as_str()),
        (ErrorClass::Timeout, "DELETE: body not read within 10s")
    );
    // Ten seconds from the request, not ten more from its head (16).
    assert!(
        waited >= Duration::from_secs(10) && waited < Duration::from_secs(12),
        "{waited:?}"
    );
}

/// A CA of the test's own and a server certificate for 127.0.0.1 it signed: the CA as
/// a PEM file, and the server's TLS set-up.
fn test_ca(dir: &std::path::Path) -> (std::path::PathBuf, TlsAcceptor) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    let ca_file = dir.join("ca.pem");
    std::fs::write(&ca_file, issuer.pem()).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["127.0.0.1".to_string()])
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::try_from(key.serialize_der()).unwrap(),
        )
        .unwrap();
    (ca_file, TlsAcceptor::from(Arc::new(config)))
}

#[tokio::test]
async fn https_answers_are_read_and_the_connection_kept_past_its_session_tickets() {
    let dir = tempfile::tempdir().unwrap();
    let (ca_file, acceptor) = test_ca(dir.path());
    let ok = || Answer {
        bytes: b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret",
        close: false,
    };
    let server = scripted_over(vec![ok(), ok(), ok(), ok()], Some(acceptor)).await;
    let mut config = client(&server.endpoint);
    config.tls.ca_file = Some(ca_file);
    let c = S3Client::connect(&config).await.unwrap();
    for _ in 0..3 {
        assert_eq!(c.get_object_bytes("b", "k").await.unwrap(), "secret");
    }
    // TLS 1.3 servers send session tickets after the handshake: bytes on an idle
    // connection that are not an answer, and no reason to drop it.
    assert_eq!(server.accepted.load(Ordering::SeqCst), 1);

    // A client that does not trust the CA is refused, and says so.
    let untrusting = S3Client::connect(&client(&server.endpoint)).await.unwrap();
    let e = untrusting.get_object_bytes("b", "k").await.unwrap_err();
    assert_eq!(e.class, ErrorClass::Connection, "{e}");
    assert!(e.message.starts_with("GET: cannot connect: "), "{e}");
    assert!(e.message.contains("certificate"), "{e}");
}
