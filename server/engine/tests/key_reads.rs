//! Reads of a bucket keystorm did not write, against a real target on loopback that
//! counts the GETs it answers per key. The bucket is filled by a plain S3 client
//! (folder-like keys, spaces, unicode, `%+&`, sizes from 0 bytes to 20 MiB); a `get`
//! phase with `keys: {from: listing}` and `epochs: 2` reads every key exactly twice by
//! the target's own count, with no 404 and exactly the listed bytes; a later run reads
//! the key file the first one left; uniform and Zipf picks spread over the file; the
//! shards of one workload read disjoint parts that add up to every key once per epoch;
//! a phase stopped mid-epoch and resumed reads no key fewer times; the manifest gives
//! the anonymous part of the peak RSS beside it.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use keystorm_results::Shard;
use keystorm_results::{
    IntervalQuery, KeySourceKind, KeysEvent, RunEvent, RunStatus, read_intervals,
};
use keystorm_sim::{Op, SimConfig, SimHandle};
use keystorm_types::OpKind;
use keystorm_workload::observer::{NoObserver, Observer};
use tokio_util::sync::CancellationToken;

const BUCKET: &str = "foreign";

async fn start(get_latency: Option<std::time::Duration>) -> SimHandle {
    let config = SimConfig {
        credentials: Some((
            common::ACCESS_KEY.to_string(),
            common::SECRET_KEY.to_string(),
        )),
        tally_keys: true,
        latency: keystorm_sim::LatencyConfig {
            get: get_latency.map(keystorm_types::Delay::Fixed),
            ..Default::default()
        },
        ..Default::default()
    };
    keystorm_sim::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("sim starts")
}

/// Keys another program would write: folders, spaces, unicode, characters that need
/// escaping in a URL, and sizes from 0 bytes to 20 MiB.
fn foreign_objects(small: usize) -> Vec<(String, usize)> {
    let mut objects = vec![
        ("empty".to_string(), 0),
        ("big/twenty-mib.bin".to_string(), 20 << 20),
        ("big/five mib.bin".to_string(), 5 << 20),
        ("big/one-mib.bin".to_string(), 1 << 20),
    ];
    let names = [
        "logs/2026/11/27/app.log",
        "with space/and more spaces",
        "ünïcødé/日本語/ファイル",
        "percent%20plus+amp&equals=",
        "deep/a/b/c/d/e/f/g/h",
        "emoji/🚀",
    ];
    for i in 0..small {
        let name = names[i % names.len()];
        objects.push((format!("{name}-{i:04}"), (i * 37) % 9000));
    }
    objects
}

/// Writes the objects with the AWS SDK, as any other program would; their total bytes.
async fn fill_foreign(endpoint: &str, objects: &[(String, usize)]) -> u64 {
    let client = common::client(endpoint).await;
    client.create_bucket(BUCKET).await.expect("bucket");
    for (key, size) in objects {
        let body = Bytes::from(vec![b'x'; *size]);
        client
            .put_object(BUCKET, key, body, &[])
            .await
            .unwrap_or_else(|e| panic!("put {key}: {e}"));
    }
    objects.iter().map(|(_, s)| *s as u64).sum()
}

/// The `keys` events of a run.
#[derive(Default)]
struct KeysEvents(Mutex<Vec<KeysEvent>>);

impl Observer for KeysEvents {
    fn event(&self, _id: u64, event: &RunEvent) {
        if let RunEvent::Keys(k) = event {
            self.0.lock().unwrap().push(k.clone());
        }
    }
}

fn workload(endpoint: &str, phases: &str) -> String {
    common::workload(
        endpoint,
        &format!("buckets: {{ names: [{BUCKET}] }}\nbefore:\n{phases}"),
    )
}

/// GETs per key the target answered, only the foreign bucket's.
fn gets(sim: &SimHandle) -> HashMap<String, u64> {
    sim.key_requests(Op::GetObject)
        .into_iter()
        .filter(|((b, _), _)| b == BUCKET)
        .map(|((_, k), n)| (k, n))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bucket_another_client_filled_is_read_twice_from_its_listing() {
    let sim = start(None).await;
    let objects = foreign_objects(300);
    let total_bytes = fill_foreign(&sim.endpoint(), &objects).await;
    let dir = tempfile::tempdir().unwrap();
    let events = Arc::new(KeysEvents::default());
    let text = workload(
        &sim.endpoint(),
        "  - { name: read, op: get, concurrency: 8, epochs: 2, \
         keys: { from: listing, list_concurrency: 4 } }\n",
    );
    // `list_concurrency` is a phase field, not one of the map's.
    assert!(
        keystorm_workload::spec::parse_workload(&text, "w.yaml").is_err(),
        "list_concurrency inside keys"
    );
    let text = workload(
        &sim.endpoint(),
        "  - { name: read, op: get, concurrency: 8, epochs: 2, list_concurrency: 4, \
         keys: { from: listing } }\n",
    );
    let out = common::run_observed(&text, dir.path(), events.clone()).await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);

    // The target's own count: every key read exactly twice, nothing else.
    let counted = gets(&sim);
    assert_eq!(counted.len(), objects.len());
    for (key, _) in &objects {
        assert_eq!(counted.get(key), Some(&2), "GETs of {key:?}");
    }
    // No 404, and the bytes read are the listed sizes twice over.
    let row = out
        .summary
        .rows
        .iter()
        .find(|r| r.op == OpKind::Get)
        .expect("get row");
    assert_eq!(row.stats.errors, 0, "{:?}", row.stats.error_classes);
    assert_eq!(row.stats.ops, 2 * objects.len() as u64);
    assert_eq!(row.stats.bytes, 2 * total_bytes);

    // The keys event names the bucket, the file in the run folder and the counts.
    let seen = events.0.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let k = &seen[0];
    assert_eq!(k.source, KeySourceKind::Listing);
    assert_eq!(
        (k.bucket.as_str(), k.file.as_str()),
        (BUCKET, "keys-0.keys")
    );
    assert_eq!(
        (k.keys, k.part_keys),
        (objects.len() as u64, objects.len() as u64)
    );
    assert_eq!(k.object_bytes, Some(total_bytes));
    assert_eq!(k.epochs, Some(2));
    // The manifest gives the peak RSS, which counts the mapped key file's pages, and
    // the anonymous part beside it, which does not.
    let manifest = keystorm_results::ResultStore::read_manifest(&out.dir).unwrap();
    let (peak, anon) = (manifest.peak_rss_kib, manifest.peak_rss_anon_kib);
    assert!(
        matches!((peak, anon), (Some(p), Some(a)) if 0 < a && a <= p),
        "{peak:?} {anon:?}"
    );
    // Its intervals say which epoch they ended in: the first and last are 1 and 2.
    let intervals = read_intervals(
        &out.dir,
        &IntervalQuery {
            section: None,
            round: None,
            phase: Some("read"),
            max_points: None,
        },
    );
    let epochs: Vec<u32> = intervals.iter().filter_map(|r| r.epoch).collect();
    assert_eq!(epochs.len(), intervals.len());
    assert_eq!(epochs.last(), Some(&2));

    // A later run reads the key file the first one left, without listing.
    let key_file = out.dir.join("keys-0.keys");
    let lists_before = sim.requests(Op::ListObjectsV2);
    let text = workload(
        &sim.endpoint(),
        &format!(
            "  - {{ name: again, op: head, concurrency: 4, epochs: 1, keys: {{ file: {:?} }} }}\n",
            key_file.display().to_string()
        ),
    );
    let dir2 = tempfile::tempdir().unwrap();
    let again = common::run(&text, dir2.path()).await;
    assert_eq!(again.status, RunStatus::Completed, "{:?}", again.error);
    assert_eq!(sim.requests(Op::ListObjectsV2), lists_before);
    let heads = sim.key_requests(Op::HeadObject);
    assert_eq!(heads.len(), objects.len());
    assert!(heads.values().all(|&n| n == 1), "one HEAD per key");
}

/// Writes `n` small objects straight into the target (no requests counted).
fn fill_sized(sim: &SimHandle, n: usize) -> Vec<String> {
    sim.store().create_bucket(BUCKET);
    let keys: Vec<String> = (0..n).map(|i| format!("obj/{i:05}")).collect();
    common::put_sized(sim, BUCKET, keys.iter().map(|k| (k.clone(), 10)));
    keys
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uniform_and_zipf_picks_spread_over_the_key_file() {
    let sim = start(None).await;
    let keys = fill_sized(&sim, 2000);
    let dir = tempfile::tempdir().unwrap();
    let text = workload(
        &sim.endpoint(),
        "  - { name: uniform, op: get, concurrency: 4, operations: 6000, keys: { from: listing } }\n",
    );
    let out = common::run(&text, dir.path()).await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    let uniform = gets(&sim);
    // 6000 uniform picks over 2000 keys reach most of them (expected 95 %).
    assert!(uniform.len() > 1800, "{} keys read", uniform.len());
    assert!(uniform.values().all(|&n| n < 20));

    let sim = start(None).await;
    fill_sized(&sim, 2000);
    let text = workload(
        &sim.endpoint(),
        "  - { name: zipf, op: get, concurrency: 4, operations: 6000, select: { zipf: 1.2 }, \
         keys: { from: listing } }\n",
    );
    let out = common::run(&text, dir.path()).await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    let zipf = gets(&sim);
    let mut hot: Vec<(u64, &String)> = zipf.iter().map(|(k, n)| (*n, k)).collect();
    hot.sort_by(|a, b| b.cmp(a));
    // The hottest key takes a large share, far more than uniform picks give any key.
    assert!(hot[0].0 > 600, "hottest key read {} times", hot[0].0);
    // The ten hottest keys are spread over the names, not neighbours.
    let places: Vec<usize> = hot[..10]
        .iter()
        .map(|(_, k)| keys.iter().position(|x| x == *k).unwrap())
        .collect();
    let spread = places.iter().max().unwrap() - places.iter().min().unwrap();
    assert!(spread > 1000, "ten hottest at {places:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shards_of_a_workload_read_every_key_once_per_epoch_between_them() {
    let sim = start(None).await;
    let keys = fill_sized(&sim, 1001);
    let text = workload(
        &sim.endpoint(),
        "  - { name: read, op: get, concurrency: 4, epochs: 3, keys: { from: listing } }\n",
    );
    let dir = tempfile::tempdir().unwrap();
    for index in 0..3 {
        let mut plan = common::plan(&text);
        plan.for_shard(Shard::new(index, 3).unwrap()).unwrap();
        let options = keystorm_engine::executor::RunOptions {
            results_root: dir.path().to_path_buf(),
            embedded: Some(Arc::new(keystorm_embedded::SimTargets)),
            ..Default::default()
        };
        let out = keystorm_engine::executor::run(
            plan,
            &text,
            options,
            Arc::new(NoObserver),
            CancellationToken::new(),
        )
        .await
        .expect("run starts");
        assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
        let row = &out.summary.rows[0];
        // Its part: keys index, index + 3, … (334 or 333 of them), three times.
        let part = (1001 - index as u64).div_ceil(3);
        assert_eq!(row.stats.ops, 3 * part, "shard {index}");
    }
    let counted = gets(&sim);
    assert_eq!(counted.len(), keys.len());
    assert!(counted.values().all(|&n| n == 3), "every key three times");
}

/// Stops the run at the first interval of the phase that reads.
struct StopAtFirstInterval(CancellationToken);

impl Observer for StopAtFirstInterval {
    fn event(&self, _id: u64, event: &RunEvent) {
        if let RunEvent::Interval { record, .. } = event
            && record.epoch.is_some()
        {
            self.0.cancel();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_epochs_phase_stopped_mid_epoch_and_resumed_leaves_no_key_out() {
    // 2 ms per GET, 4 workers: 2 × 1200 picks take over a second.
    let sim = start(Some(std::time::Duration::from_millis(2))).await;
    let keys = fill_sized(&sim, 1200);
    let text = workload(
        &sim.endpoint(),
        "  - { name: read, op: get, concurrency: 4, epochs: 2, keys: { from: listing } }\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let first = common::run_with(
        &text,
        dir.path(),
        Arc::new(StopAtFirstInterval(cancel.clone())),
        cancel,
        None,
    )
    .await;
    assert_eq!(first.status, RunStatus::Interrupted, "{:?}", first.error);
    let read_before: u64 = gets(&sim).values().sum();
    assert!(
        read_before < 2 * 1200,
        "stopped mid-phase: {read_before} reads"
    );
    let out = common::run_with(
        &text,
        dir.path(),
        Arc::new(NoObserver),
        CancellationToken::new(),
        Some(first.dir.clone()),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed, "{:?}", out.error);
    let counted = gets(&sim);
    assert_eq!(counted.len(), keys.len());
    for k in &keys {
        assert!(counted[k] >= 2, "{k} read {} times", counted[k]);
    }
    // At most the picks in flight when it stopped (one per worker) are read again.
    let extra: u64 = counted.values().map(|n| n - 2).sum();
    assert!(extra <= 4, "{extra} reads beyond two per key");
}
