//! The embedded target's imitation of RGW's bucket index, through aws-sdk-s3 on
//! loopback: dynamic resharding to RGW's prime past the threshold, writes blocked by a
//! reshard until the next retry step after it (and no error), reads and listings not
//! blocked, and an ordered listing page costing more with more shards.

mod support;

use std::time::{Duration, Instant, SystemTime};

use keystorm_sim::{IndexConfig, SimConfig, Storage};
use support::{Admin, client, put, start, wait_until};

const LONG: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bucket_reshards_dynamically_to_the_next_prime_past_the_threshold() {
    let sim = start(SimConfig {
        storage: Storage::SizeOnly,
        index: IndexConfig {
            dynamic: true,
            max_objs_per_shard: 10,
            check_interval: Duration::from_millis(20),
            reshard_time_per_object: Duration::from_micros(100),
            retry_step: Duration::from_millis(100),
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    c.create_bucket().bucket("dyn").send().await.unwrap();
    assert_eq!(sim.bucket_index("dyn").unwrap().shards, 11);
    // 11 shards × 10 objects: 110 objects are still fine.
    for i in 0..110 {
        put(&c, "dyn", &format!("k{i:04}")).await;
    }
    // Two full passes of the reshard thread: nothing happens at the threshold itself.
    let checks = sim.reshard_checks();
    wait_until("two reshard checks", LONG, || {
        sim.reshard_checks() >= checks + 2
    })
    .await;
    assert!(sim.reshards().is_empty(), "{:?}", sim.reshards());
    assert_eq!(sim.bucket_index("dyn").unwrap().shards, 11);

    // One more: 111 > 110, so the next prime ≥ 2 × 111 / 10 = 22, which is 23.
    put(&c, "dyn", "k0110").await;
    wait_until("the first reshard", LONG, || sim.reshards().len() == 1).await;
    let first = &sim.reshards()[0];
    assert_eq!(
        (first.bucket.as_str(), first.from, first.to, first.objects),
        ("dyn", 11, 23, 111)
    );
    assert!(first.dynamic && first.ended >= first.started);
    assert_eq!(sim.bucket_index("dyn").unwrap().shards, 23);

    // 23 × 10 = 230; at 231 objects: next prime ≥ 46 is 47.
    for i in 111..231 {
        put(&c, "dyn", &format!("k{i:04}")).await;
    }
    wait_until("the second reshard", LONG, || sim.reshards().len() == 2).await;
    let second = &sim.reshards()[1];
    assert_eq!((second.from, second.to, second.objects), (23, 47, 231));
    let index = sim.bucket_index("dyn").unwrap();
    assert_eq!(index.shards, 47);
    assert!(!index.resharding);
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_dynamic_resharding_a_bucket_keeps_its_shards() {
    let sim = start(SimConfig {
        storage: Storage::SizeOnly,
        index: IndexConfig {
            default_shards: 3,
            max_objs_per_shard: 1,
            check_interval: Duration::from_millis(10),
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    c.create_bucket().bucket("static").send().await.unwrap();
    for i in 0..20 {
        put(&c, "static", &format!("k{i}")).await;
    }
    // No reshard thread runs at all.
    assert_eq!(sim.reshard_checks(), 0);
    assert!(sim.reshards().is_empty());
    assert_eq!(sim.bucket_index("static").unwrap().shards, 3);
    sim.shutdown().await;
}

/// A reshard of 100 objects at 15 ms each: 1.5 s with writes blocked, 2 s retry steps.
fn slow_reshards() -> SimConfig {
    SimConfig {
        storage: Storage::SizeOnly,
        index: IndexConfig {
            reshard_time_per_object: Duration::from_millis(15),
            retry_step: Duration::from_secs(2),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_during_a_reshard_completes_at_the_retry_step_after_it_and_reads_are_not_blocked() {
    let sim = start(slow_reshards()).await;
    let c = client(&sim);
    c.create_bucket().bucket("busy").send().await.unwrap();
    for i in 0..100 {
        put(&c, "busy", &format!("k{i:03}")).await;
    }
    let admin = Admin::new(&sim);
    let reshard = tokio::spawn(async move { admin.reshard("busy", "37").await });
    wait_until("the reshard to start", LONG, || {
        sim.bucket_index("busy").unwrap().resharding
    })
    .await;

    // Reads and listings go through while the reshard runs.
    let got = c
        .get_object()
        .bucket("busy")
        .key("k000")
        .send()
        .await
        .unwrap();
    assert_eq!(got.content_length(), Some(10));
    c.head_object()
        .bucket("busy")
        .key("k001")
        .send()
        .await
        .unwrap();
    let listed = c
        .list_objects_v2()
        .bucket("busy")
        .max_keys(1000)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.key_count(), Some(100));
    assert!(
        sim.bucket_index("busy").unwrap().resharding,
        "the reads finished before the reshard did"
    );

    // Writes wait: a PUT and a DELETE issued now.
    let write_began = Instant::now();
    let write_began_at = SystemTime::now();
    let (put_result, delete_result) = tokio::join!(
        c.put_object()
            .bucket("busy")
            .key("during")
            .body(aws_sdk_s3::primitives::ByteStream::from_static(b"x"))
            .send(),
        c.delete_object().bucket("busy").key("k002").send(),
    );
    let write_took = write_began.elapsed();
    let write_ended_at = SystemTime::now();
    put_result.expect("a blocked write completes without an error");
    delete_result.expect("a blocked delete completes without an error");

    let answer = reshard.await.unwrap();
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.json["num_shards"], 37);
    let record = sim.reshards().pop().unwrap();
    assert_eq!((record.from, record.to, record.objects), (11, 37, 100));
    assert!(!record.dynamic);
    // The reshard took its time (100 × 15 ms) and the writes ended after it, at a
    // multiple of the 2 s retry step counted from when they started waiting.
    assert!(record.ended.duration_since(record.started).unwrap() >= Duration::from_millis(1500));
    assert!(
        write_began_at < record.ended,
        "the writes began during the reshard"
    );
    assert!(write_ended_at >= record.ended);
    assert!(
        write_took >= Duration::from_secs(2),
        "a blocked write waits at least one retry step: {write_took:?}"
    );
    assert_eq!(sim.object_count("busy"), Some(100));
    let objects = c
        .list_objects_v2()
        .bucket("busy")
        .send()
        .await
        .unwrap()
        .contents()
        .iter()
        .filter_map(|o| o.key().map(str::to_string))
        .collect::<Vec<_>>();
    assert!(objects.contains(&"during".to_string()) && !objects.contains(&"k002".to_string()));

    // Without a reshard running, writes do not wait for a step.
    let began = Instant::now();
    put(&c, "busy", "after").await;
    assert!(began.elapsed() < Duration::from_secs(2));
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_objects_waits_for_a_reshard_too() {
    let sim = start(slow_reshards()).await;
    let c = client(&sim);
    c.create_bucket().bucket("batch").send().await.unwrap();
    for i in 0..100 {
        put(&c, "batch", &format!("k{i:03}")).await;
    }
    let admin = Admin::new(&sim);
    let reshard = tokio::spawn(async move { admin.reshard("batch", "13").await });
    wait_until("the reshard to start", LONG, || {
        sim.bucket_index("batch").unwrap().resharding
    })
    .await;
    let began = Instant::now();
    let delete = aws_sdk_s3::types::Delete::builder()
        .objects(
            aws_sdk_s3::types::ObjectIdentifier::builder()
                .key("k000")
                .build()
                .unwrap(),
        )
        .build()
        .unwrap();
    c.delete_objects()
        .bucket("batch")
        .delete(delete)
        .send()
        .await
        .unwrap();
    assert!(began.elapsed() >= Duration::from_secs(2));
    assert_eq!(reshard.await.unwrap().status, 200);
    assert_eq!(sim.object_count("batch"), Some(99));
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ordered_listing_page_costs_time_per_shard() {
    let per_shard = Duration::from_millis(20);
    let sim = start(SimConfig {
        index: IndexConfig {
            default_shards: 1,
            list_time_per_shard: per_shard,
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    let admin = Admin::new(&sim);
    c.create_bucket().bucket("narrow").send().await.unwrap();
    c.create_bucket().bucket("wide").send().await.unwrap();
    assert_eq!(admin.reshard("wide", "61").await.status, 200);
    put(&c, "narrow", "a").await;
    put(&c, "wide", "a").await;

    let list = |bucket: &'static str| {
        let c = c.clone();
        async move {
            let began = Instant::now();
            c.list_objects_v2().bucket(bucket).send().await.unwrap();
            let v2 = began.elapsed();
            let began = Instant::now();
            c.list_objects().bucket(bucket).send().await.unwrap();
            (v2, began.elapsed())
        }
    };
    let (narrow_v2, narrow_v1) = list("narrow").await;
    let (wide_v2, wide_v1) = list("wide").await;
    assert!(narrow_v2 >= per_shard && narrow_v1 >= per_shard);
    // 61 shards × 20 ms.
    assert!(wide_v2 >= per_shard * 61, "{wide_v2:?}");
    assert!(wide_v1 >= per_shard * 61, "{wide_v1:?}");
    // Object reads do not merge shards.
    let began = Instant::now();
    c.head_object()
        .bucket("wide")
        .key("a")
        .send()
        .await
        .unwrap();
    assert!(began.elapsed() < per_shard * 61);
    sim.shutdown().await;
}
