//! One S3 suite, run against the embedded target through both clients (`fast` and
//! `sdk`): what one client does, the other must do the same way. This is what makes
//! `fast` fit to be the default.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use keystorm_s3::{ClientConfig, ListRequest, S3Client, TlsConfig};
use keystorm_types::ErrorClass;
use keystorm_types::{ClientKind, Credentials};

const ACCESS: &str = "suite-access";
const SECRET: &str = "suite-secret";

async fn sim() -> keystorm_sim::SimHandle {
    keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        keystorm_sim::SimConfig {
            credentials: Some((ACCESS.into(), SECRET.into())),
            ..Default::default()
        },
    )
    .await
    .unwrap()
}

fn config(kind: ClientKind, endpoint: &str) -> ClientConfig {
    ClientConfig {
        kind,
        endpoint: endpoint.to_string(),
        region: "us-east-1".into(),
        path_style: true,
        credentials: Credentials {
            access_key_id: ACCESS.into(),
            secret_access_key: SECRET.into(),
            session_token: None,
        },
        tls: TlsConfig::default(),
        timeout: Some(Duration::from_secs(10)),
        retries: 0,
        pool_size: 8,
        checksums: false,
        payload_signing: false,
    }
}

async fn client(kind: ClientKind, endpoint: &str) -> S3Client {
    S3Client::connect(&config(kind, endpoint)).await.unwrap()
}

macro_rules! both_clients {
    ($($name:ident),* $(,)?) => {
        mod fast {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name(keystorm_types::ClientKind::Fast).await
                }
            )*
        }
        mod sdk {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name(keystorm_types::ClientKind::Sdk).await
                }
            )*
        }
    };
}

both_clients!(
    buckets_are_created_found_and_deleted,
    objects_round_trip_with_metadata,
    an_empty_object_is_put_with_its_length,
    ranges_return_the_right_bytes,
    missing_keys_and_buckets_are_404,
    listing_paginates_exactly,
    delimiter_and_start_after,
    delete_objects_removes_a_batch,
    awkward_keys_round_trip,
    payload_signing_works_both_ways,
    a_wrong_secret_is_refused,
    a_closed_port_is_a_connection_error,
    a_silent_server_is_a_timeout,
    multipart_uploads_and_streamed_gets,
);

async fn multipart_uploads_and_streamed_gets(kind: ClientKind) {
    let s = sim().await;
    let c = client(kind, &s.endpoint()).await;
    c.create_bucket("mpu").await.unwrap();
    let parts: Vec<Bytes> = (0..3u8)
        .map(|n| Bytes::from(vec![n + 1; if n < 2 { 5 << 20 } else { 777 }]))
        .collect();
    let meta = vec![("kind".to_string(), "mp".to_string())];
    let id = c
        .create_multipart_upload("mpu", "obj", &meta)
        .await
        .unwrap();
    let mut listed = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        let n = i as u32 + 1;
        listed.push((
            n,
            c.upload_part("mpu", "obj", &id, n, p.clone())
                .await
                .unwrap(),
        ));
    }
    let etag = c
        .complete_multipart_upload("mpu", "obj", &id, &listed)
        .await
        .unwrap();
    assert!(etag.ends_with("-3\""), "{etag}");
    let head = c.head_object("mpu", "obj").await.unwrap();
    assert_eq!(head.size, (10 << 20) + 777);
    assert_eq!(head.etag.as_deref(), Some(etag.as_str()));
    assert_eq!(head.metadata, meta);
    // Streamed into a sink chunk by chunk, ranged across a part boundary.
    let mut got = Vec::new();
    let out = c
        .get_object_to(
            "mpu",
            "obj",
            Some(((5 << 20) - 2, (5 << 20) + 1)),
            &mut |chunk| {
                got.extend_from_slice(chunk);
                Ok(())
            },
        )
        .await
        .unwrap();
    assert_eq!(out.bytes, 4);
    assert_eq!(got, [1, 1, 2, 2]);
    // A failing sink stops the GET with a clear error.
    let e = c
        .get_object_to("mpu", "obj", None, &mut |_| {
            Err(std::io::Error::other("disk full"))
        })
        .await
        .unwrap_err();
    assert!(e.message.contains("disk full"), "{e}");
    // An aborted upload is gone.
    let id = c.create_multipart_upload("mpu", "gone", &[]).await.unwrap();
    c.abort_multipart_upload("mpu", "gone", &id).await.unwrap();
    let e = c
        .upload_part("mpu", "gone", &id, 1, Bytes::from_static(b"x"))
        .await
        .unwrap_err();
    assert_eq!(e.class, ErrorClass::Http(404));
}

async fn buckets_are_created_found_and_deleted(kind: ClientKind) {
    let s = sim().await;
    let c = client(kind, &s.endpoint()).await;
    assert!(!c.bucket_exists("life").await.unwrap());
    assert!(c.create_bucket("life").await.unwrap(), "created");
    assert!(!c.create_bucket("life").await.unwrap(), "already ours");
    assert!(c.bucket_exists("life").await.unwrap());
    c.put_object("life", "k", Bytes::from_static(b"x"), &[])
        .await
        .unwrap();
    let e = c.delete_bucket("life").await.unwrap_err();
    assert_eq!(e.class, ErrorClass::Http(409), "{e}");
    assert!(e.message.contains("BucketNotEmpty"), "{e}");
    c.delete_object("life", "k").await.unwrap();
    c.delete_bucket("life").await.unwrap();
    assert!(!c.bucket_exists("life").await.unwrap());
}

async fn objects_round_trip_with_metadata(kind: ClientKind) {
    let s = sim().await;
    let c = client(kind, &s.endpoint()).await;
    c.create_bucket("obj").await.unwrap();
    let body: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
    let meta = vec![
        ("team".to_string(), "team-3".to_string()),
        ("idx".to_string(), "42".to_string()),
    ];
    c.put_object("obj", "a/b", Bytes::from(body.clone()), &meta)
        .await
        .unwrap();
    assert_eq!(c.get_object_bytes("obj", "a/b").await.unwrap(), body);
    let g = c.get_object("obj", "a/b", None).await.unwrap();
    assert_eq!(g.bytes, 5000);
    assert!(g.ttfb > Duration::ZERO);
    let h = c.head_object("obj", "a/b").await.unwrap();
    assert_eq!(h.size, 5000);
    let mut sorted = meta.clone();
    sorted.sort();
    assert_eq!(h.metadata, sorted);
    let etag = h.etag.unwrap();
    assert_eq!(etag.len(), 34, "quoted MD5: {etag}");
    assert!(h.last_modified.is_some());
}

/// A 0-byte PUT says `Content-Length: 0`: the target, as S3 and RGW, refuses a PUT that
/// does not say how long its body is (411 MissingContentLength).
async fn an_empty_object_is_put_with_its_length(kind: ClientKind) {
    let s = sim().await;
    let c = client(kind, &s.endpoint()).await;
    c.create_bucket("empty").await.unwrap();
    c.put_object("empty", "nothing", Bytes::new(), &[])
        .await
        .unwrap();
    assert_eq!(c.head_object("empty", "nothing").await.unwrap().size, 0);
    assert!(
        c.get_object_bytes("empty", "nothing")
            .await
            .unwrap()
            .is_empty()
    );
}

async fn ranges_return_the_right_bytes(kind: ClientKind) {
    let s = sim().await;
    let c = client(kind, &s.endpoint()).await;
    c.create_bucket("rng").await.unwrap();
    c.put_object("rng", "k", Bytes::from(vec![7u8; 1000]), &[])
        .await
        .unwrap();
    assert_eq!(
        c.get_object("rng", "k", Some((10, 19)))
            .await
            .unwrap()
            .bytes,
        10
    );
    assert_eq!(
        c.get_object("rng", "k", Some((990, 5000)))
            .await
            .unwrap()
            .bytes,
        10
    );
    let e = c
        .get_object("rng", "k", Some((1000, 1001)))
        .await
        .unwrap_err();
    assert_eq!(e.class, ErrorClass::Http(416), "{e}");
}

async fn missing_keys_and_buckets_are_404(kind: ClientKind) {
    let s = sim().await;
    let c = client(kind, &s.endpoint()).await;
    c.create_bucket("miss").await.unwrap();
    let e = c.get_object("miss", "nope", None).await.unwrap_err();
    assert_eq!(e.class, ErrorClass::Http(404));
    assert!(e.message.contains("NoSuchKey"), "{e}");
    assert_eq!(
        c.head_object("miss", "nope").await.unwrap_err().class,
        ErrorClass::Http(404)
    );
    let e = c
        .list_objects_v2("absent", &ListRequest::default())
        .await
        .unwrap_err();
    assert_eq!(e.class, ErrorClass::Http(404));
    assert!(e.message.contains("NoSuchBucket"), "{e}");
    // Deleting a missing key succeeds, as in S3.
    c.delete_object("miss", "nope").await.unwrap();
}

async fn listing_paginates_exactly(kind: ClientKind) {
    let s = sim().await;
    let c = client(kind, &s.endpoint()).await;
    c.create_bucket("pages").await.unwrap();
    for i in 0..2500 {
        c.put_object("pages", &format!("k{i:05}"), Bytes::from_static(b"v"), &[])
            .await
            .unwrap();
    }
    let mut req = ListRequest {
        max_keys: Some(1000),
        ..Default::default()
    };
    let mut keys = Vec::new();
    let mut pages = 0;
    loop {
        let page = c.list_objects_v2("pages", &req).await.unwrap();
        pages += 1;
        assert!(page.entries.len() <= 1000);
        keys.extend(page.entries.iter().map(|e| e.key.clone()));
        assert!(page.entries.iter().all(|e| e.size == 1 && e.etag.is_some()));
        match page.next_continuation_token.filter(|_| page.is_truncated) {
            Some(t) => req.continuation_token = Some(t),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    let expected: Vec<String> = (0..2500).map(|i| format!("k{i:05}")).collect();
    assert_eq!(keys, expected, "every key once, in order");
}

async fn delimiter_and_start_after(kind: ClientKind) {
    let s = sim().await;
    let c = client(kind, &s.endpoint()).await;
    c.create_bucket("tree").await.unwrap();
    for k in ["a/1", "a/2", "b/1", "c", "d/x/1"] {
        c.put_object("tree", k, Bytes::from_static(b"v"), &[])
            .await
            .unwrap();
    }
    let page = c
        .list_objects_v2(
            "tree",
            &ListRequest {
                delimiter: Some("/".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(page.common_prefixes, ["a/", "b/", "d/"]);
    assert_eq!(
        page.entries
            .iter()
            .map(|e| e.key.as_str())
            .collect::<Vec<_>>(),
        ["c"]
    );
    let page = c
        .list_objects_v2(
            "tree",
            &ListRequest {
                start_after: Some("b/1".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        page.entries
            .iter()
            .map(|e| e.key.as_str())
            .collect::<Vec<_>>(),
        ["c", "d/x/1"]
    );
    let page = c
        .list_objects_v2(
            "tree",
            &ListRequest {
                prefix: Some("a/".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(page.entries.len(), 2);
}

async fn delete_objects_removes_a_batch(kind: ClientKind) {
    let s = sim().await;
    let c = client(kind, &s.endpoint()).await;
    c.create_bucket("batch").await.unwrap();
    let keys: Vec<String> = (0..50).map(|i| format!("x/{i} & <{i}>")).collect();
    for k in &keys {
        c.put_object("batch", k, Bytes::from_static(b"v"), &[])
            .await
            .unwrap();
    }
    let out = c.delete_objects("batch", &keys[..30]).await.unwrap();
    assert_eq!(out.deleted, 30);
    assert!(out.errors.is_empty());
    assert_eq!(s.object_count("batch"), Some(20));
}

async fn awkward_keys_round_trip(kind: ClientKind) {
    let s = sim().await;
    let c = client(kind, &s.endpoint()).await;
    c.create_bucket("keys").await.unwrap();
    let keys = [
        "with space",
        "plus+sign",
        "pct%20x",
        "amp&eq=q?",
        "ünïcødé/日本",
        "tilde~star*",
        "a//b",
    ];
    for k in keys {
        c.put_object("keys", k, Bytes::from(k.as_bytes().to_vec()), &[])
            .await
            .unwrap();
        assert_eq!(
            c.get_object_bytes("keys", k).await.unwrap(),
            k.as_bytes(),
            "{k}"
        );
    }
    let page = c
        .list_objects_v2("keys", &ListRequest::default())
        .await
        .unwrap();
    let mut listed: Vec<&str> = page.entries.iter().map(|e| e.key.as_str()).collect();
    let mut expected = keys.to_vec();
    listed.sort();
    expected.sort();
    assert_eq!(listed, expected);
    let page = c
        .list_objects_v2(
            "keys",
            &ListRequest {
                prefix: Some("plus+".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(page.entries.len(), 1);
}

async fn payload_signing_works_both_ways(kind: ClientKind) {
    let s = sim().await;
    let mut cfg = config(kind, &s.endpoint());
    cfg.payload_signing = true;
    let c = S3Client::connect(&cfg).await.unwrap();
    c.create_bucket("signed").await.unwrap();
    c.put_object("signed", "k", Bytes::from_static(b"signed body"), &[])
        .await
        .unwrap();
    assert_eq!(
        c.get_object_bytes("signed", "k").await.unwrap(),
        &b"signed body"[..]
    );
}

async fn a_wrong_secret_is_refused(kind: ClientKind) {
    let s = sim().await;
    let mut cfg = config(kind, &s.endpoint());
    cfg.credentials.secret_access_key = "not-the-secret".into();
    let c = S3Client::connect(&cfg).await.unwrap();
    let e = c.create_bucket("denied").await.unwrap_err();
    assert_eq!(e.class, ErrorClass::Http(403), "{e}");
    assert!(e.message.contains("SignatureDoesNotMatch"), "{e}");
}

async fn a_closed_port_is_a_connection_error(kind: ClientKind) {
    // Bind, learn the port, close: nothing listens there now.
    let addr: SocketAddr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let c = client(kind, &format!("http://{addr}")).await;
    let e = c.head_object("b", "k").await.unwrap_err();
    assert_eq!(e.class, ErrorClass::Connection, "{e}");
    // Said in words a reader knows, the same whichever client: what failed and the
    // system's reason, none of the HTTP library's wrapping or debug dumps.
    assert_eq!(
        e.message, "HEAD: cannot connect: Connection refused (os error 111)",
        "{e}"
    );
    let e = c.bucket_exists("some-bucket").await.unwrap_err();
    assert_eq!(
        e.message,
        "HeadBucket: cannot connect: Connection refused (os error 111)"
    );
}

async fn a_silent_server_is_a_timeout(kind: ClientKind) {
    // A server that accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let holder = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            open.push(s);
        }
    });
    let mut cfg = config(kind, &format!("http://{addr}"));
    cfg.timeout = Some(Duration::from_millis(300));
    let c = S3Client::connect(&cfg).await.unwrap();
    let e = c.get_object("b", "k", None).await.unwrap_err();
    assert_eq!(e.class, ErrorClass::Timeout, "{e}");
    holder.abort();
}

#[tokio::test]
async fn fast_refuses_checksums_and_sdk_refuses_skip_verify_clearly() {
    let mut cfg = config(ClientKind::Fast, "http://127.0.0.1:1");
    cfg.checksums = true;
    let e = S3Client::connect(&cfg).await.err().unwrap();
    assert!(e.message.contains("client: sdk"), "{e}");
    let mut cfg = config(ClientKind::Sdk, "https://127.0.0.1:1");
    cfg.tls.insecure_skip_verify = true;
    let e = S3Client::connect(&cfg).await.err().unwrap();
    assert!(e.message.contains("client: fast"), "{e}");
}

#[tokio::test]
async fn sdk_with_checksums_stores_the_right_bytes() {
    let s = sim().await;
    let mut cfg = config(ClientKind::Sdk, &s.endpoint());
    cfg.checksums = true;
    let c = S3Client::connect(&cfg).await.unwrap();
    c.create_bucket("crc").await.unwrap();
    let body = Bytes::from(vec![3u8; 70_000]);
    c.put_object("crc", "k", body.clone(), &[]).await.unwrap();
    assert_eq!(c.get_object_bytes("crc", "k").await.unwrap(), body);
}
