//! The listing modes and the HEAD scan against a real Ceph RGW (`scripts/ceph-up.sh`):
//! every mode lists exactly the keys written — folders, a skewed prefix, and keys
//! with spaces, unicode and `%+&` — a listing stopped and resumed from its checkpoint
//! lists each of them once, and the HEAD scan reads back their metadata.
//!
//! Compiled with the `rgw-tests` feature (`scripts/test.sh` turns it on with the
//! cluster up); it fails, rather than skips, when the cluster is not configured.

#![cfg(feature = "rgw-tests")]

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use keystorm_engine::listing::{
    self, Checkpointing, KeySink, ListCheckpoint, ListJob, ListOutputs,
};
use keystorm_engine::scan::{self, ScanJob};
use keystorm_results::ListMode;
use keystorm_s3::S3Client;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// The keys of the test: folders, nine tenths of them under one of them, odd names.
fn keys() -> Vec<String> {
    let mut keys = Vec::new();
    for i in 0..1800 {
        keys.push(format!("t/hot/{i:05}"));
    }
    for i in 0..150 {
        keys.push(format!("t/{:02}/{i}", i % 15));
    }
    for stem in [
        "a b",
        "a+b",
        "a%2Fb",
        "a&b=c",
        "ü",
        "日本/語",
        "-dash",
        "~tilde",
        "(x)",
        ":colon",
    ] {
        for j in 0..5 {
            keys.push(format!("t/{stem}{j}"));
        }
    }
    keys.push("t/".into());
    keys
}

async fn put_all(client: &S3Client, bucket: &str, keys: &[String]) {
    let mut set = JoinSet::new();
    for chunk in keys.chunks(keys.len().div_ceil(16)) {
        let (client, bucket, chunk) = (client.clone(), bucket.to_string(), chunk.to_vec());
        set.spawn(async move {
            for (n, key) in chunk.iter().enumerate() {
                let meta = vec![("shard".to_string(), format!("s{}", n % 4))];
                client
                    .put_object(&bucket, key, Bytes::from(vec![b'k'; key.len()]), &meta)
                    .await
                    .unwrap_or_else(|e| panic!("put {key:?}: {e}"));
            }
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
}

async fn delete_all(client: &S3Client, bucket: &str, keys: &[String]) {
    for chunk in keys.chunks(1000) {
        let out = client.delete_objects(bucket, chunk).await.expect("delete");
        assert!(out.errors.is_empty(), "{:?}", out.errors);
    }
    client.delete_bucket(bucket).await.expect("delete bucket");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_mode_lists_exactly_what_rgw_holds_and_heads_read_its_metadata() {
    let client = common::rgw_client(32).await;
    let bucket = format!("ks-list-{}", fastrand::u32(..));
    assert!(client.create_bucket(&bucket).await.expect("create"));
    let keys = keys();
    put_all(&client, &bucket, &keys).await;
    let want: BTreeSet<String> = keys.iter().cloned().collect();
    let bytes: u64 = keys.iter().map(|k| k.len() as u64).sum();

    let dir = tempfile::tempdir().unwrap();
    for mode in [
        ListMode::Serial,
        ListMode::base62_prefix(1),
        ListMode::adaptive_from_folders(),
        ListMode::Adaptive { delimiter: None },
    ] {
        let path = dir.path().join("keys.jsonl");
        let sink: KeySink = Arc::new(Mutex::new(std::io::BufWriter::new(
            std::fs::File::create(&path).unwrap(),
        )));
        let job = ListJob {
            bucket: bucket.clone(),
            prefix: "t/".into(),
            mode: mode.clone(),
            listers: 8,
            page_size: 100,
            retries: 1,
            report_depth: None,
            shard: Default::default(),
        };
        let outputs = ListOutputs {
            keys_file: Some(sink),
            entries: None,
            checkpoint: None,
        };
        let o = listing::list(
            &client,
            &job,
            Arc::new(()),
            outputs,
            CancellationToken::new(),
        )
        .await
        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        assert_eq!((o.keys, o.bytes), (want.len() as u64, bytes), "{mode:?}");
        let text = std::fs::read_to_string(&path).unwrap();
        let got: Vec<String> = text
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["key"].as_str().unwrap().to_string()
            })
            .collect();
        assert_eq!(got.len(), want.len(), "{mode:?}: a key listed twice");
        assert!(
            got.into_iter().collect::<BTreeSet<_>>() == want,
            "{mode:?}: keys differ"
        );
    }

    // Stopped part way and resumed from its checkpoint, each mode still lists every key
    // once: resuming goes on with `start-after` from each range's last key, which RGW
    // must honour for these keys too.
    for mode in [ListMode::Serial, ListMode::Adaptive { delimiter: None }] {
        let path = dir.path().join("resumed.jsonl");
        let saved = dir.path().join("list.checkpoint");
        let job = ListJob {
            bucket: bucket.clone(),
            prefix: "t/".into(),
            mode: mode.clone(),
            listers: 4,
            page_size: 50,
            retries: 1,
            report_depth: None,
            shard: Default::default(),
        };
        let stop = CancellationToken::new();
        let stopper = stop.clone();
        let mut resume = None;
        let mut file = std::fs::File::create(&path).unwrap();
        // First stopped at its eighth page, then resumed to the end.
        let runs = [
            (
                Arc::new(common::AtPage::new(8, move || stopper.cancel()))
                    as Arc<dyn listing::PageObserver>,
                stop,
            ),
            (Arc::new(()), CancellationToken::new()),
        ];
        for (n, (observer, stop)) in runs.into_iter().enumerate() {
            let sink: KeySink = Arc::new(Mutex::new(std::io::BufWriter::new(file)));
            let outputs = ListOutputs {
                keys_file: Some(sink),
                entries: None,
                checkpoint: Some(Checkpointing {
                    path: saved.clone(),
                    every: std::time::Duration::from_secs(3600),
                    resume: resume.take(),
                    on_save: None,
                    keep_complete: false,
                    consumer: None,
                }),
            };
            let o = listing::list(&client, &job, observer, outputs, stop)
                .await
                .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
            assert_eq!(o.complete, n == 1, "{mode:?} run {n}");
            if n == 1 {
                assert_eq!((o.keys, o.bytes), (want.len() as u64, bytes), "{mode:?}");
                break;
            }
            let c = ListCheckpoint::read(&saved).unwrap().expect("saved");
            assert!(c.keys > 0 && c.keys < want.len() as u64, "{mode:?}");
            file = c.reopen_key_file(&path).unwrap();
            resume = Some(c);
        }
        let listed: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["key"].as_str().unwrap().to_string()
            })
            .collect();
        assert_eq!(
            listed.len(),
            want.len(),
            "{mode:?}: resumed, a key listed twice"
        );
        assert!(
            listed.into_iter().collect::<BTreeSet<_>>() == want,
            "{mode:?}"
        );
        assert!(!saved.exists(), "{mode:?}");
    }

    let scan_job = ScanJob {
        list: ListJob {
            bucket: bucket.clone(),
            prefix: "t/".into(),
            mode: ListMode::Adaptive { delimiter: None },
            listers: 4,
            page_size: 1000,
            retries: 1,
            report_depth: None,
            shard: Default::default(),
        },
        head_workers: 16,
    };
    let s = scan::scan(
        &client,
        &scan_job,
        Arc::new(()),
        Arc::new(()),
        None,
        None,
        CancellationToken::new(),
    )
    .await
    .expect("scan");
    assert_eq!((s.heads, s.head_errors), (want.len() as u64, 0));
    let shard = &s.metadata.names["shard"];
    assert_eq!(shard.objects, want.len() as u64);
    assert_eq!(shard.values.len(), 4);

    delete_all(&client, &bucket, &keys).await;
}
