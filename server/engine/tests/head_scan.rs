//! The LIST → HEAD metadata scan against the embedded target: every object is HEADed
//! once and its user metadata comes back exactly as it was written.

mod common;

use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use keystorm_engine::listing::{KeySink, ListJob, PageEvent, PageObserver};
use keystorm_engine::scan::{self, HeadEvent, HeadObserver, ScanJob};
use keystorm_results::ListMode;
use tokio_util::sync::CancellationToken;

const BUCKET: &str = "scan";

fn metadata_of(i: u64) -> Vec<(String, String)> {
    let mut m = vec![
        ("team".to_string(), format!("team-{}", i % 3)),
        ("serial".to_string(), i.to_string()),
    ];
    if i.is_multiple_of(5) {
        m.push(("tier".to_string(), "cold".to_string()));
    }
    m
}

/// Counts requests per kind, so LIST and HEAD are seen measured apart.
#[derive(Default)]
struct Counts {
    pages: AtomicU64,
    heads: AtomicU64,
}

impl PageObserver for Counts {
    fn page(&self, _: PageEvent) {
        self.pages.fetch_add(1, Ordering::Relaxed);
    }
}

impl HeadObserver for Counts {
    fn head(&self, _: HeadEvent) {
        self.heads.fetch_add(1, Ordering::Relaxed);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_object_is_headed_once_with_the_metadata_written() {
    let sim = common::start_sim().await;
    let client = common::client_of(&sim.endpoint(), 64).await;
    client.create_bucket(BUCKET).await.unwrap();
    let n = 1500u64;
    for i in 0..n {
        let key = format!("obj/{:x}/{i}", i % 16);
        client
            .put_object(
                BUCKET,
                &key,
                Bytes::from(vec![b'x'; (i % 7) as usize]),
                &metadata_of(i),
            )
            .await
            .unwrap();
    }
    // An object without metadata, and one outside the prefix that must not be scanned.
    client
        .put_object(BUCKET, "obj/plain", Bytes::from_static(b"p"), &[])
        .await
        .unwrap();
    client
        .put_object(BUCKET, "other/x", Bytes::from_static(b"o"), &metadata_of(1))
        .await
        .unwrap();

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("objects.jsonl");
    let sink: KeySink = Arc::new(Mutex::new(std::io::BufWriter::new(
        std::fs::File::create(&path).unwrap(),
    )));
    let counts = Arc::new(Counts::default());
    let job = ScanJob {
        list: ListJob {
            bucket: BUCKET.into(),
            prefix: "obj/".into(),
            mode: ListMode::Adaptive {
                delimiter: Some("/".into()),
            },
            listers: 4,
            page_size: 100,
            retries: 0,
            report_depth: None,
            shard: Default::default(),
        },
        head_workers: 32,
    };
    let outcome = scan::scan(
        &client,
        &job,
        counts.clone(),
        counts.clone(),
        Some(sink),
        None,
        CancellationToken::new(),
    )
    .await
    .expect("scan");

    assert_eq!(outcome.listing.keys, n + 1);
    assert_eq!((outcome.heads, outcome.head_errors), (n + 1, 0));
    assert_eq!(counts.heads.load(Ordering::Relaxed), n + 1);
    // Every request the observer saw is counted, the delimiter page that seeded the
    // ranges too.
    assert_eq!(
        counts.pages.load(Ordering::Relaxed),
        outcome.listing.requests
    );

    let mut seen = BTreeMap::new();
    for line in std::io::BufReader::new(std::fs::File::open(&path).unwrap()).lines() {
        let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let key = v["key"].as_str().unwrap().to_string();
        let meta: Vec<(String, String)> = v["metadata"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        assert!(
            seen.insert(key, (v["size"].as_u64().unwrap(), meta))
                .is_none()
        );
    }
    assert_eq!(seen.len() as u64, n + 1);
    for i in 0..n {
        let key = format!("obj/{:x}/{i}", i % 16);
        let (size, mut meta) = seen.remove(&key).expect("scanned");
        let mut want = metadata_of(i);
        meta.sort();
        want.sort();
        assert_eq!((size, meta), (i % 7, want), "{key}");
    }
    assert_eq!(seen["obj/plain"].1, vec![]);

    let m = &outcome.metadata;
    assert_eq!((m.objects, m.without_metadata), (n + 1, 1));
    assert_eq!(m.names["team"].objects, n);
    assert_eq!(m.names["team"].values["team-0"], n.div_ceil(3));
    assert_eq!(m.names["tier"].objects, n.div_ceil(5));
    // 1500 distinct serials: only the first 100 are kept, every object is counted.
    let serial = &m.names["serial"];
    assert_eq!(serial.values.len(), 100);
    assert_eq!(serial.objects, n);
    assert_eq!(serial.other_values, n - 100);
}

/// Keeps the metadata-scan events of a run.
#[derive(Default)]
struct Scans(Mutex<Vec<keystorm_results::MetadataScanEvent>>);

impl keystorm_workload::observer::Observer for Scans {
    fn event(&self, _id: u64, event: &keystorm_results::RunEvent) {
        if let keystorm_results::RunEvent::MetadataScan(s) = event {
            self.0.lock().unwrap().push(s.clone());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_head_phase_over_the_bucket_scans_every_key_and_measures_list_and_head_apart() {
    let sim = common::start_sim().await;
    // Another keyspace's objects in the same bucket: a scan of the whole bucket
    // (`prefix: ""`) finds them too, a scan of the keyspace prefix does not.
    let text = common::workload(
        &sim.endpoint(),
        "buckets: { names: [scan-phase] }\nkeyspace: { prefix: mine/ }\nobjects: { size: 10B, metadata: { team: \"team-{i%4}\" } }\nbefore:\n  - { op: put, concurrency: 16, until_objects: 2000 }\nafter:\n  - { name: mine, op: head, keys: bucket, concurrency: 16, list_concurrency: 2, mode: adaptive }\n  - { name: everything, op: head, keys: bucket, concurrency: 8, prefix: \"\" }\n",
    );
    let client = common::client_of(&sim.endpoint(), 4).await;
    client.create_bucket("scan-phase").await.unwrap();
    for i in 0..30 {
        client
            .put_object(
                "scan-phase",
                &format!("theirs/{i}"),
                Bytes::from_static(b"t"),
                &[],
            )
            .await
            .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let scans = Arc::new(Scans::default());
    let outcome = common::run_observed(&text, dir.path(), scans.clone()).await;
    assert_eq!(outcome.status.as_str(), "completed", "{:?}", outcome.error);
    let scans = scans.0.lock().unwrap();
    assert_eq!(scans.len(), 2);
    let (mine, all) = (&scans[0], &scans[1]);
    assert_eq!((mine.heads, mine.head_errors), (2000, 0));
    assert_eq!(mine.metadata.names["team"].objects, 2000);
    assert_eq!(mine.metadata.names["team"].values["team-3"], 500);
    assert_eq!(all.heads, 2030);
    assert_eq!(all.metadata.without_metadata, 30);
    // LIST pages and HEADs are separate rows of the phase.
    let ops = |phase: &str, op: &str| {
        outcome
            .summary
            .rows
            .iter()
            .find(|r| r.phase == phase && r.op.as_str() == op)
            .map(|r| (r.stats.ops, r.stats.keys))
    };
    assert_eq!(ops("mine", "head"), Some((2000, 0)));
    let (pages, keys) = ops("mine", "list").expect("list row");
    assert!(pages >= 2, "{pages}");
    assert_eq!(keys, 2000);
}
