//! The three listing modes against the embedded target: each lists exactly the keys
//! the target holds — count, bytes, and every key once — on uniform base-62 keys, a
//! skewed set, folder-like keys, keys with odd characters, and a million keys; and
//! counts every page request once when pages fail and are retried.

mod common;

use std::collections::BTreeSet;
use std::io::BufRead;
use std::sync::{Arc, Mutex};

use keystorm_engine::listing::{self, KeySink, ListJob, ListOutputs};
use keystorm_results::space_report::SpaceReport;
use keystorm_results::{ListMode, ListOutcome};
use keystorm_s3::S3Client;
use keystorm_sim::SimHandle;
use tokio_util::sync::CancellationToken;

const BUCKET: &str = "listing";

/// Puts `keys` straight into the target's store (sizes only: the test is about listing).
fn seed(sim: &SimHandle, keys: impl IntoIterator<Item = (String, u64)>) {
    sim.store().create_bucket(BUCKET);
    common::put_sized(sim, BUCKET, keys);
}

/// The keys and bytes the target holds under `prefix`.
fn truth(sim: &SimHandle, prefix: &str) -> (BTreeSet<String>, u64) {
    let bucket = sim.store().bucket(BUCKET).expect("bucket");
    let objects = bucket.read();
    let mut keys = BTreeSet::new();
    let mut bytes = 0;
    for o in objects.iter() {
        let k = String::from_utf8(o.key.to_vec()).expect("utf-8 key");
        if k.starts_with(prefix) {
            bytes += o.size;
            keys.insert(k);
        }
    }
    (keys, bytes)
}

fn job(prefix: &str, mode: ListMode) -> ListJob {
    ListJob {
        bucket: BUCKET.into(),
        prefix: prefix.into(),
        mode,
        listers: 16,
        page_size: 1000,
        retries: 0,
        report_depth: None,
        shard: Default::default(),
    }
}

/// Lists with every mode, writing keys to a file; checks count, bytes and each key once.
async fn every_mode_lists_exactly(sim: &SimHandle, client: &S3Client, prefix: &str) {
    let (keys, bytes) = truth(sim, prefix);
    assert!(!keys.is_empty());
    let dir = tempfile::tempdir().unwrap();
    for mode in common::list_modes() {
        let path = dir.path().join("keys.jsonl");
        let sink: KeySink = Arc::new(Mutex::new(std::io::BufWriter::new(
            std::fs::File::create(&path).unwrap(),
        )));
        let requests_before = sim.requests(keystorm_sim::Op::ListObjectsV2);
        let outcome = listing::list(
            client,
            &job(prefix, mode.clone()),
            Arc::new(()),
            ListOutputs {
                keys_file: Some(sink),
                entries: None,
                checkpoint: None,
            },
            CancellationToken::new(),
        )
        .await
        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        assert!(outcome.complete);
        assert_eq!(outcome.keys, keys.len() as u64, "{mode:?} count");
        // Every request the listing sent is counted, seeds and probes too.
        assert_eq!(
            outcome.requests,
            sim.requests(keystorm_sim::Op::ListObjectsV2) - requests_before,
            "{mode:?} requests"
        );
        assert_eq!(outcome.bytes, bytes, "{mode:?} bytes");
        let mut seen = BTreeSet::new();
        for line in std::io::BufReader::new(std::fs::File::open(&path).unwrap()).lines() {
            let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            let key = v["key"].as_str().unwrap().to_string();
            assert!(seen.insert(key.clone()), "{mode:?} listed {key:?} twice");
        }
        assert!(
            seen == keys,
            "{mode:?}: listed keys differ from the target's"
        );
    }
}

async fn sim_and_client() -> (SimHandle, S3Client) {
    let sim = common::start_sim().await;
    let client = common::client_of(&sim.endpoint(), 32).await;
    (sim, client)
}

fn base62(rng: &mut fastrand::Rng, len: usize) -> String {
    let a = keystorm_results::BASE62_ALPHABET.as_bytes();
    (0..len).map(|_| a[rng.usize(..a.len())] as char).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uniform_random_keys() {
    let (sim, client) = sim_and_client().await;
    let mut rng = fastrand::Rng::with_seed(1);
    seed(
        &sim,
        (0..30_000).map(|i| (format!("u/{}", base62(&mut rng, 16)), i % 5000)),
    );
    // Other prefixes must not leak into a listing of `u/`.
    seed(&sim, (0..500).map(|i| (format!("v/{i}"), 1)));
    every_mode_lists_exactly(&sim, &client, "u/").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skewed_set_with_nine_tenths_under_one_prefix() {
    let (sim, client) = sim_and_client().await;
    let mut rng = fastrand::Rng::with_seed(2);
    seed(
        &sim,
        (0..27_000).map(|i| (format!("logs/hot/{:08}", i * 7), 100)),
    );
    seed(
        &sim,
        (0..3_000).map(|_| (format!("logs/{}", base62(&mut rng, 10)), 10)),
    );
    every_mode_lists_exactly(&sim, &client, "logs/").await;
    // Adaptive listers spread into the hot prefix: ranges were cut while listing.
    let outcome = list_once(&client, "logs/", ListMode::Adaptive { delimiter: None }).await;
    assert!(outcome.cuts > 0, "{outcome:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn folder_like_keys() {
    let (sim, client) = sim_and_client().await;
    let mut rng = fastrand::Rng::with_seed(3);
    seed(
        &sim,
        (0..20_000).map(|_| {
            let (a, b, c) = (rng.u32(..20), rng.u32(..10), rng.u32(..5));
            (
                format!("{a:02}/{b:02}/{c:02}/{}.dat", base62(&mut rng, 8)),
                42,
            )
        }),
    );
    // Loose keys between the folders, and one that is a folder's own name.
    seed(
        &sim,
        ["00", "05x", "10", "readme.txt", "zz-last"]
            .map(|k| (k.to_string(), 1))
            .into_iter(),
    );
    every_mode_lists_exactly(&sim, &client, "").await;
    let outcome = list_once(&client, "", ListMode::adaptive_from_folders()).await;
    // Seeded from the 20 top folders (and the gaps around them).
    assert!(outcome.ranges >= 20, "{outcome:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_with_spaces_unicode_and_url_characters() {
    let (sim, client) = sim_and_client().await;
    let mut keys = Vec::new();
    for (i, stem) in [
        "a b",
        "a+b",
        "a%2Fb",
        "a&b=c",
        "ü",
        "日本/語",
        "é",
        "-dash",
        "~tilde",
        "!bang",
        "(x)",
        "x\u{10FFFF}",
        "a\u{10FFFF}z",
        "9\u{FFFD}",
        ":colon",
        "[",
        "`",
        "{",
        " ",
    ]
    .iter()
    .enumerate()
    {
        for j in 0..40 {
            keys.push((format!("odd/{stem}{j}"), (i * 40 + j) as u64));
        }
        keys.push((format!("odd/{stem}"), 3));
    }
    keys.push(("odd/".to_string(), 0));
    seed(&sim, keys);
    every_mode_lists_exactly(&sim, &client, "odd/").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_million_keys_in_every_mode() {
    let sim = keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        keystorm_sim::SimConfig {
            storage: keystorm_sim::Storage::SizeOnly,
            credentials: Some((common::ACCESS_KEY.into(), common::SECRET_KEY.into())),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let client = common::client_of(&sim.endpoint(), 32).await;
    let mut rng = fastrand::Rng::with_seed(4);
    seed(
        &sim,
        (0..1_000_000u64).map(|i| (format!("m/{}", base62(&mut rng, 14)), i % 100)),
    );
    let usage = sim.store().bucket(BUCKET).expect("bucket").usage();
    assert_eq!(usage.objects, 1_000_000);
    for mode in [
        ListMode::Serial,
        ListMode::base62_prefix(1),
        ListMode::Adaptive { delimiter: None },
    ] {
        let o = list_once(&client, "m/", mode.clone()).await;
        assert_eq!((o.keys, o.bytes), (usage.objects, usage.size), "{mode:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_space_report_adds_up_to_the_listing() {
    let (sim, client) = sim_and_client().await;
    seed(
        &sim,
        (0..3000).map(|i| {
            let ext = ["jpg", "txt", "gz"][i % 3];
            (format!("r/{}/{i}.{ext}", i % 4), (i as u64) * 100)
        }),
    );
    let mut j = job("r/", ListMode::Adaptive { delimiter: None });
    j.report_depth = Some(1);
    let o = listing::list(
        &client,
        &j,
        Arc::new(()),
        ListOutputs::default(),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    let r: SpaceReport = o.report.expect("report");
    assert_eq!((r.total.objects, r.total.bytes), (o.keys, o.bytes));
    assert_eq!(r.by_prefix.len(), 4);
    assert_eq!(r.by_prefix["0"].objects, 750);
    assert_eq!(r.by_suffix[".jpg"].objects, 1000);
    assert_eq!(r.by_age["< 1 hour"].objects, 3000);
    let sized: u64 = r.by_size.values().map(|t| t.objects).sum();
    assert_eq!(sized, 3000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_of_a_missing_bucket_fails_with_its_range() {
    let (_sim, client) = sim_and_client().await;
    let err = listing::list(
        &client,
        &job("", ListMode::Serial),
        Arc::new(()),
        ListOutputs::default(),
        CancellationToken::new(),
    )
    .await
    .expect_err("no such bucket");
    assert!(err.to_string().contains("http_404"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_request_is_counted_once_when_pages_fail_and_are_retried() {
    // One LIST in five fails with a 500; the client would retry each call three times.
    let sim = keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        keystorm_sim::SimConfig {
            credentials: Some((common::ACCESS_KEY.into(), common::SECRET_KEY.into())),
            faults: keystorm_sim::FaultConfig {
                internal_error: 0.2,
                seed: 9,
                ops: vec![keystorm_sim::ObjectOp::List],
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .await
    .unwrap();
    seed(&sim, (0..3000).map(|i| (format!("f/{i:05}"), 1)));
    let client = common::client_retrying(&sim.endpoint(), 3).await;
    let mut j = job("f/", ListMode::Serial);
    j.page_size = 100;
    j.retries = 5;
    let o = listing::list(
        &client,
        &j,
        Arc::new(()),
        ListOutputs::default(),
        CancellationToken::new(),
    )
    .await
    .expect("listing");

    assert!(o.complete && o.keys == 3000, "{o:?}");
    let injected = sim.fault_counts().internal_error;
    assert!(injected > 0, "some pages failed");
    assert_eq!(o.requests, sim.requests(keystorm_sim::Op::ListObjectsV2));
    assert_eq!(o.errors, injected, "each failed page counted once");
    assert_eq!(o.requests - o.errors, 30, "30 pages listed");
}

async fn list_once(client: &S3Client, prefix: &str, mode: ListMode) -> ListOutcome {
    listing::list(
        client,
        &job(prefix, mode),
        Arc::new(()),
        ListOutputs::default(),
        CancellationToken::new(),
    )
    .await
    .expect("listing")
}

/// Keeps the `listing` events of a run.
#[derive(Default)]
struct Listings(Mutex<Vec<(String, ListOutcome)>>);

impl keystorm_workload::observer::Observer for Listings {
    fn event(&self, _id: u64, event: &keystorm_results::RunEvent) {
        if let keystorm_results::RunEvent::Listing { phase, outcome } = event {
            self.0
                .lock()
                .unwrap()
                .push((phase.name.clone(), outcome.clone()));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_phases_list_every_bucket_in_their_mode() {
    let sim = common::start_sim().await;
    let text = common::workload(
        &sim.endpoint(),
        "buckets: { names: [lst-a, lst-b] }\nkeyspace: { prefix: k/ }\nobjects: { size: 10B }\nbefore:\n  - { op: put, concurrency: 16, until_objects: 3000 }\nafter:\n  - { name: serial, op: list }\n  - { name: prefix, op: list, mode: prefix, concurrency: 8 }\n  - { name: adaptive, op: list, mode: adaptive, concurrency: 8, report: true }\n",
    );
    // Keys of other runs in the same buckets stay out of the listing.
    sim.store().create_bucket("lst-a");
    common::put_sized(&sim, "lst-a", (0..50).map(|i| (format!("other/{i}"), 1)));
    let dir = tempfile::tempdir().unwrap();
    let listings = Arc::new(Listings::default());
    let outcome = common::run_observed(&text, dir.path(), listings.clone()).await;
    assert_eq!(outcome.status.as_str(), "completed", "{:?}", outcome.error);
    let listings = listings.0.lock().unwrap();
    // Three phases × two buckets, 1500 keys of 10 bytes in each bucket.
    assert_eq!(listings.len(), 6);
    for (phase, o) in listings.iter() {
        assert_eq!(o.mode.name(), phase.as_str());
        assert_eq!((o.keys, o.bytes), (1500, 15_000), "{phase} {}", o.bucket);
        assert_eq!(o.report.is_some(), phase == "adaptive");
    }
    // Each phase's list rows count every key once.
    for phase in ["serial", "prefix", "adaptive"] {
        let keys: u64 = outcome
            .summary
            .rows
            .iter()
            .filter(|r| r.phase == phase)
            .map(|r| r.stats.keys)
            .sum();
        assert_eq!(keys, 3000, "{phase}");
    }
}
