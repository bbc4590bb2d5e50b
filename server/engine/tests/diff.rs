//! `diff` against a real target on loopback: two buckets of a million keys, the second
//! with keys removed, added, resized and rewritten (same size, other ETag), listed in
//! parallel in two modes; the diff names exactly those keys, and counts the rest as
//! the same. A key file compares like the listing it was saved from.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use keystorm_engine::audit::diff::{
    Change, DiffError, DiffJob, DiffOutcome, DiffSource, Difference, diff,
};
use keystorm_engine::listing::{ListJob, PageObserver};
use keystorm_results::ListMode;
use keystorm_results::Shard;
use keystorm_sim::{Object, SimConfig, Storage, size_only_etag};
use tokio_util::sync::CancellationToken;

const KEYS: u64 = 1_000_000;

fn key(i: u64) -> String {
    format!(
        "data/{:02}/{:016x}",
        i % 97,
        keystorm_engine::keyspace::mix64(5, i)
    )
}

fn size(i: u64) -> u64 {
    i % 4096
}

fn object(size: u64, etag: [u8; 16]) -> Object {
    Object {
        size,
        etag,
        last_modified_ms: 0,
        content_type: None,
        metadata: Box::new([]),
        data: None,
        parts: 0,
    }
}

fn job(bucket: &str, prefix: &str, mode: ListMode) -> ListJob {
    ListJob {
        bucket: bucket.to_string(),
        prefix: prefix.to_string(),
        mode,
        listers: 8,
        page_size: 1000,
        retries: 2,
        report_depth: None,
        shard: Shard::WHOLE,
    }
}

/// Every difference, by key.
fn collector() -> (
    Arc<Mutex<BTreeMap<String, Difference>>>,
    keystorm_engine::audit::diff::OnDifference,
) {
    let found = Arc::new(Mutex::new(BTreeMap::new()));
    let into = found.clone();
    let on = Box::new(move |d: &Difference| {
        let old = into.lock().unwrap().insert(d.key.clone(), d.clone());
        assert!(old.is_none(), "{} found twice", d.key);
        Ok(())
    });
    (found, on)
}

/// Diffs `a` against `b` (ETags compared), spilling in `spill`; the outcome and every
/// difference by key.
async fn compare(
    a: DiffSource,
    b: DiffSource,
    spill: &std::path::Path,
    budget: u64,
) -> Result<(DiffOutcome, BTreeMap<String, Difference>), DiffError> {
    let (found, on) = collector();
    let job = DiffJob {
        a,
        b,
        etags: true,
        spill_in: spill.to_path_buf(),
        budget,
    };
    let observers: [Arc<dyn PageObserver>; 2] = [Arc::new(()), Arc::new(())];
    let outcome = diff(job, observers, on, CancellationToken::new()).await?;
    let found = std::mem::take(&mut *found.lock().unwrap());
    Ok((outcome, found))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_million_keys_diff_to_exactly_what_was_removed_added_and_changed() {
    let sim = keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        SimConfig {
            storage: Storage::SizeOnly,
            credentials: Some((
                common::ACCESS_KEY.to_string(),
                common::SECRET_KEY.to_string(),
            )),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let store = sim.store();
    for b in ["before", "after"] {
        assert!(store.create_bucket(b));
    }
    let (before, after) = (
        store.bucket("before").unwrap(),
        store.bucket("after").unwrap(),
    );
    // B is A with every 1000th key removed, every 3333rd resized, every 5000th
    // rewritten with the same size, and 700 keys of its own.
    let mut expected: BTreeMap<String, Change> = BTreeMap::new();
    for i in 0..KEYS {
        let (k, s) = (key(i), size(i));
        before
            .put(k.as_bytes(), object(s, size_only_etag(s)))
            .unwrap();
        if i % 1000 == 7 {
            expected.insert(k, Change::OnlyA);
        } else if i % 3333 == 5 {
            after
                .put(k.as_bytes(), object(s + 1, size_only_etag(s + 1)))
                .unwrap();
            expected.insert(k, Change::Size);
        } else if i % 5000 == 11 {
            after.put(k.as_bytes(), object(s, [0xee; 16])).unwrap();
            expected.insert(k, Change::Etag);
        } else {
            after
                .put(k.as_bytes(), object(s, size_only_etag(s)))
                .unwrap();
        }
    }
    for n in 0..700u64 {
        let k = key(KEYS + n);
        after
            .put(k.as_bytes(), object(1, size_only_etag(1)))
            .unwrap();
        expected.insert(k, Change::OnlyB);
    }
    let by = |c: Change| expected.values().filter(|x| **x == c).count() as u64;

    let client = common::client_of(&sim.endpoint(), 16).await;
    let spill = tempfile::tempdir().unwrap();
    let prefix = ListMode::Prefix {
        depth: 1,
        alphabet: "0123456789".into(),
    };
    let adaptive = ListMode::Adaptive {
        delimiter: Some("/".into()),
    };
    // Small partitions: the comparison splits them, as a billion keys would.
    let (outcome, found) = compare(
        listing(&client, "before", prefix),
        listing(&client, "after", adaptive),
        spill.path(),
        4096,
    )
    .await
    .unwrap();

    let c = outcome.counts;
    assert!(!outcome.stopped);
    assert_eq!(c.keys_a, KEYS);
    assert_eq!(c.keys_b, KEYS - by(Change::OnlyA) + 700);
    assert_eq!(c.only_a, by(Change::OnlyA));
    assert_eq!(
        (c.only_b, c.size_changed, c.etag_changed),
        (700, by(Change::Size), by(Change::Etag))
    );
    assert_eq!((c.doubled_a, c.doubled_b), (0, 0));
    assert_eq!(c.same, KEYS - c.only_a - c.size_changed - c.etag_changed);
    assert!(!c.equal());
    // Exactly those keys, each with what the two sides hold (prefix removed).
    let names: BTreeMap<String, Change> = found
        .values()
        .map(|d| (format!("data/{}", d.key), d.change))
        .collect();
    assert_eq!(names, expected);
    let resized = found.values().find(|d| d.change == Change::Size).unwrap();
    let (a, b) = (resized.a.as_ref().unwrap(), resized.b.as_ref().unwrap());
    assert_eq!(b.size, a.size + 1);
    let rewritten = found.values().find(|d| d.change == Change::Etag).unwrap();
    assert_eq!(
        rewritten.b.as_ref().unwrap().etag.as_deref(),
        Some("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")
    );
    assert!(
        found
            .values()
            .filter(|d| d.change == Change::OnlyA)
            .all(|d| d.b.is_none())
    );
    // Nothing of the comparison is left behind.
    assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_file_compares_like_the_listing_it_was_saved_from() {
    let sim = common::start_sim().await;
    let store = sim.store();
    assert!(store.create_bucket("live"));
    let live = store.bucket("live").unwrap();
    for i in 0..500u64 {
        live.put(key(i).as_bytes(), object(size(i), size_only_etag(size(i))))
            .unwrap();
    }
    // Saved when the bucket held keys 0..500 except 10..20, and key 30 was larger.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("saved.jsonl");
    let mut lines = String::new();
    for i in (0..500u64).filter(|i| !(10..20).contains(i)) {
        let s = if i == 30 { size(i) + 9 } else { size(i) };
        let etag = hex(&size_only_etag(s));
        lines.push_str(&format!(
            "{{\"key\":\"{}\",\"size\":{s},\"etag\":\"\\\"{etag}\\\"\",\"last_modified\":null}}\n",
            key(i)
        ));
    }
    std::fs::write(&file, lines).unwrap();
    let client = common::client(&sim.endpoint()).await;
    let saved = DiffSource::KeyFile {
        path: file.clone(),
        strip: "data/".into(),
    };
    let (outcome, found) = compare(
        saved,
        listing(&client, "live", ListMode::Serial),
        dir.path(),
        64,
    )
    .await
    .unwrap();
    let c = outcome.counts;
    assert_eq!((c.keys_a, c.keys_b), (490, 500));
    assert_eq!(
        (c.only_a, c.only_b, c.size_changed, c.etag_changed),
        (0, 10, 1, 0)
    );
    assert_eq!(outcome.a.entries, 490);
    let only_b: Vec<String> = found
        .values()
        .filter(|d| d.change == Change::OnlyB)
        .map(|d| format!("data/{}", d.key))
        .collect();
    let mut gone: Vec<String> = (10..20).map(key).collect();
    gone.sort();
    assert_eq!(only_b, gone);

    // The bucket against itself is equal, ETags and all.
    let (same, found) = compare(
        listing(&client, "live", ListMode::Serial),
        listing(&client, "live", ListMode::Adaptive { delimiter: None }),
        dir.path(),
        64,
    )
    .await
    .unwrap();
    assert!(same.counts.equal(), "{:?}", same.counts);
    assert_eq!(same.counts.same, 500);
    assert!(found.is_empty());

    // A line that is not a key line is bad input, named by file and line.
    std::fs::write(&file, "{\"key\":\"a\",\"size\":1}\nnot json\n").unwrap();
    let whole = |path: &std::path::Path| DiffSource::KeyFile {
        path: path.to_path_buf(),
        strip: String::new(),
    };
    let e = compare(whole(&file), whole(&file), dir.path(), 64)
        .await
        .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("saved.jsonl: line 2: not a key line"),
        "{text}"
    );
}

/// A listing of `data/` in `bucket`.
fn listing(client: &keystorm_s3::S3Client, bucket: &str, mode: ListMode) -> DiffSource {
    DiffSource::Listing {
        client: client.clone(),
        job: job(bucket, "data/", mode),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
