//! The memory budget: a target that fills it refuses writes (PUT, multipart parts) with
//! 507 InsufficientStorage and a message naming the budget and how to raise it, keeps
//! serving every object it holds with its exact bytes (GET, HEAD, LIST), and takes
//! writes again once deletes made room.

mod support;

use aws_sdk_s3::Client;
use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::primitives::ByteStream;
use keystorm_sim::{SimConfig, Storage};

/// HTTP status, code and message of a refused request.
fn refusal<E: ProvideErrorMetadata + std::fmt::Debug>(
    e: &SdkError<E, HttpResponse>,
) -> (u16, String, String) {
    let SdkError::ServiceError(s) = e else {
        panic!("not an S3 error: {e:?}")
    };
    (
        s.raw().status().as_u16(),
        s.err().code().unwrap_or_default().to_string(),
        s.err().message().unwrap_or_default().to_string(),
    )
}

async fn put(c: &Client, key: &str, body: &[u8]) -> Result<(), (u16, String, String)> {
    c.put_object()
        .bucket("full")
        .key(key)
        .body(ByteStream::from(body.to_vec()))
        .send()
        .await
        .map(|_| ())
        .map_err(|e| refusal(&e))
}

async fn get(c: &Client, key: &str) -> Vec<u8> {
    let out = c.get_object().bucket("full").key(key).send().await.unwrap();
    out.body.collect().await.unwrap().into_bytes().to_vec()
}

async fn all_keys(c: &Client) -> Vec<String> {
    let mut keys = Vec::new();
    let mut token = None;
    loop {
        let page = c
            .list_objects_v2()
            .bucket("full")
            .max_keys(100)
            .set_continuation_token(token)
            .send()
            .await
            .unwrap();
        keys.extend(
            page.contents()
                .iter()
                .filter_map(|o| o.key().map(String::from)),
        );
        token = page.next_continuation_token().map(String::from);
        if token.is_none() {
            return keys;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_budget_refuses_writes_and_keeps_serving_what_it_holds() {
    let sim = support::start(SimConfig {
        storage: Storage::Memory,
        max_memory: Some(2 << 20),
        ..Default::default()
    })
    .await;
    let c = support::client_without_retries(&sim, None);
    c.create_bucket().bucket("full").send().await.unwrap();

    // Distinct random bytes per object, so any mix-up would show.
    let mut rng = fastrand::Rng::with_seed(11);
    let mut stored: Vec<(String, Vec<u8>)> = Vec::new();
    let (status, code, message) = loop {
        let key = format!("obj/{:05}", stored.len());
        let body: Vec<u8> = (0..rng.usize(8_000..12_000)).map(|_| rng.u8(..)).collect();
        match put(&c, &key, &body).await {
            Ok(()) => stored.push((key, body)),
            Err(refused) => break refused,
        }
        assert!(
            stored.len() < 400,
            "2 MiB cannot hold 400 objects of 8 KiB or more"
        );
    };
    assert_eq!((status, code.as_str()), (507, "InsufficientStorage"));
    assert!(
        message.contains("memory budget of 2.0 MiB is full"),
        "{message}"
    );
    assert!(
        message.contains("--max-memory"),
        "says how to raise it: {message}"
    );
    let (held, limit) = sim.memory();
    assert_eq!(limit, 2 << 20);
    assert!(held <= limit, "{held} held");
    let payload: usize = stored.iter().map(|(_, b)| b.len()).sum();
    assert!(
        payload > 1900 << 10,
        "the budget filled up: {payload} bytes stored"
    );

    // Nothing it holds is lost or changed.
    assert_eq!(
        all_keys(&c).await,
        stored.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()
    );
    for (key, body) in &stored {
        assert_eq!(&get(&c, key).await, body, "{key}");
        let head = c
            .head_object()
            .bucket("full")
            .key(key)
            .send()
            .await
            .unwrap();
        assert_eq!(head.content_length(), Some(body.len() as i64));
    }

    // Multipart parts count against the budget too.
    let upload = c
        .create_multipart_upload()
        .bucket("full")
        .key("big")
        .send()
        .await
        .unwrap();
    let part = c
        .upload_part()
        .bucket("full")
        .key("big")
        .upload_id(upload.upload_id().unwrap())
        .part_number(1)
        .body(ByteStream::from(vec![1; 64 << 10]))
        .send()
        .await
        .unwrap_err();
    assert_eq!(refusal(&part).0, 507);

    // Deletes make room; a write that fits goes through again.
    for (key, _) in stored.drain(..3) {
        c.delete_object()
            .bucket("full")
            .key(&key)
            .send()
            .await
            .unwrap();
    }
    assert!(sim.memory().0 < held);
    let body = vec![42u8; 10_000];
    put(&c, "after-deletes", &body).await.unwrap();
    assert_eq!(get(&c, "after-deletes").await, body);
    assert!(sim.memory().0 <= limit);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_size_only_target_counts_keys_against_its_budget() {
    let sim = support::start(SimConfig {
        storage: Storage::SizeOnly,
        max_memory: Some(64 << 10),
        ..Default::default()
    })
    .await;
    let c = support::client_without_retries(&sim, None);
    c.create_bucket().bucket("full").send().await.unwrap();
    let mut n = 0;
    let refused = loop {
        // Large bodies cost a size-only target nothing but their key and numbers.
        match put(&c, &format!("key-{n:06}"), &[7; 4096]).await {
            Ok(()) => n += 1,
            Err(refused) => break refused,
        }
        assert!(n < 5000, "64 KiB cannot hold 5000 keys");
    };
    assert_eq!(
        (refused.0, refused.1.as_str()),
        (507, "InsufficientStorage")
    );
    // A key costs its text, its numbers and the content type the SDK sends, well under
    // 200 bytes; were the 4 KiB bodies counted, fewer than 16 would fit.
    assert!(n > 64 * 1024 / 200, "only {n} keys fit in 64 KiB");
    assert_eq!(sim.object_count("full"), Some(n));
    let head = c
        .head_object()
        .bucket("full")
        .key("key-000000")
        .send()
        .await
        .unwrap();
    assert_eq!(head.content_length(), Some(4096));
}
