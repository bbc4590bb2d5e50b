//! Reads of a bucket keystorm did not write, against a real Ceph RGW
//! (`scripts/ceph-up.sh`): the test fills a bucket with a plain S3 client — folder-like
//! keys, spaces, unicode, `%+&`, sizes from 0 bytes to 20 MiB — and a `get` phase with
//! `keys: {from: listing}` and `epochs: 2` reads every object twice: no 404, and exactly
//! twice the listed bytes. A workload that would write into that bucket is refused.
//!
//! Compiled with the `rgw-tests` feature (`scripts/test.sh` brings the cluster up and
//! turns it on); it fails, rather than skips, when the cluster is not configured.

#![cfg(feature = "rgw-tests")]

mod common;

use bytes::Bytes;
use keystorm_results::RunStatus;
use keystorm_types::OpKind;
use tokio::task::JoinSet;

/// Keys another program would write, with their sizes.
fn objects() -> Vec<(String, usize)> {
    let mut out = vec![
        ("empty".to_string(), 0),
        ("big/twenty mib.bin".to_string(), 20 << 20),
        ("big/1mib.bin".to_string(), 1 << 20),
    ];
    let stems = [
        "folder/sub/file",
        "with space/x y",
        "ünïcødé/日本語",
        "per%cent+plus&amp=eq",
        "a/b/c/d/e",
    ];
    for i in 0..400 {
        out.push((
            format!("{}-{i:03}", stems[i % stems.len()]),
            (i * 53) % 20_000,
        ));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bucket_filled_by_another_client_is_read_twice_from_its_listing() {
    let bucket = format!("foreign-{}", fastrand::u32(..));
    let client = common::rgw_client(16).await;
    client.create_bucket(&bucket).await.expect("bucket");
    let objects = objects();
    let mut puts = JoinSet::new();
    for chunk in objects.chunks(objects.len().div_ceil(8)) {
        let (client, bucket, chunk) = (client.clone(), bucket.clone(), chunk.to_vec());
        puts.spawn(async move {
            for (key, size) in chunk {
                client
                    .put_object(&bucket, &key, Bytes::from(vec![b'k'; size]), &[])
                    .await
                    .unwrap_or_else(|e| panic!("put {key}: {e}"));
            }
        });
    }
    while let Some(r) = puts.join_next().await {
        r.unwrap();
    }
    let total: u64 = objects.iter().map(|(_, s)| *s as u64).sum();

    let target = format!(
        "name: rgw-foreign\ntarget:\n  endpoint: {}\n  credentials: {{ access_key: {}, secret_key: {} }}\n",
        common::rgw_env("KEYSTORM_RGW_ENDPOINT"),
        common::rgw_env("KEYSTORM_RGW_ACCESS_KEY"),
        common::rgw_env("KEYSTORM_RGW_SECRET_KEY"),
    );
    let text = format!(
        "{target}buckets: {{ names: [{bucket}] }}\nbefore:\n  \
         - {{ name: read, op: get, concurrency: 16, epochs: 2, list_concurrency: 8, \
         keys: {{ from: listing, mode: adaptive }} }}\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = common::run(&text, dir.path()).await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    let row = out
        .summary
        .rows
        .iter()
        .find(|r| r.op == OpKind::Get)
        .expect("get row");
    assert_eq!(row.stats.errors, 0, "{:?}", row.stats.error_classes);
    assert_eq!(row.stats.ops, 2 * objects.len() as u64);
    assert_eq!(row.stats.bytes, 2 * total);

    // Writing into it is refused before anything runs; allowed, it goes ahead.
    let writes = format!(
        "{target}buckets: {{ names: [{bucket}] }}\nbefore:\n  \
         - {{ name: read, op: head, epochs: 1, keys: {{ from: listing }} }}\n  \
         - {{ name: scribble, op: put, operations: 1 }}\n"
    );
    let refused = keystorm_workload::spec::parse_workload(&writes, "w.yaml")
        .expect_err("a write into a listed bucket")
        .to_string();
    assert!(
        refused.contains("phase \"scribble\" writes into bucket"),
        "{refused}"
    );
    let keys_left = common::list_all(&client, &bucket).await;
    assert_eq!(keys_left.len(), objects.len(), "nothing written");

    // Leave the cluster as it was.
    for (key, _) in &objects {
        client.delete_object(&bucket, key).await.expect("delete");
    }
    client.delete_bucket(&bucket).await.expect("bucket gone");
}
