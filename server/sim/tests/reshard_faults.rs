//! The bucket index's failures around resharding, as aws-sdk-s3 on loopback sees them:
//! entries a reshard loses (the objects still read back exactly, but no listing shows
//! them until written again) and keys a continued listing returns twice (the rest of
//! the listing complete and in order). The target counts both exactly, so a listing
//! audit can be proven against a store that really fails. Fills wait for each reshard
//! before going on, so with a fixed seed every run loses the same keys.

mod support;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use aws_sdk_s3::Client;
use aws_sdk_s3::primitives::ByteStream;
use keystorm_sim::{FaultConfig, IndexConfig, ObjectOp, SimConfig, SimHandle, Storage};
use support::{Admin, client, start, wait_until};

const LONG: Duration = Duration::from_secs(120);
const BUCKET: &str = "audit";
/// Objects per index shard before a bucket needs resharding (11 shards to start).
const MAX_PER_SHARD: usize = 20;

fn key(i: usize) -> String {
    format!("p{}/k{i:05}", i % 4)
}

/// The object number of a key `key` made.
fn number(key: &str) -> usize {
    key.rsplit('k').next().and_then(|n| n.parse().ok()).unwrap()
}

fn body(i: usize) -> Vec<u8> {
    format!("object {i};").repeat(i % 5 + 1).into_bytes()
}

/// Every key of `0..n`, in listing order.
fn all_keys(n: usize) -> Vec<String> {
    (0..n)
        .map(key)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// A target that reshards dynamically past 20 objects a shard and loses
/// `lose_on_reshard` of the index entries each reshard moves.
async fn losing_target(lose_on_reshard: f64, seed: u64) -> SimHandle {
    start(SimConfig {
        storage: Storage::Memory,
        index: IndexConfig {
            dynamic: true,
            max_objs_per_shard: MAX_PER_SHARD as u64,
            check_interval: Duration::from_millis(10),
            reshard_time_per_object: Duration::from_micros(1),
            retry_step: Duration::from_millis(1),
            ..Default::default()
        },
        faults: FaultConfig {
            lose_on_reshard,
            seed,
            ..Default::default()
        },
        ..Default::default()
    })
    .await
}

async fn put_one(c: &Client, i: usize) {
    c.put_object()
        .bucket(BUCKET)
        .key(key(i))
        .body(ByteStream::from(body(i)))
        .send()
        .await
        .unwrap();
}

/// PUTs objects `from..to`, eight at a time.
async fn put_range(c: &Client, from: usize, to: usize) {
    let next = Arc::new(AtomicUsize::new(from));
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (c, next) = (c.clone(), next.clone());
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= to {
                        return;
                    }
                    put_one(&c, i).await;
                }
            })
        })
        .collect();
    for w in workers {
        w.await.unwrap();
    }
}

/// Creates the bucket and PUTs objects `0..n`; whenever the bucket has just outgrown
/// its shards, waits for the reshard before going on, so each reshard moves the same
/// keys on every run. Returns once a pass of the reshard thread that began after the
/// last PUT has ended: no reshard is due any more.
async fn fill(sim: &SimHandle, c: &Client, n: usize) {
    c.create_bucket().bucket(BUCKET).send().await.unwrap();
    let mut next = 0;
    while next < n {
        let shards = sim.bucket_index(BUCKET).unwrap().shards as usize;
        // One object past shards × max: the reshard thread's cue.
        let due = shards * MAX_PER_SHARD + 1;
        let to = due.min(n);
        // Read before the PUTs: the reshard may be over by the time they answered.
        let done = sim.reshards().len();
        put_range(c, next, to).await;
        next = to;
        if to == due {
            wait_until("the reshard", LONG, || sim.reshards().len() > done).await;
        }
    }
    let checks = sim.reshard_checks();
    wait_until("a reshard pass after the fill", LONG, || {
        sim.reshard_checks() >= checks + 2
    })
    .await;
    assert!(!sim.bucket_index(BUCKET).unwrap().resharding);
}

/// What to list.
#[derive(Clone, Copy)]
struct Query<'a> {
    prefix: &'a str,
    delimiter: Option<&'a str>,
    start_after: Option<&'a str>,
    max_keys: i32,
}

const EVERYTHING: Query<'static> = Query {
    prefix: "",
    delimiter: None,
    start_after: None,
    max_keys: 1000,
};

/// One page of a listing: its keys and common prefixes.
#[derive(Debug, Default)]
struct Page {
    keys: Vec<String>,
    prefixes: Vec<String>,
}

fn page_of(
    contents: &[aws_sdk_s3::types::Object],
    prefixes: &[aws_sdk_s3::types::CommonPrefix],
) -> Page {
    Page {
        keys: contents
            .iter()
            .map(|o| o.key().unwrap().to_string())
            .collect(),
        prefixes: prefixes
            .iter()
            .map(|p| p.prefix().unwrap().to_string())
            .collect(),
    }
}

/// Every page of a ListObjectsV2 listing, following its continuation tokens.
async fn pages_v2(c: &Client, q: Query<'_>) -> Vec<Page> {
    let mut pages = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let r = c
            .list_objects_v2()
            .bucket(BUCKET)
            .prefix(q.prefix)
            .max_keys(q.max_keys)
            .set_delimiter(q.delimiter.map(str::to_string))
            .set_start_after(q.start_after.map(str::to_string))
            .set_continuation_token(token.take())
            .send()
            .await
            .unwrap();
        pages.push(page_of(r.contents(), r.common_prefixes()));
        if !r.is_truncated().unwrap_or(false) {
            return pages;
        }
        token = Some(r.next_continuation_token().unwrap().to_string());
    }
}

/// Every page of a ListObjects (v1) listing, each continued from its NextMarker or,
/// without one, its last key (as S3 clients do).
async fn pages_v1(c: &Client, q: Query<'_>) -> Vec<Page> {
    let mut pages = Vec::new();
    let mut marker = q.start_after.map(str::to_string);
    loop {
        let r = c
            .list_objects()
            .bucket(BUCKET)
            .prefix(q.prefix)
            .max_keys(q.max_keys)
            .set_delimiter(q.delimiter.map(str::to_string))
            .set_marker(marker.take())
            .send()
            .await
            .unwrap();
        let page = page_of(r.contents(), r.common_prefixes());
        if !r.is_truncated().unwrap_or(false) {
            pages.push(page);
            return pages;
        }
        marker = r
            .next_marker()
            .map(str::to_string)
            .or_else(|| page.keys.last().cloned());
        pages.push(page);
    }
}

fn keys(pages: &[Page]) -> Vec<String> {
    pages.iter().flat_map(|p| p.keys.iter().cloned()).collect()
}

async fn get(c: &Client, key: &str) -> Vec<u8> {
    let r = c.get_object().bucket(BUCKET).key(key).send().await.unwrap();
    r.body.collect().await.unwrap().into_bytes().to_vec()
}

/// The keys of `all` a listing of everything misses, checking on the way that it
/// lists each key at most once, in order, and none that was not PUT.
fn missing_from(listed: &[String], all: &[String]) -> Vec<String> {
    assert!(
        listed.windows(2).all(|w| w[0] < w[1]),
        "in order, each key once"
    );
    let listed: BTreeSet<&String> = listed.iter().collect();
    let all_set: BTreeSet<&String> = all.iter().collect();
    assert!(listed.is_subset(&all_set), "only keys that were PUT");
    all.iter()
        .filter(|k| !listed.contains(k))
        .cloned()
        .collect()
}

const KEYS: usize = 3000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entries_lost_by_reshards_are_in_no_listing_yet_read_back_exactly() {
    let sim = losing_target(0.2, 7).await;
    let c = client(&sim);
    fill(&sim, &c, KEYS).await;
    // 11 shards × 20 crossed at 221 objects, then 23 × 20 at 461, 47 × 20 at 941 and
    // 97 × 20 at 1941: four reshards.
    let shards: Vec<(u32, u32, u64)> = sim
        .reshards()
        .iter()
        .map(|r| (r.from, r.to, r.objects))
        .collect();
    assert_eq!(
        shards,
        [(11, 23, 221), (23, 47, 461), (47, 97, 941), (97, 197, 1941)]
    );

    let lost = sim.fault_counts().lost_on_reshard;
    assert!(lost > 100, "{lost} entries lost");
    let all = all_keys(KEYS);
    let listed = keys(&pages_v2(&c, EVERYTHING).await);
    let missing = missing_from(&listed, &all);
    assert_eq!(
        missing.len() as u64,
        lost,
        "the listing misses what was lost"
    );
    // Every listing agrees: v1, short pages, folders, a prefix from a start key.
    assert_eq!(keys(&pages_v1(&c, EVERYTHING).await), listed);
    let short = Query {
        max_keys: 7,
        ..EVERYTHING
    };
    assert_eq!(keys(&pages_v2(&c, short).await), listed);
    assert_eq!(keys(&pages_v1(&c, short).await), listed);
    let folders = Query {
        delimiter: Some("/"),
        ..EVERYTHING
    };
    let root = pages_v2(&c, folders).await;
    assert_eq!(root.len(), 1);
    assert!(root[0].keys.is_empty());
    assert_eq!(root[0].prefixes, ["p0/", "p1/", "p2/", "p3/"]);
    let range = Query {
        prefix: "p2/",
        delimiter: Some("/"),
        start_after: Some("p2/k01000"),
        max_keys: 50,
    };
    let want: Vec<String> = listed
        .iter()
        .filter(|k| k.starts_with("p2/") && k.as_str() > "p2/k01000")
        .cloned()
        .collect();
    assert!(
        want.len()
            < all
                .iter()
                .filter(|k| k.as_str() > "p2/k01000" && k.starts_with("p2/"))
                .count()
    );
    assert_eq!(keys(&pages_v2(&c, range).await), want);
    assert_eq!(keys(&pages_v1(&c, range).await), want);

    // The data is intact: each lost key reads back exactly, HEAD finds it.
    for k in &missing {
        assert_eq!(get(&c, k).await, body(number(k)), "{k}");
    }
    let head = c
        .head_object()
        .bucket(BUCKET)
        .key(&missing[0])
        .send()
        .await
        .unwrap();
    assert_eq!(
        head.content_length(),
        Some(body(number(&missing[0])).len() as i64)
    );

    // Counted in all, no operation's; the target keeps a key per lost entry, no more.
    for op in ObjectOp::ALL {
        assert_eq!(sim.fault_counts_of(op).lost_on_reshard, 0);
    }
    let doc = Admin::new(&sim).get("/admin/keystorm/faults").await.json;
    assert_eq!(doc["lost_on_reshard"], lost);
    assert_eq!(doc["ops"]["put"]["lost_on_reshard"], 0);
    let bucket = sim.store().bucket(BUCKET).unwrap();
    assert_eq!(bucket.read().unlisted_len() as u64, lost);
    assert_eq!(sim.object_count(BUCKET), Some(KEYS as u64));

    // Written again, a lost key is listed again; deleted, it is gone for good.
    let (rewritten, deleted) = (&missing[0], &missing[1]);
    put_one(&c, number(rewritten)).await;
    c.delete_object()
        .bucket(BUCKET)
        .key(deleted)
        .send()
        .await
        .unwrap();
    let now = keys(&pages_v2(&c, EVERYTHING).await);
    let remaining: Vec<String> = all.iter().filter(|k| *k != deleted).cloned().collect();
    assert_eq!(missing_from(&now, &remaining), missing[2..]);
    assert!(
        c.get_object()
            .bucket(BUCKET)
            .key(deleted)
            .send()
            .await
            .is_err()
    );
    assert_eq!(bucket.read().unlisted_len() as u64, lost - 2);
    assert_eq!(
        sim.fault_counts().lost_on_reshard,
        lost,
        "nothing lost since"
    );
    sim.shutdown().await;
}

/// The keys a target with `seed` lost filling 600 objects (two reshards).
async fn lost_keys(seed: u64) -> Vec<String> {
    let sim = losing_target(0.2, seed).await;
    let c = client(&sim);
    fill(&sim, &c, 600).await;
    assert_eq!(sim.reshards().len(), 2);
    let missing = missing_from(&keys(&pages_v2(&c, EVERYTHING).await), &all_keys(600));
    assert_eq!(missing.len() as u64, sim.fault_counts().lost_on_reshard);
    sim.shutdown().await;
    missing
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_loses_the_same_entries_every_time() {
    let (a, b, other) = tokio::join!(lost_keys(5), lost_keys(5), lost_keys(6));
    assert!(!a.is_empty());
    assert_eq!(a, b);
    assert_ne!(a, other);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_fault_a_reshard_loses_nothing() {
    let sim = losing_target(0.0, 5).await;
    let c = client(&sim);
    fill(&sim, &c, 300).await;
    assert_eq!(sim.reshards().len(), 1);
    let listed = keys(&pages_v2(&c, EVERYTHING).await);
    assert_eq!(listed, all_keys(300));
    assert_eq!(sim.fault_counts().lost_on_reshard, 0);
    sim.shutdown().await;
}

/// Checks that each page lists keys in order and begins after the page before ended,
/// or with the very key it ended on; returns how many pages began so.
fn repeats_across_pages(pages: &[Page]) -> usize {
    let mut repeats = 0;
    for (i, page) in pages.iter().enumerate() {
        assert!(page.keys.windows(2).all(|w| w[0] < w[1]), "page {i}");
        let (Some(first), Some(before)) = (
            page.keys.first(),
            i.checked_sub(1).and_then(|b| pages[b].keys.last()),
        ) else {
            continue;
        };
        assert!(
            first >= before,
            "page {i} goes back: {first} after {before}"
        );
        repeats += usize::from(first == before);
    }
    repeats
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_listed_twice_is_the_only_flaw_of_a_listing() {
    const N: usize = 5000;
    let sim = start(SimConfig {
        storage: Storage::SizeOnly,
        faults: FaultConfig {
            list_twice: 0.5,
            seed: 11,
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    c.create_bucket().bucket(BUCKET).send().await.unwrap();
    put_range(&c, 0, N).await;
    let want = all_keys(N);
    let pages = Query {
        max_keys: 100,
        ..EVERYTHING
    };
    let mut total = 0;
    for v1 in [false, true] {
        let before = sim.fault_counts().listed_twice;
        let listing = if v1 {
            pages_v1(&c, pages).await
        } else {
            pages_v2(&c, pages).await
        };
        let repeats = repeats_across_pages(&listing);
        let mut listed = keys(&listing);
        let entries = listed.len();
        listed.dedup();
        assert_eq!(listed, want, "v1: {v1}");
        let twice = entries - listed.len();
        assert_eq!(twice, repeats, "each repeat opens a page");
        assert_eq!(
            twice as u64,
            sim.fault_counts().listed_twice - before,
            "v1: {v1}"
        );
        // About half of some 50 continued pages.
        assert!((10..=45).contains(&twice), "{twice} repeats, v1: {v1}");
        total += twice as u64;
    }
    assert_eq!(sim.fault_counts_of(ObjectOp::List).listed_twice, total);
    assert_eq!(sim.fault_counts().listed_twice, total);

    // Pages that end on a common prefix are never repeated; keys under a folder are.
    let before = sim.fault_counts().listed_twice;
    let root = pages_v2(
        &c,
        Query {
            delimiter: Some("/"),
            max_keys: 2,
            ..EVERYTHING
        },
    )
    .await;
    let prefixes: Vec<&String> = root.iter().flat_map(|p| &p.prefixes).collect();
    assert_eq!(prefixes, ["p0/", "p1/", "p2/", "p3/"]);
    assert_eq!(sim.fault_counts().listed_twice, before);
    let folder = pages_v2(
        &c,
        Query {
            prefix: "p1/",
            delimiter: Some("/"),
            max_keys: 100,
            ..EVERYTHING
        },
    )
    .await;
    let repeats = repeats_across_pages(&folder);
    let mut listed = keys(&folder);
    listed.dedup();
    let under: Vec<String> = want
        .iter()
        .filter(|k| k.starts_with("p1/"))
        .cloned()
        .collect();
    assert_eq!(listed, under);
    assert!(repeats > 0);
    assert_eq!(sim.fault_counts().listed_twice, before + repeats as u64);
    sim.shutdown().await;
}
