//! S3 behaviour checked through aws-sdk-s3 itself, the client most S3 tools use:
//! every test body runs against the embedded target started in-process (`…::sim`)
//! and, with the `rgw-tests` feature, against a real Ceph RGW (`…::rgw`; see
//! `common` for how it is found). What both answer alike is asserted; a body that
//! passes on one and fails on the other is a difference to fix in the embedded
//! target. Tests of the embedded target's own features stay sim-only.

mod common;

use std::sync::Arc;

use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{Delete, EncodingType, ObjectIdentifier};
use common::{Target, code, status};
use keystorm_sim::Storage;
use md5::{Digest, Md5};

/// One test body, run against the embedded target (with the given storage) and, with
/// the `rgw-tests` feature, against the configured RGW: tests `NAME::sim` and
/// `NAME::rgw`.
macro_rules! on_both {
    ($name:ident, $storage:expr) => {
        mod $name {
            #[tokio::test]
            async fn sim() {
                crate::common::run(crate::Target::sim($storage).await, super::$name).await;
            }

            #[cfg(feature = "rgw-tests")]
            #[tokio::test]
            async fn rgw() {
                crate::common::run(crate::Target::rgw(), super::$name).await;
            }
        }
    };
}

/// One test body, run against the embedded target only: it checks something RGW
/// does not have, or looks inside the target.
macro_rules! sim_only {
    ($name:ident, $storage:expr) => {
        mod $name {
            #[tokio::test]
            async fn sim() {
                crate::common::run(crate::Target::sim($storage).await, super::$name).await;
            }
        }
    };
}

fn quoted_md5(data: &[u8]) -> String {
    format!("\"{}\"", hex::encode(Md5::digest(data)))
}

async fn put(t: &Target, bucket: &str, key: &str, body: &[u8]) {
    t.client
        .put_object()
        .bucket(bucket)
        .key(key)
        .body(ByteStream::from(body.to_vec()))
        .send()
        .await
        .unwrap_or_else(|e| panic!("PUT {bucket}/{key}: {e:?}"));
}

async fn get_bytes(t: &Target, bucket: &str, key: &str) -> Vec<u8> {
    t.client
        .get_object()
        .bucket(bucket)
        .key(key)
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {bucket}/{key}: {e:?}"))
        .body
        .collect()
        .await
        .unwrap()
        .into_bytes()
        .to_vec()
}

on_both!(bucket_lifecycle_and_errors, keystorm_sim::Storage::Memory);
async fn bucket_lifecycle_and_errors(t: Arc<Target>) {
    let c = &t.client;
    let one = t.bucket("one");
    let two = t.bucket("two");
    c.create_bucket().bucket(&one).send().await.unwrap();
    c.create_bucket().bucket(&two).send().await.unwrap();

    let names: Vec<String> = c
        .list_buckets()
        .send()
        .await
        .unwrap()
        .buckets()
        .iter()
        .filter_map(|b| b.name())
        .filter(|n| [&one, &two].contains(&&n.to_string()))
        .map(String::from)
        .collect();
    assert_eq!(
        names,
        [one.clone(), two.clone()],
        "ListBuckets: ours, sorted"
    );

    c.head_bucket().bucket(&one).send().await.unwrap();
    let nope = t.bucket("nope");
    let e = c.head_bucket().bucket(&nope).send().await.unwrap_err();
    assert!(e.as_service_error().unwrap().is_not_found(), "{e:?}");
    assert_eq!(status(&e), 404);

    put(&t, &one, "k", b"x").await;
    let e = c.delete_bucket().bucket(&one).send().await.unwrap_err();
    assert_eq!(status(&e), 409);
    assert_eq!(code(&e), Some("BucketNotEmpty"));

    let e = c.delete_bucket().bucket(&nope).send().await.unwrap_err();
    assert_eq!(status(&e), 404);
    assert_eq!(code(&e), Some("NoSuchBucket"));

    c.delete_bucket().bucket(&two).send().await.unwrap();
    let e = c.head_bucket().bucket(&two).send().await.unwrap_err();
    assert_eq!(status(&e), 404, "a deleted bucket is gone");

    for bad in ["Bad_Name", "ab"] {
        let e = c.create_bucket().bucket(bad).send().await.unwrap_err();
        assert_eq!(status(&e), 400, "{bad}");
        assert_eq!(code(&e), Some("InvalidBucketName"), "{bad}");
    }
}

// Re-creating a bucket one owns: AWS answers 409 BucketAlreadyOwnedByYou outside
// us-east-1 and 200 in us-east-1; RGW (Pacific) answers 200, the embedded target 409
// BucketAlreadyOwnedByYou. Clients must accept both, and both keep the bucket and
// its objects, which is what this asserts.
on_both!(
    recreating_an_owned_bucket_keeps_it,
    keystorm_sim::Storage::Memory
);
async fn recreating_an_owned_bucket_keeps_it(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("again");
    c.create_bucket().bucket(&b).send().await.unwrap();
    put(&t, &b, "kept", b"still here").await;
    match c.create_bucket().bucket(&b).send().await {
        Ok(_) => {}
        Err(e) => {
            assert!(
                e.as_service_error()
                    .is_some_and(|s| s.is_bucket_already_owned_by_you()),
                "re-creating an owned bucket: 200 or BucketAlreadyOwnedByYou, got {e:?}"
            );
            assert_eq!(status(&e), 409);
        }
    }
    assert_eq!(get_bytes(&t, &b, "kept").await, b"still here");
    assert_eq!(t.all_keys(&b).await, ["kept"]);
}

on_both!(objects_metadata_and_head, keystorm_sim::Storage::Memory);
async fn objects_metadata_and_head(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("meta");
    c.create_bucket().bucket(&b).send().await.unwrap();
    let data: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    let put = c
        .put_object()
        .bucket(&b)
        .key("dir/obj")
        .body(ByteStream::from(data.clone()))
        .metadata("team", "team-5")
        .metadata("Index", "17")
        .metadata("with-dash", "a b  c")
        .content_type("text/plain")
        .send()
        .await
        .unwrap();
    let etag = put.e_tag().unwrap().to_string();
    assert_eq!(etag, quoted_md5(&data), "ETag: the quoted MD5 of the body");

    let got = c
        .get_object()
        .bucket(&b)
        .key("dir/obj")
        .send()
        .await
        .unwrap();
    assert_eq!(got.e_tag(), Some(etag.as_str()));
    assert_eq!(got.content_length(), Some(4096));
    assert_eq!(got.content_type(), Some("text/plain"));
    let meta = got.metadata().unwrap();
    assert_eq!(meta.get("team").map(String::as_str), Some("team-5"));
    assert_eq!(meta.get("index").map(String::as_str), Some("17"));
    assert_eq!(meta.get("with-dash").map(String::as_str), Some("a b  c"));
    assert_eq!(meta.len(), 3, "{meta:?}");
    assert!(got.last_modified().is_some());
    assert_eq!(got.body.collect().await.unwrap().into_bytes(), data);

    let head = c
        .head_object()
        .bucket(&b)
        .key("dir/obj")
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_length(), Some(4096));
    assert_eq!(head.e_tag(), Some(etag.as_str()));
    assert_eq!(head.content_type(), Some("text/plain"));
    assert!(head.last_modified().is_some());
    let meta = head.metadata().unwrap();
    assert_eq!(meta.get("team").map(String::as_str), Some("team-5"));
    assert_eq!(meta.get("index").map(String::as_str), Some("17"));
    assert_eq!(meta.get("with-dash").map(String::as_str), Some("a b  c"));
    assert_eq!(
        meta.len(),
        3,
        "HEAD returns exactly the user metadata: {meta:?}"
    );

    // An overwrite replaces body and metadata whole.
    let put2 = c
        .put_object()
        .bucket(&b)
        .key("dir/obj")
        .body(ByteStream::from_static(b"short"))
        .metadata("other", "1")
        .send()
        .await
        .unwrap();
    assert_eq!(put2.e_tag(), Some(quoted_md5(b"short").as_str()));
    let head = c
        .head_object()
        .bucket(&b)
        .key("dir/obj")
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_length(), Some(5));
    let meta = head.metadata().unwrap();
    assert_eq!(meta.get("other").map(String::as_str), Some("1"));
    assert_eq!(meta.len(), 1, "{meta:?}");

    // An empty object.
    let put3 = c
        .put_object()
        .bucket(&b)
        .key("empty")
        .body(ByteStream::from_static(b""))
        .send()
        .await
        .unwrap();
    assert_eq!(put3.e_tag(), Some(quoted_md5(b"").as_str()));
    let head = c
        .head_object()
        .bucket(&b)
        .key("empty")
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_length(), Some(0));
    assert!(get_bytes(&t, &b, "empty").await.is_empty());
}

on_both!(ranged_gets, keystorm_sim::Storage::Memory);
async fn ranged_gets(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("range");
    c.create_bucket().bucket(&b).send().await.unwrap();
    let data: Vec<u8> = (0..4096u32).map(|i| (i * 31 % 251) as u8).collect();
    put(&t, &b, "obj", &data).await;

    for (range, expect, content_range) in [
        ("bytes=0-9", &data[0..10], "bytes 0-9/4096"),
        ("bytes=100-100", &data[100..101], "bytes 100-100/4096"),
        ("bytes=4090-", &data[4090..], "bytes 4090-4095/4096"),
        ("bytes=-6", &data[4090..], "bytes 4090-4095/4096"),
        // past the end: cut to the object
        ("bytes=4000-9999", &data[4000..], "bytes 4000-4095/4096"),
        // a suffix longer than the object: all of it
        ("bytes=-10000", &data[..], "bytes 0-4095/4096"),
        ("bytes=4095-", &data[4095..], "bytes 4095-4095/4096"),
    ] {
        let r = c
            .get_object()
            .bucket(&b)
            .key("obj")
            .range(range)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{range}: {e:?}"));
        assert_eq!(r.content_range(), Some(content_range), "{range}");
        assert_eq!(r.content_length(), Some(expect.len() as i64), "{range}");
        assert_eq!(
            r.body.collect().await.unwrap().into_bytes(),
            expect,
            "{range}"
        );
    }
    for range in ["bytes=4096-", "bytes=5000-6000"] {
        let e = c
            .get_object()
            .bucket(&b)
            .key("obj")
            .range(range)
            .send()
            .await
            .unwrap_err();
        assert_eq!(status(&e), 416, "{range}");
        assert_eq!(code(&e), Some("InvalidRange"), "{range}");
    }

    // HEAD with a range answers like the GET would, without the body.
    let head = c
        .head_object()
        .bucket(&b)
        .key("obj")
        .range("bytes=10-19")
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_length(), Some(10));
    assert_eq!(head.content_range(), Some("bytes 10-19/4096"));

    // No byte of an empty object can be satisfied.
    put(&t, &b, "empty", b"").await;
    let e = c
        .get_object()
        .bucket(&b)
        .key("empty")
        .range("bytes=0-")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&e), 416);
    assert_eq!(code(&e), Some("InvalidRange"));
}

on_both!(multipart_uploads, keystorm_sim::Storage::Memory);
async fn multipart_uploads(t: Arc<Target>) {
    use aws_sdk_s3::types::{CompletedMultipartUpload, CompletedPart};
    let c = &t.client;
    let b = t.bucket("multipart");
    c.create_bucket().bucket(&b).send().await.unwrap();
    let part = |n: u8, len: usize| -> Vec<u8> { (0..len).map(|i| (i as u8) ^ n).collect() };
    let parts = [part(1, 5 << 20), part(2, 5 << 20), part(3, 1000)];
    let up = c
        .create_multipart_upload()
        .bucket(&b)
        .key("big")
        .metadata("origin", "multipart")
        .send()
        .await
        .unwrap();
    let id = up.upload_id().unwrap().to_string();
    // Parts may arrive in any order; each answers with its MD5.
    let mut etags = vec![String::new(); 3];
    for i in [2usize, 0, 1] {
        let r = c
            .upload_part()
            .bucket(&b)
            .key("big")
            .upload_id(&id)
            .part_number(i as i32 + 1)
            .body(ByteStream::from(parts[i].clone()))
            .send()
            .await
            .unwrap();
        assert_eq!(r.e_tag().unwrap(), quoted_md5(&parts[i]));
        etags[i] = r.e_tag().unwrap().to_string();
    }
    let completed = |order: &[usize], etag_of: &dyn Fn(usize) -> String| {
        CompletedMultipartUpload::builder()
            .set_parts(Some(
                order
                    .iter()
                    .map(|&i| {
                        CompletedPart::builder()
                            .part_number(i as i32 + 1)
                            .e_tag(etag_of(i))
                            .build()
                    })
                    .collect(),
            ))
            .build()
    };
    // A wrong ETag is refused, and the upload stays open.
    let e = c
        .complete_multipart_upload()
        .bucket(&b)
        .key("big")
        .upload_id(&id)
        .multipart_upload(completed(&[0, 1, 2], &|i| {
            if i == 1 {
                quoted_md5(b"other")
            } else {
                etags[i].clone()
            }
        }))
        .send()
        .await
        .unwrap_err();
    assert_eq!((status(&e), code(&e)), (400, Some("InvalidPart")));
    let done = c
        .complete_multipart_upload()
        .bucket(&b)
        .key("big")
        .upload_id(&id)
        .multipart_upload(completed(&[0, 1, 2], &|i| etags[i].clone()))
        .send()
        .await
        .unwrap();
    let mut digests = Md5::new();
    for p in &parts {
        digests.update(Md5::digest(p));
    }
    let want = format!("\"{}-3\"", hex::encode(digests.finalize()));
    // RGW (Pacific) answers the completion with an empty ETag; HEAD has the real one.
    assert!(
        [Some(want.as_str()), Some("")].contains(&done.e_tag()),
        "{:?}",
        done.e_tag()
    );
    let all: Vec<u8> = parts.concat();
    assert_eq!(get_bytes(&t, &b, "big").await, all);
    let head = c.head_object().bucket(&b).key("big").send().await.unwrap();
    assert_eq!(head.content_length(), Some(all.len() as i64));
    assert_eq!(head.e_tag(), Some(want.as_str()));
    // Listings show the multipart ETag too.
    let listed = c.list_objects_v2().bucket(&b).send().await.unwrap();
    assert_eq!(listed.contents()[0].e_tag(), Some(want.as_str()));
    assert_eq!(
        head.metadata()
            .and_then(|m| m.get("origin"))
            .map(String::as_str),
        Some("multipart")
    );
    // A ranged GET across the boundary of two parts.
    let r = c
        .get_object()
        .bucket(&b)
        .key("big")
        .range(format!("bytes={}-{}", (5 << 20) - 3, (5 << 20) + 2))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.body.collect().await.unwrap().into_bytes(),
        all[(5 << 20) - 3..(5 << 20) + 3]
    );
    // A completed upload is gone.
    let e = c
        .upload_part()
        .bucket(&b)
        .key("big")
        .upload_id(&id)
        .part_number(1)
        .body(ByteStream::from(b"late".to_vec()))
        .send()
        .await
        .unwrap_err();
    assert_eq!((status(&e), code(&e)), (404, Some("NoSuchUpload")));

    // Parts other than the last must be at least 5 MiB.
    let small = c
        .create_multipart_upload()
        .bucket(&b)
        .key("small")
        .send()
        .await
        .unwrap();
    let sid = small.upload_id().unwrap().to_string();
    let mut small_etags = Vec::new();
    for n in 1..=2 {
        let r = c
            .upload_part()
            .bucket(&b)
            .key("small")
            .upload_id(&sid)
            .part_number(n)
            .body(ByteStream::from(vec![b's'; 100]))
            .send()
            .await
            .unwrap();
        small_etags.push(r.e_tag().unwrap().to_string());
    }
    let e = c
        .complete_multipart_upload()
        .bucket(&b)
        .key("small")
        .upload_id(&sid)
        .multipart_upload(completed(&[0, 1], &|i| small_etags[i].clone()))
        .send()
        .await
        .unwrap_err();
    assert_eq!((status(&e), code(&e)), (400, Some("EntityTooSmall")));
    // Aborting ends it.
    c.abort_multipart_upload()
        .bucket(&b)
        .key("small")
        .upload_id(&sid)
        .send()
        .await
        .unwrap();
    let e = c
        .abort_multipart_upload()
        .bucket(&b)
        .key("small")
        .upload_id(&sid)
        .send()
        .await
        .unwrap_err();
    assert_eq!((status(&e), code(&e)), (404, Some("NoSuchUpload")));
    assert!(
        c.head_object()
            .bucket(&b)
            .key("small")
            .send()
            .await
            .is_err()
    );
    c.delete_object()
        .bucket(&b)
        .key("big")
        .send()
        .await
        .unwrap();
    c.delete_bucket().bucket(&b).send().await.unwrap();
}

on_both!(missing_keys_and_buckets, keystorm_sim::Storage::Memory);
async fn missing_keys_and_buckets(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("miss");
    let nob = t.bucket("nob");
    c.create_bucket().bucket(&b).send().await.unwrap();

    let e = c
        .get_object()
        .bucket(&b)
        .key("missing")
        .send()
        .await
        .unwrap_err();
    assert!(e.as_service_error().unwrap().is_no_such_key(), "{e:?}");
    assert_eq!(status(&e), 404);
    let e = c
        .head_object()
        .bucket(&b)
        .key("missing")
        .send()
        .await
        .unwrap_err();
    assert!(e.as_service_error().unwrap().is_not_found(), "{e:?}");
    assert_eq!(status(&e), 404);
    // Deleting a key that is not there succeeds (204).
    c.delete_object()
        .bucket(&b)
        .key("already-gone")
        .send()
        .await
        .unwrap();

    let e = c
        .get_object()
        .bucket(&nob)
        .key("k")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&e), 404);
    assert_eq!(code(&e), Some("NoSuchBucket"));
    let e = c
        .head_object()
        .bucket(&nob)
        .key("k")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&e), 404);
    let e = c
        .put_object()
        .bucket(&nob)
        .key("k")
        .body(ByteStream::from_static(b"x"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&e), 404);
    assert_eq!(code(&e), Some("NoSuchBucket"));
    let e = c.list_objects_v2().bucket(&nob).send().await.unwrap_err();
    assert_eq!(status(&e), 404);
    assert_eq!(code(&e), Some("NoSuchBucket"));
    let e = c.list_objects().bucket(&nob).send().await.unwrap_err();
    assert_eq!(code(&e), Some("NoSuchBucket"));
    let e = c
        .delete_object()
        .bucket(&nob)
        .key("k")
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&e), 404);
    assert_eq!(code(&e), Some("NoSuchBucket"));
}

on_both!(
    list_v2_pagination_and_max_keys,
    keystorm_sim::Storage::Memory
);
async fn list_v2_pagination_and_max_keys(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("lst");
    c.create_bucket().bucket(&b).send().await.unwrap();
    let keys: Vec<String> = (0..2100)
        .map(|i| format!("p/{:02}/obj{i:05}", i % 7))
        .collect();
    t.put_many(&b, keys.clone(), b"abc").await;
    let mut sorted = keys.clone();
    sorted.sort();

    // Default pages: 1000 keys, continuation tokens, in order, none twice.
    let mut token = None;
    let mut seen = Vec::new();
    let mut pages = Vec::new();
    loop {
        let page = c
            .list_objects_v2()
            .bucket(&b)
            .prefix("p/")
            .set_continuation_token(token.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(page.key_count(), Some(page.contents().len() as i32));
        assert_eq!(page.prefix(), Some("p/"));
        pages.push(page.contents().len());
        seen.extend(page.contents().iter().map(|o| o.key().unwrap().to_string()));
        for o in page.contents() {
            assert_eq!(o.size(), Some(3));
            assert_eq!(o.e_tag(), Some(quoted_md5(b"abc").as_str()));
            assert!(o.last_modified().is_some());
        }
        if page.is_truncated() == Some(true) {
            token = Some(page.next_continuation_token().unwrap().to_string());
        } else {
            assert!(page.next_continuation_token().is_none());
            break;
        }
    }
    assert_eq!(pages, [1000, 1000, 100]);
    assert_eq!(seen, sorted, "ordered, complete, no duplicates");

    // max-keys 0: an empty page that is not truncated, so a loop always ends.
    let empty = c
        .list_objects_v2()
        .bucket(&b)
        .max_keys(0)
        .send()
        .await
        .unwrap();
    assert!(empty.contents().is_empty());
    assert_ne!(empty.is_truncated(), Some(true));

    // max-keys pages
    let mut token = None;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page = c
            .list_objects_v2()
            .bucket(&b)
            .max_keys(250)
            .set_continuation_token(token.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(page.max_keys(), Some(250));
        assert!(page.contents().len() <= 250);
        pages += 1;
        seen.extend(page.contents().iter().map(|o| o.key().unwrap().to_string()));
        if page.is_truncated() == Some(true) {
            token = Some(page.next_continuation_token().unwrap().to_string());
        } else {
            break;
        }
    }
    assert_eq!(pages, 9, "2100 keys in pages of 250");
    assert_eq!(seen, sorted);

    // A page that ends exactly at the last key.
    let exact = c
        .list_objects_v2()
        .bucket(&b)
        .prefix("p/06/")
        .max_keys(300)
        .send()
        .await
        .unwrap();
    assert_eq!(exact.contents().len(), 300, "2100 / 7 keys under p/06/");
    assert_eq!(exact.is_truncated(), Some(false));

    // prefix
    let one = c
        .list_objects_v2()
        .bucket(&b)
        .prefix("p/03/obj0001")
        .send()
        .await
        .unwrap();
    let got: Vec<&str> = one.contents().iter().map(|o| o.key().unwrap()).collect();
    assert_eq!(got, ["p/03/obj00010", "p/03/obj00017"]);
    let none = c
        .list_objects_v2()
        .bucket(&b)
        .prefix("q/")
        .send()
        .await
        .unwrap();
    assert!(none.contents().is_empty());
    assert_eq!(none.key_count(), Some(0));
    assert_eq!(none.is_truncated(), Some(false));

    // start-after
    let after = c
        .list_objects_v2()
        .bucket(&b)
        .start_after("p/06/obj02000")
        .send()
        .await
        .unwrap();
    assert_eq!(after.start_after(), Some("p/06/obj02000"));
    let got: Vec<String> = after
        .contents()
        .iter()
        .map(|o| o.key().unwrap().to_string())
        .collect();
    let expected: Vec<String> = sorted
        .iter()
        .filter(|k| k.as_str() > "p/06/obj02000")
        .cloned()
        .collect();
    assert_eq!(got, expected);
    let nothing = c
        .list_objects_v2()
        .bucket(&b)
        .start_after("zzz")
        .send()
        .await
        .unwrap();
    assert!(nothing.contents().is_empty());

    // start-after with a prefix and max-keys, then its continuation
    let first = c
        .list_objects_v2()
        .bucket(&b)
        .prefix("p/01/")
        .start_after("p/01/obj01000")
        .max_keys(2)
        .send()
        .await
        .unwrap();
    let got: Vec<&str> = first.contents().iter().map(|o| o.key().unwrap()).collect();
    assert_eq!(got, ["p/01/obj01002", "p/01/obj01009"]);
    assert_eq!(first.is_truncated(), Some(true));
    let next = c
        .list_objects_v2()
        .bucket(&b)
        .prefix("p/01/")
        .start_after("p/01/obj01000")
        .max_keys(2)
        .continuation_token(first.next_continuation_token().unwrap())
        .send()
        .await
        .unwrap();
    let got: Vec<&str> = next.contents().iter().map(|o| o.key().unwrap()).collect();
    assert_eq!(got, ["p/01/obj01016", "p/01/obj01023"]);
}

on_both!(
    list_v2_delimiter_and_common_prefixes,
    keystorm_sim::Storage::Memory
);
async fn list_v2_delimiter_and_common_prefixes(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("dlm");
    c.create_bucket().bucket(&b).send().await.unwrap();
    let mut keys: Vec<String> = (0..70)
        .map(|i| format!("p/{:02}/obj{i:05}", i % 7))
        .collect();
    keys.extend(["p/top", "p/zz", "root", "x/y/z"].map(String::from));
    t.put_many(&b, keys, b"abc").await;

    let folders = c
        .list_objects_v2()
        .bucket(&b)
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
    let files: Vec<&str> = folders
        .contents()
        .iter()
        .map(|o| o.key().unwrap())
        .collect();
    assert_eq!(files, ["p/top", "p/zz"]);
    assert_eq!(folders.delimiter(), Some("/"));
    assert_eq!(
        folders.key_count(),
        Some(9),
        "KeyCount counts keys and prefixes"
    );

    let top = c
        .list_objects_v2()
        .bucket(&b)
        .delimiter("/")
        .send()
        .await
        .unwrap();
    let prefixes: Vec<&str> = top
        .common_prefixes()
        .iter()
        .map(|p| p.prefix().unwrap())
        .collect();
    assert_eq!(prefixes, ["p/", "x/"]);
    let files: Vec<&str> = top.contents().iter().map(|o| o.key().unwrap()).collect();
    assert_eq!(files, ["root"]);

    // Prefixes count towards max-keys; the continuation goes on after the last one.
    let small = c
        .list_objects_v2()
        .bucket(&b)
        .prefix("p/")
        .delimiter("/")
        .max_keys(3)
        .send()
        .await
        .unwrap();
    let prefixes: Vec<&str> = small
        .common_prefixes()
        .iter()
        .map(|p| p.prefix().unwrap())
        .collect();
    assert_eq!(prefixes, ["p/00/", "p/01/", "p/02/"]);
    assert!(small.contents().is_empty());
    assert_eq!(small.key_count(), Some(3));
    assert_eq!(small.is_truncated(), Some(true));
    let rest = c
        .list_objects_v2()
        .bucket(&b)
        .prefix("p/")
        .delimiter("/")
        .continuation_token(small.next_continuation_token().unwrap())
        .send()
        .await
        .unwrap();
    let prefixes: Vec<&str> = rest
        .common_prefixes()
        .iter()
        .map(|p| p.prefix().unwrap())
        .collect();
    assert_eq!(
        prefixes,
        ["p/03/", "p/04/", "p/05/", "p/06/"],
        "the rest of the folders, none twice"
    );
    let files: Vec<&str> = rest.contents().iter().map(|o| o.key().unwrap()).collect();
    assert_eq!(files, ["p/top", "p/zz"]);
    assert_eq!(rest.is_truncated(), Some(false));

    // A delimiter other than "/".
    let dashed = c
        .list_objects_v2()
        .bucket(&b)
        .prefix("p/00/")
        .delimiter("0000")
        .send()
        .await
        .unwrap();
    let prefixes: Vec<&str> = dashed
        .common_prefixes()
        .iter()
        .map(|p| p.prefix().unwrap())
        .collect();
    assert_eq!(
        prefixes,
        ["p/00/obj0000"],
        "obj00000 and obj00007 fold into one"
    );
    assert_eq!(dashed.contents().len(), 8, "obj00014 .. obj00063");
}

on_both!(
    list_v1_marker_and_next_marker,
    keystorm_sim::Storage::Memory
);
async fn list_v1_marker_and_next_marker(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("v1b");
    c.create_bucket().bucket(&b).send().await.unwrap();
    for k in ["a/1", "a/2", "b", "c/1", "d", "e"] {
        put(&t, &b, k, b"1").await;
    }
    let all = c.list_objects().bucket(&b).send().await.unwrap();
    assert_eq!(all.contents().len(), 6);
    assert_eq!(all.is_truncated(), Some(false));

    let page = c
        .list_objects()
        .bucket(&b)
        .marker("b")
        .max_keys(2)
        .send()
        .await
        .unwrap();
    let keys: Vec<&str> = page.contents().iter().map(|o| o.key().unwrap()).collect();
    assert_eq!(keys, ["c/1", "d"]);
    assert_eq!(page.is_truncated(), Some(true));
    assert_eq!(page.marker(), Some("b"));
    assert_eq!(page.max_keys(), Some(2));

    // Paging with the last key as the marker (what clients do without a delimiter).
    let mut marker = None;
    let mut seen = Vec::new();
    loop {
        let page = c
            .list_objects()
            .bucket(&b)
            .set_marker(marker.clone())
            .max_keys(4)
            .send()
            .await
            .unwrap();
        seen.extend(page.contents().iter().map(|o| o.key().unwrap().to_string()));
        if page.is_truncated() != Some(true) {
            break;
        }
        marker = seen.last().cloned();
    }
    assert_eq!(seen, ["a/1", "a/2", "b", "c/1", "d", "e"]);

    let grouped = c
        .list_objects()
        .bucket(&b)
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
    assert_eq!(grouped.contents().len(), 1);
    assert_eq!(grouped.contents()[0].key(), Some("b"));
    assert_eq!(grouped.is_truncated(), Some(true));
    assert_eq!(grouped.next_marker(), Some("b"));
    let next = c
        .list_objects()
        .bucket(&b)
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
    let keys: Vec<&str> = next.contents().iter().map(|o| o.key().unwrap()).collect();
    assert_eq!(keys, ["d", "e"]);
    assert_eq!(next.is_truncated(), Some(false));

    // A marker inside a common prefix: the rest of that prefix is not listed again.
    let inside = c
        .list_objects()
        .bucket(&b)
        .delimiter("/")
        .marker("a/1")
        .send()
        .await
        .unwrap();
    let prefixes: Vec<&str> = inside
        .common_prefixes()
        .iter()
        .map(|p| p.prefix().unwrap())
        .collect();
    assert_eq!(prefixes, ["c/"]);
    let keys: Vec<&str> = inside.contents().iter().map(|o| o.key().unwrap()).collect();
    assert_eq!(keys, ["b", "d", "e"]);

    let prefixed = c
        .list_objects()
        .bucket(&b)
        .prefix("a/")
        .send()
        .await
        .unwrap();
    let keys: Vec<&str> = prefixed
        .contents()
        .iter()
        .map(|o| o.key().unwrap())
        .collect();
    assert_eq!(keys, ["a/1", "a/2"]);
}

on_both!(
    delete_objects_quiet_verbose_and_missing,
    keystorm_sim::Storage::Memory
);
async fn delete_objects_quiet_verbose_and_missing(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("mdel");
    c.create_bucket().bucket(&b).send().await.unwrap();
    for k in ["k1", "k2", "k3", "k4"] {
        put(&t, &b, k, b"v").await;
    }
    let ids = |keys: &[&str]| -> Delete {
        Delete::builder()
            .set_objects(Some(
                keys.iter()
                    .map(|k| ObjectIdentifier::builder().key(*k).build().unwrap())
                    .collect(),
            ))
            .build()
            .unwrap()
    };

    // Verbose: every key is reported deleted, the missing one too.
    let out = c
        .delete_objects()
        .bucket(&b)
        .delete(ids(&["k1", "k2", "missing-1"]))
        .send()
        .await
        .unwrap();
    let mut deleted: Vec<&str> = out.deleted().iter().map(|d| d.key().unwrap()).collect();
    deleted.sort();
    assert_eq!(deleted, ["k1", "k2", "missing-1"]);
    assert!(out.errors().is_empty(), "{:?}", out.errors());

    // Quiet: nothing reported when all went well.
    let mut quiet = ids(&["k3", "missing-2"]);
    quiet.quiet = Some(true);
    let out = c
        .delete_objects()
        .bucket(&b)
        .delete(quiet)
        .send()
        .await
        .unwrap();
    assert!(out.deleted().is_empty(), "{:?}", out.deleted());
    assert!(out.errors().is_empty(), "{:?}", out.errors());

    assert_eq!(t.all_keys(&b).await, ["k4"]);

    // At most 1000 keys a request.
    let many: Vec<String> = (0..1001).map(|i| format!("m{i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let e = c
        .delete_objects()
        .bucket(&b)
        .delete(ids(&many))
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&e), 400);
    assert_eq!(t.all_keys(&b).await, ["k4"]);

    let e = c
        .delete_objects()
        .bucket(t.bucket("mdel-none"))
        .delete(ids(&["k"]))
        .send()
        .await
        .unwrap_err();
    assert_eq!(status(&e), 404);
    assert_eq!(code(&e), Some("NoSuchBucket"));
}

on_both!(awkward_keys_round_trip, keystorm_sim::Storage::Memory);
async fn awkward_keys_round_trip(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("del");
    c.create_bucket().bucket(&b).send().await.unwrap();
    let keys = [
        "sp ace",
        "plus+",
        "pct%41",
        "amp&=?",
        "ünï/日本",
        "<tag>",
        "a//b",
        "tilde~*'()",
    ];
    for k in keys {
        put(&t, &b, k, k.as_bytes()).await;
        assert_eq!(get_bytes(&t, &b, k).await, k.as_bytes(), "{k}");
        c.head_object().bucket(&b).key(k).send().await.unwrap();
    }
    let mut expected = keys.to_vec();
    expected.sort();
    assert_eq!(t.all_keys(&b).await, expected);

    // encoding-type=url: keys come back percent-encoded; decoded, they are the keys.
    let encoded = c
        .list_objects_v2()
        .bucket(&b)
        .encoding_type(EncodingType::Url)
        .send()
        .await
        .unwrap();
    let decoded: Vec<String> = encoded
        .contents()
        .iter()
        .map(|o| {
            percent_encoding::percent_decode_str(&o.key().unwrap().replace('+', "%20"))
                .decode_utf8()
                .unwrap()
                .into_owned()
        })
        .collect();
    assert_eq!(decoded, expected);

    let objects: Vec<ObjectIdentifier> = keys
        .iter()
        .map(|k| ObjectIdentifier::builder().key(*k).build().unwrap())
        .collect();
    let out = c
        .delete_objects()
        .bucket(&b)
        .delete(
            Delete::builder()
                .set_objects(Some(objects))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let mut deleted: Vec<&str> = out.deleted().iter().map(|d| d.key().unwrap()).collect();
    deleted.sort();
    assert_eq!(deleted, expected);
    assert!(out.errors().is_empty());
    assert!(t.all_keys(&b).await.is_empty());
}

// Keys are at most 1024 bytes. AWS answers 400 KeyTooLongError, RGW 400
// InvalidObjectName; a workload whose keys are too long must fail on the embedded
// target as it would on a real store.
on_both!(overlong_keys_are_rejected, keystorm_sim::Storage::Memory);
async fn overlong_keys_are_rejected(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("long");
    c.create_bucket().bucket(&b).send().await.unwrap();
    let longest = "k".repeat(1024);
    put(&t, &b, &longest, b"x").await;
    assert_eq!(get_bytes(&t, &b, &longest).await, b"x");
    let e = c
        .put_object()
        .bucket(&b)
        .key("k".repeat(1025))
        .body(ByteStream::from_static(b"x"))
        .send()
        .await
        .expect_err("a 1025-byte key must be refused");
    assert_eq!(status(&e), 400);
    assert!(
        matches!(code(&e), Some("InvalidObjectName" | "KeyTooLongError")),
        "{e:?}"
    );
    assert_eq!(t.all_keys(&b).await, [longest]);
}

on_both!(signatures_are_verified, keystorm_sim::Storage::Memory);
async fn signatures_are_verified(t: Arc<Target>) {
    let b = t.bucket("sig");
    let bad = t.client_with_keys(None, Some("wrong-secret-key-0000000000000000000000"));
    let e = bad.create_bucket().bucket(&b).send().await.unwrap_err();
    assert_eq!(status(&e), 403);
    assert_eq!(code(&e), Some("SignatureDoesNotMatch"));
    let e = t.client.head_bucket().bucket(&b).send().await.unwrap_err();
    assert_eq!(status(&e), 404, "nothing was created");

    t.client.create_bucket().bucket(&b).send().await.unwrap();
    let e = bad
        .put_object()
        .bucket(&b)
        .key("k")
        .body(ByteStream::from_static(b"x"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(code(&e), Some("SignatureDoesNotMatch"));
    assert!(t.all_keys(&b).await.is_empty(), "nothing was written");
}

// The SDK's default request checksums (CRC32 in an aws-chunked body with a trailer).
on_both!(checksummed_uploads, keystorm_sim::Storage::Memory);
async fn checksummed_uploads(t: Arc<Target>) {
    let c = t.client_with_checksums();
    let b = t.bucket("crc");
    c.create_bucket().bucket(&b).send().await.unwrap();
    let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 256) as u8).collect();
    c.put_object()
        .bucket(&b)
        .key("k")
        .body(ByteStream::from(data.clone()))
        .send()
        .await
        .unwrap();
    assert_eq!(get_bytes(&t, &b, "k").await, data);
}

sim_only!(
    size_only_keeps_sizes_and_metadata_and_serves_zeros,
    keystorm_sim::Storage::SizeOnly
);
async fn size_only_keeps_sizes_and_metadata_and_serves_zeros(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("sob");
    c.create_bucket().bucket(&b).send().await.unwrap();
    c.put_object()
        .bucket(&b)
        .key("big")
        .body(ByteStream::from(vec![9u8; 200_000]))
        .metadata("team", "t1")
        .send()
        .await
        .unwrap();
    let head = c.head_object().bucket(&b).key("big").send().await.unwrap();
    assert_eq!(head.content_length(), Some(200_000));
    assert_eq!(
        head.metadata().unwrap().get("team").map(String::as_str),
        Some("t1")
    );
    let body = get_bytes(&t, &b, "big").await;
    assert_eq!(body.len(), 200_000);
    assert!(body.iter().all(|b| *b == 0));
    assert_eq!(t.sim_handle().unwrap().object_count(&b), Some(1));
}

sim_only!(
    size_only_etags_are_the_md5_of_the_zeros_served,
    keystorm_sim::Storage::SizeOnly
);
async fn size_only_etags_are_the_md5_of_the_zeros_served(t: Arc<Target>) {
    let c = &t.client;
    let b = t.bucket("soe");
    c.create_bucket().bucket(&b).send().await.unwrap();
    // Whatever bytes a PUT sends, a GET returns zeros: the ETag is theirs. Past 4 MiB
    // the target keeps the ETag instead of working it out on each read.
    let cases = [
        ("zeros", vec![0u8; 1000]),
        ("nines", vec![9u8; 1000]),
        ("empty", Vec::new()),
        ("large", vec![0u8; (5 << 20) + 3]),
    ];
    for (key, body) in &cases {
        let zeros = vec![0u8; body.len()];
        let put = c
            .put_object()
            .bucket(&b)
            .key(*key)
            .body(ByteStream::from(body.clone()))
            .send()
            .await
            .unwrap();
        assert_eq!(put.e_tag(), Some(quoted_md5(&zeros).as_str()), "{key}");
        let head = c.head_object().bucket(&b).key(*key).send().await.unwrap();
        assert_eq!(head.e_tag(), put.e_tag(), "HEAD {key}");
        let got = c.get_object().bucket(&b).key(*key).send().await.unwrap();
        assert_eq!(got.e_tag(), put.e_tag(), "GET {key}");
        let served = got.body.collect().await.unwrap().into_bytes();
        assert_eq!(
            quoted_md5(&served),
            quoted_md5(&zeros),
            "{key}: served zeros"
        );
    }
    assert_eq!(
        quoted_md5(&[0; 1000]),
        "\"ede3d3b685b4e137ba4cb2521329a75e\"",
        "the MD5 of 1000 zeros"
    );
    let listed = c.list_objects_v2().bucket(&b).send().await.unwrap();
    for o in listed.contents() {
        let (_, body) = cases.iter().find(|(k, _)| Some(*k) == o.key()).unwrap();
        assert_eq!(o.e_tag(), Some(quoted_md5(&vec![0; body.len()]).as_str()));
    }
    assert_eq!(listed.contents().len(), cases.len());
}

sim_only!(sim_counts_match_the_listing, keystorm_sim::Storage::Memory);
async fn sim_counts_match_the_listing(t: Arc<Target>) {
    let b = t.bucket("cnt");
    t.client.create_bucket().bucket(&b).send().await.unwrap();
    t.put_many(&b, (0..50).map(|i| format!("k{i}")).collect(), b"x")
        .await;
    assert_eq!(t.sim_handle().unwrap().object_count(&b), Some(50));
    assert_eq!(t.all_keys(&b).await.len(), 50);
    assert_eq!(t.sim_handle().unwrap().object_count("no-such-bucket"), None);
}

#[tokio::test]
async fn shutdown_stops_the_target() {
    let t = Target::sim(Storage::Memory).await;
    let t = Arc::into_inner(t).expect("one owner");
    let sim = t.into_sim().unwrap();
    let addr = sim.addr();
    sim.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[test]
fn env_files_parse_as_ceph_up_writes_them() {
    let vars = common::parse_env_file(
        "# comment\n\nKEYSTORM_RGW_ENDPOINT=http://127.0.0.1:7480\n\
         export KEYSTORM_RGW_ACCESS_KEY=\"AK\"\nKEYSTORM_RGW_SECRET_KEY='s=k'\n",
    );
    assert_eq!(
        vars,
        [
            (
                "KEYSTORM_RGW_ENDPOINT".into(),
                "http://127.0.0.1:7480".into()
            ),
            ("KEYSTORM_RGW_ACCESS_KEY".into(), "AK".into()),
            ("KEYSTORM_RGW_SECRET_KEY".into(), "s=k".into()),
        ]
    );
}
