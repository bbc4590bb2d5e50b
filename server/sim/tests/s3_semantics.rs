//! The embedded target's S3 behaviour, checked through aws-sdk-s3 itself: the client
//! most S3 tools use must find nothing surprising here.

use aws_sdk_s3::Client;
use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region, RequestChecksumCalculation};
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{Delete, ObjectIdentifier};
use keystorm_sim::{SimConfig, SimHandle, Storage};

async fn start(storage: Storage) -> SimHandle {
    keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        SimConfig {
            storage,
            credentials: Some(("ak".into(), "sk".into())),
            ..Default::default()
        },
    )
    .await
    .unwrap()
}

fn client(sim: &SimHandle, checksums: bool) -> Client {
    let conf = aws_sdk_s3::config::Builder::new()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(sim.endpoint())
        .region(Region::new("us-east-1"))
        .force_path_style(true)
        .credentials_provider(Credentials::new("ak", "sk", None, None, "test"))
        .request_checksum_calculation(if checksums {
            RequestChecksumCalculation::WhenSupported
        } else {
            RequestChecksumCalculation::WhenRequired
        })
        .build();
    Client::from_conf(conf)
}

fn status<E, R: std::fmt::Debug>(e: &aws_sdk_s3::error::SdkError<E, R>) -> u16
where
    E: std::fmt::Debug,
{
    match e {
        aws_sdk_s3::error::SdkError::ServiceError(s) => {
            let dbg = format!("{:?}", s.raw());
            dbg.split("status: StatusCode(")
                .nth(1)
                .and_then(|r| r[..3].parse().ok())
                .unwrap_or(0)
        }
        other => panic!("not a service error: {other:?}"),
    }
}

#[tokio::test]
async fn bucket_lifecycle_and_errors() {
    let sim = start(Storage::Memory).await;
    let c = client(&sim, false);
    c.create_bucket().bucket("one").send().await.unwrap();
    c.create_bucket().bucket("two").send().await.unwrap();
    let e = c.create_bucket().bucket("one").send().await.unwrap_err();
    assert!(
        e.as_service_error()
            .unwrap()
            .is_bucket_already_owned_by_you()
    );
    let names: Vec<String> = c
        .list_buckets()
        .send()
        .await
        .unwrap()
        .buckets()
        .iter()
        .map(|b| b.name().unwrap().to_string())
        .collect();
    assert_eq!(names, ["one", "two"]);
    c.head_bucket().bucket("one").send().await.unwrap();
    let e = c.head_bucket().bucket("nope").send().await.unwrap_err();
    assert!(e.as_service_error().unwrap().is_not_found());
    c.put_object()
        .bucket("one")
        .key("k")
        .body(ByteStream::from_static(b"x"))
        .send()
        .await
        .unwrap();
    let e = c.delete_bucket().bucket("one").send().await.unwrap_err();
    assert_eq!(status(&e), 409);
    assert_eq!(
        e.as_service_error().unwrap().meta().code(),
        Some("BucketNotEmpty")
    );
    let e = c.delete_bucket().bucket("nope").send().await.unwrap_err();
    assert_eq!(
        e.as_service_error().unwrap().meta().code(),
        Some("NoSuchBucket")
    );
    c.delete_bucket().bucket("two").send().await.unwrap();
    let e = c
        .create_bucket()
        .bucket("Bad_Name")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        e.as_service_error().unwrap().meta().code(),
        Some("InvalidBucketName")
    );
}

#[tokio::test]
async fn objects_metadata_ranges_and_missing_keys() {
    let sim = start(Storage::Memory).await;
    let c = client(&sim, false);
    c.create_bucket().bucket("bkt").send().await.unwrap();
    let data: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    let put = c
        .put_object()
        .bucket("bkt")
        .key("dir/obj")
        .body(ByteStream::from(data.clone()))
        .metadata("team", "team-5")
        .metadata("Index", "17")
        .content_type("text/plain")
        .send()
        .await
        .unwrap();
    let etag = put.e_tag().unwrap().to_string();
    let got = c
        .get_object()
        .bucket("bkt")
        .key("dir/obj")
        .send()
        .await
        .unwrap();
    assert_eq!(got.e_tag(), Some(etag.as_str()));
    assert_eq!(got.content_length(), Some(4096));
    assert_eq!(got.content_type(), Some("text/plain"));
    assert_eq!(
        got.metadata().unwrap().get("team").map(String::as_str),
        Some("team-5")
    );
    assert_eq!(
        got.metadata().unwrap().get("index").map(String::as_str),
        Some("17")
    );
    assert!(got.last_modified().is_some());
    assert_eq!(got.body.collect().await.unwrap().into_bytes(), data);

    let head = c
        .head_object()
        .bucket("bkt")
        .key("dir/obj")
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_length(), Some(4096));
    assert_eq!(head.e_tag(), Some(etag.as_str()));

    for (range, expect, content_range) in [
        ("bytes=0-9", &data[0..10], "bytes 0-9/4096"),
        ("bytes=4090-", &data[4090..], "bytes 4090-4095/4096"),
        ("bytes=-6", &data[4090..], "bytes 4090-4095/4096"),
    ] {
        let r = c
            .get_object()
            .bucket("bkt")
            .key("dir/obj")
            .range(range)
            .send()
            .await
            .unwrap();
        assert_eq!(r.content_range(), Some(content_range));
        assert_eq!(
            r.body.collect().await.unwrap().into_bytes(),
            expect,
            "{range}"
        );
    }
    let e = c
        .get_object()
        .bucket("bkt")
        .key("dir/obj")
        .range("bytes=5000-")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&e), 416);
    assert_eq!(
        e.as_service_error().unwrap().meta().code(),
        Some("InvalidRange")
    );

    let e = c
        .get_object()
        .bucket("bkt")
        .key("missing")
        .send()
        .await
        .unwrap_err();
    assert!(e.as_service_error().unwrap().is_no_such_key());
    let e = c
        .head_object()
        .bucket("bkt")
        .key("missing")
        .send()
        .await
        .unwrap_err();
    assert!(e.as_service_error().unwrap().is_not_found());
    let e = c
        .get_object()
        .bucket("nob")
        .key("k")
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        e.as_service_error().unwrap().meta().code(),
        Some("NoSuchBucket")
    );
}

#[tokio::test]
async fn list_v2_pagination_delimiter_start_after_and_url_encoding() {
    let sim = start(Storage::SizeOnly).await;
    let c = client(&sim, false);
    c.create_bucket().bucket("lst").send().await.unwrap();
    for i in 0..2100 {
        let key = format!("p/{:02}/obj{i:05}", i % 7);
        c.put_object()
            .bucket("lst")
            .key(key)
            .body(ByteStream::from_static(b"abc"))
            .send()
            .await
            .unwrap();
    }
    let mut token = None;
    let mut seen = Vec::new();
    loop {
        let page = c
            .list_objects_v2()
            .bucket("lst")
            .prefix("p/")
            .set_continuation_token(token.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(page.key_count(), Some(page.contents().len() as i32));
        seen.extend(page.contents().iter().map(|o| o.key().unwrap().to_string()));
        if page.is_truncated() == Some(true) {
            token = page.next_continuation_token().map(str::to_string);
        } else {
            break;
        }
    }
    assert_eq!(seen.len(), 2100);
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, seen, "ordered, no duplicates");

    let folders = c
        .list_objects_v2()
        .bucket("lst")
        .prefix("p/")
        .delimiter("/")
        .send()
        .await
        .unwrap();
    let prefixes: Vec<&str> = folders
        .common_prefixes()
        .iter()
        .map(|p| p.prefix().unwrap())
        .collect();
    assert_eq!(
        prefixes,
        [
            "p/00/", "p/01/", "p/02/", "p/03/", "p/04/", "p/05/", "p/06/"
        ]
    );
    assert!(folders.contents().is_empty());

    let small = c
        .list_objects_v2()
        .bucket("lst")
        .prefix("p/")
        .delimiter("/")
        .max_keys(3)
        .send()
        .await
        .unwrap();
    assert_eq!(small.common_prefixes().len(), 3);
    assert_eq!(small.is_truncated(), Some(true));
    let rest = c
        .list_objects_v2()
        .bucket("lst")
        .prefix("p/")
        .delimiter("/")
        .continuation_token(small.next_continuation_token().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        rest.common_prefixes().len(),
        4,
        "the rest of the folders, none twice"
    );

    let after = c
        .list_objects_v2()
        .bucket("lst")
        .start_after("p/06/obj02000")
        .send()
        .await
        .unwrap();
    let keys: Vec<String> = after
        .contents()
        .iter()
        .map(|o| o.key().unwrap().to_string())
        .collect();
    let expected: Vec<String> = sorted
        .iter()
        .filter(|k| k.as_str() > "p/06/obj02000")
        .cloned()
        .collect();
    assert_eq!(keys, expected);

    let encoded = c
        .list_objects_v2()
        .bucket("lst")
        .prefix("p/00/obj0000")
        .encoding_type(aws_sdk_s3::types::EncodingType::Url)
        .send()
        .await
        .unwrap();
    assert_eq!(encoded.contents().len(), 2, "obj00000 and obj00007");
}

#[tokio::test]
async fn list_v1_with_marker_and_next_marker() {
    let sim = start(Storage::SizeOnly).await;
    let c = client(&sim, false);
    c.create_bucket().bucket("v1b").send().await.unwrap();
    for k in ["a/1", "a/2", "b", "c/1", "d", "e"] {
        c.put_object()
            .bucket("v1b")
            .key(k)
            .body(ByteStream::from_static(b"1"))
            .send()
            .await
            .unwrap();
    }
    let all = c.list_objects().bucket("v1b").send().await.unwrap();
    assert_eq!(all.contents().len(), 6);
    assert_eq!(all.is_truncated(), Some(false));
    let page = c
        .list_objects()
        .bucket("v1b")
        .marker("b")
        .max_keys(2)
        .send()
        .await
        .unwrap();
    let keys: Vec<&str> = page.contents().iter().map(|o| o.key().unwrap()).collect();
    assert_eq!(keys, ["c/1", "d"]);
    assert_eq!(page.is_truncated(), Some(true));
    let grouped = c
        .list_objects()
        .bucket("v1b")
        .delimiter("/")
        .max_keys(2)
        .send()
        .await
        .unwrap();
    let prefixes: Vec<&str> = grouped
        .common_prefixes()
        .iter()
        .map(|p| p.prefix().unwrap())
        .collect();
    assert_eq!(prefixes, ["a/"]);
    assert_eq!(grouped.contents()[0].key(), Some("b"));
    assert_eq!(grouped.next_marker(), Some("b"));
    let next = c
        .list_objects()
        .bucket("v1b")
        .delimiter("/")
        .marker("b")
        .send()
        .await
        .unwrap();
    let prefixes: Vec<&str> = next
        .common_prefixes()
        .iter()
        .map(|p| p.prefix().unwrap())
        .collect();
    assert_eq!(prefixes, ["c/"]);
    assert_eq!(next.contents().len(), 2);
}

#[tokio::test]
async fn size_only_keeps_sizes_and_metadata_and_serves_zeros() {
    let sim = start(Storage::SizeOnly).await;
    let c = client(&sim, false);
    c.create_bucket().bucket("sob").send().await.unwrap();
    c.put_object()
        .bucket("sob")
        .key("big")
        .body(ByteStream::from(vec![9u8; 200_000]))
        .metadata("team", "t1")
        .send()
        .await
        .unwrap();
    let head = c
        .head_object()
        .bucket("sob")
        .key("big")
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_length(), Some(200_000));
    assert_eq!(
        head.metadata().unwrap().get("team").map(String::as_str),
        Some("t1")
    );
    let body = c
        .get_object()
        .bucket("sob")
        .key("big")
        .send()
        .await
        .unwrap()
        .body
        .collect()
        .await
        .unwrap()
        .into_bytes();
    assert_eq!(body.len(), 200_000);
    assert!(body.iter().all(|b| *b == 0));
    assert_eq!(sim.object_count("sob"), Some(1));
}

#[tokio::test]
async fn checksummed_uploads_are_decoded_from_aws_chunked() {
    let sim = start(Storage::Memory).await;
    let c = client(&sim, true);
    c.create_bucket().bucket("crc").send().await.unwrap();
    let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 256) as u8).collect();
    c.put_object()
        .bucket("crc")
        .key("k")
        .body(ByteStream::from(data.clone()))
        .send()
        .await
        .unwrap();
    let back = c
        .get_object()
        .bucket("crc")
        .key("k")
        .send()
        .await
        .unwrap()
        .body
        .collect()
        .await
        .unwrap()
        .into_bytes();
    assert_eq!(back, data);
}

#[tokio::test]
async fn delete_objects_and_awkward_keys() {
    let sim = start(Storage::Memory).await;
    let c = client(&sim, false);
    c.create_bucket().bucket("del").send().await.unwrap();
    let keys = ["sp ace", "plus+", "pct%41", "amp&=?", "ünï/日本", "<tag>"];
    for k in keys {
        c.put_object()
            .bucket("del")
            .key(k)
            .body(ByteStream::from(k.as_bytes().to_vec()))
            .send()
            .await
            .unwrap();
        let back = c
            .get_object()
            .bucket("del")
            .key(k)
            .send()
            .await
            .unwrap()
            .body
            .collect()
            .await
            .unwrap()
            .into_bytes();
        assert_eq!(back, k.as_bytes(), "{k}");
    }
    let listed = c.list_objects_v2().bucket("del").send().await.unwrap();
    let mut names: Vec<&str> = listed.contents().iter().map(|o| o.key().unwrap()).collect();
    let mut expected = keys.to_vec();
    names.sort();
    expected.sort();
    assert_eq!(names, expected);
    let objects: Vec<ObjectIdentifier> = keys
        .iter()
        .map(|k| ObjectIdentifier::builder().key(*k).build().unwrap())
        .collect();
    let out = c
        .delete_objects()
        .bucket("del")
        .delete(
            Delete::builder()
                .set_objects(Some(objects))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(out.deleted().len(), keys.len());
    assert!(out.errors().is_empty());
    assert_eq!(sim.object_count("del"), Some(0));
    c.delete_object()
        .bucket("del")
        .key("already-gone")
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn signatures_are_verified() {
    let sim = start(Storage::Memory).await;
    let conf = aws_sdk_s3::config::Builder::new()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(sim.endpoint())
        .region(Region::new("us-east-1"))
        .force_path_style(true)
        .credentials_provider(Credentials::new("ak", "wrong", None, None, "test"))
        .build();
    let bad = Client::from_conf(conf);
    let e = bad.create_bucket().bucket("x").send().await.unwrap_err();
    assert_eq!(status(&e), 403);
    assert_eq!(
        e.as_service_error().unwrap().meta().code(),
        Some("SignatureDoesNotMatch")
    );
    assert_eq!(sim.object_count("x"), None, "nothing was created");
}

#[tokio::test]
async fn shutdown_stops_the_target() {
    let sim = start(Storage::Memory).await;
    let addr = sim.addr();
    sim.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}
