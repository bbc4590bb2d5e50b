//! The embedded target's RGW admin API over raw HTTP with SigV4, as keystorm's index
//! tracker calls it: bucket stats and bucket-instance metadata before, during and
//! after a reshard, the reshard call that pre-shards an empty bucket, errors in RGW's
//! JSON shape, the injected-fault and received-request counts, and signatures checked like the rest.

mod support;

use std::time::Duration;

use keystorm_sim::{IndexConfig, SimConfig, Storage};
use serde_json::Value;
use support::{Admin, client, put, start, wait_until};

const LONG: Duration = Duration::from_secs(30);

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_and_instances_before_during_and_after_a_reshard() {
    let sim = start(SimConfig {
        storage: Storage::SizeOnly,
        index: IndexConfig {
            reshard_time_per_object: Duration::from_millis(20),
            retry_step: Duration::from_millis(200),
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    let admin = Admin::new(&sim);
    c.create_bucket().bucket("tracked").send().await.unwrap();

    // An empty bucket: no usage category yet, as RGW answers.
    let empty = admin.stats("tracked").await;
    assert_eq!(empty.status, 200, "{empty:?}");
    assert_eq!(empty.json["usage"], serde_json::json!({}));
    assert_eq!(empty.json["num_shards"], 11);
    assert_eq!(empty.json["index_type"], "Normal");
    let first_id = s(&empty.json["id"]).to_string();
    assert_eq!(s(&empty.json["marker"]), first_id);
    assert_eq!(first_id.split('.').count(), 3, "{first_id}");

    for i in 0..50 {
        put(&c, "tracked", &format!("k{i:02}")).await;
    }
    let before = admin.stats("tracked").await.json;
    assert_eq!(before["bucket"], "tracked");
    let main = &before["usage"]["rgw.main"];
    assert_eq!(main["num_objects"], 50);
    assert_eq!(main["size"], 500);
    assert_eq!(main["size_actual"], 50 * 4096);
    assert_eq!(main["size_kb"], 1);
    assert_eq!(main["size_kb_actual"], 200);
    assert_eq!(s(&before["ver"]).split(',').count(), 11);
    let inst = admin.instance("tracked", &first_id).await;
    assert_eq!(inst.status, 200, "{inst:?}");
    assert_eq!(
        s(&inst.json["key"]),
        format!("bucket.instance:tracked:{first_id}")
    );
    let info = &inst.json["data"]["bucket_info"];
    assert_eq!(info["num_shards"], 11);
    assert_eq!(info["reshard_status"], 0);
    assert_eq!(info["new_bucket_instance_id"], "");
    assert_eq!(info["bucket"]["bucket_id"], first_id.as_str());
    assert_eq!(info["bucket"]["marker"], first_id.as_str());

    // During: 50 objects × 20 ms.
    let reshard = {
        let admin = Admin::new(&sim);
        tokio::spawn(async move { admin.reshard("tracked", "29").await })
    };
    wait_until("the reshard to start", LONG, || {
        sim.bucket_index("tracked").unwrap().resharding
    })
    .await;
    let during = admin.stats("tracked").await.json;
    let during_inst = admin.instance("tracked", &first_id).await.json;
    assert!(
        sim.bucket_index("tracked").unwrap().resharding,
        "the reshard (1 s) ended before two admin calls answered"
    );
    assert_eq!(during["num_shards"], 11);
    assert_eq!(during["id"], first_id.as_str());
    assert_eq!(during_inst["data"]["bucket_info"]["reshard_status"], 1);
    assert_eq!(during_inst["data"]["bucket_info"]["num_shards"], 11);

    // After: a new instance, the same marker; the old instance points to the new one.
    let answer = reshard.await.unwrap();
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.json["num_shards"], 29);
    let after = admin.stats("tracked").await.json;
    assert_eq!(after["num_shards"], 29);
    assert_eq!(after["marker"], first_id.as_str());
    let new_id = s(&after["id"]).to_string();
    assert_ne!(new_id, first_id);
    assert_eq!(s(&after["ver"]).split(',').count(), 29);
    assert_eq!(after["usage"]["rgw.main"]["num_objects"], 50);
    let old = admin.instance("tracked", &first_id).await.json;
    assert_eq!(old["data"]["bucket_info"]["reshard_status"], 2);
    assert_eq!(old["data"]["bucket_info"]["num_shards"], 11);
    assert_eq!(
        old["data"]["bucket_info"]["new_bucket_instance_id"],
        new_id.as_str()
    );
    let new = admin.instance("tracked", &new_id).await.json;
    let info = &new["data"]["bucket_info"];
    assert_eq!(info["reshard_status"], 0);
    assert_eq!(info["num_shards"], 29);
    assert_eq!(info["new_bucket_instance_id"], "");
    assert_eq!(info["bucket"]["marker"], first_id.as_str());
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reshard_call_pre_shards_an_empty_bucket_at_once() {
    let sim = start(SimConfig {
        index: IndexConfig {
            // Even a slow reshard is instant with nothing to move.
            reshard_time_per_object: Duration::from_secs(10),
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    let admin = Admin::new(&sim);
    c.create_bucket().bucket("pre").send().await.unwrap();
    let answer = admin.reshard("pre", "401").await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.json["num_shards"], 401);
    assert_eq!(answer.json["bucket"], "pre");
    assert_eq!(sim.bucket_index("pre").unwrap().shards, 401);
    let record = sim.reshards().pop().unwrap();
    assert_eq!((record.from, record.to, record.objects), (11, 401, 0));
    assert!(!record.dynamic);
    assert_eq!(admin.stats("pre").await.json["num_shards"], 401);
    for bad in ["0", "65522", "-1", "many", ""] {
        let a = admin.reshard("pre", bad).await;
        assert_eq!(a.status, 400, "num-shards={bad:?}: {a:?}");
    }
    assert_eq!(admin.reshard("pre", "65521").await.status, 200);
    // Writes are not held after it.
    let began = std::time::Instant::now();
    put(&c, "pre", "k").await;
    assert!(began.elapsed() < Duration::from_secs(5));
    assert_eq!(admin.reshard("nope", "7").await.status, 404);
    let missing = admin
        .call("POST", "/admin/bucket?reshard&num-shards=7", true)
        .await;
    assert_eq!(missing.status, 400);
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_have_rgw_shapes_and_signatures_are_checked() {
    let sim = start(SimConfig::default()).await;
    let c = client(&sim);
    let admin = Admin::new(&sim);
    c.create_bucket().bucket("real").send().await.unwrap();

    let missing = admin.stats("nope").await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json["Code"], "NoSuchBucket");
    let missing = admin.instance("real", "no-such-id").await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json["Code"], "NoSuchKey");

    // The `:` of the key arrives percent-encoded and the signature still holds.
    let id = sim.bucket_index("real").unwrap().id;
    assert_eq!(admin.instance("real", &id).await.status, 200);
    // Without `stats` or `format` the call answers too.
    let plain = admin.get("/admin/bucket?bucket=real").await;
    assert_eq!(plain.json["num_shards"], 11);
    let names = admin.get("/admin/bucket").await;
    assert_eq!(names.json, serde_json::json!(["real"]));

    let unsigned = admin
        .call("GET", "/admin/bucket?bucket=real&stats=true", false)
        .await;
    assert_eq!(unsigned.status, 403);
    assert_eq!(unsigned.json["Code"], "AccessDenied");
    let unsigned = admin
        .call(
            "POST",
            "/admin/bucket?reshard&bucket=real&num-shards=3",
            false,
        )
        .await;
    assert_eq!(unsigned.status, 403);
    assert_eq!(sim.bucket_index("real").unwrap().shards, 11);
    assert_eq!(
        admin
            .call("DELETE", "/admin/bucket?bucket=real", true)
            .await
            .status,
        405
    );
    let queue = admin.get("/admin/reshard").await;
    assert_eq!(
        (queue.status, &queue.json["Code"]),
        (405, &serde_json::json!("MethodNotAllowed"))
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fault_and_request_counts_are_served_as_json() {
    let sim = start(SimConfig {
        faults: keystorm_sim::FaultConfig {
            slow_down: 1.0,
            seed: 3,
            ops: vec![keystorm_sim::ObjectOp::Head],
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = support::client_without_retries(&sim, None);
    let admin = Admin::new(&sim);
    // Bucket calls get no faults; HEADs all do here, PUTs none.
    c.create_bucket().bucket("faulty").send().await.unwrap();
    put(&c, "faulty", "k").await;
    for _ in 0..3 {
        let e = c.head_object().bucket("faulty").key("k").send().await;
        assert!(e.is_err());
    }
    let counts = admin.get("/admin/keystorm/faults").await;
    assert_eq!(counts.status, 200);
    let none = serde_json::json!({ "slow_down": 0, "internal_error": 0, "reset": 0, "stall": 0, "key_error": 0, "corrupt": 0, "lost_on_reshard": 0, "listed_twice": 0 });
    assert_eq!(
        counts.json,
        serde_json::json!({
            "slow_down": 3, "internal_error": 0, "reset": 0, "stall": 0, "key_error": 0, "corrupt": 0,
            "lost_on_reshard": 0, "listed_twice": 0,
            "ops": {
                "put": none,
                "get": none,
                "head": { "slow_down": 3, "internal_error": 0, "reset": 0, "stall": 0, "key_error": 0, "corrupt": 0, "lost_on_reshard": 0, "listed_twice": 0 },
                "list": none,
                "delete": none,
            },
            // The target's one port has no faults of its own.
            "ports": { sim.addr().port().to_string(): none },
        })
    );
    assert_eq!(sim.fault_counts().slow_down, 3);
    assert_eq!(
        sim.fault_counts_of(keystorm_sim::ObjectOp::Head).slow_down,
        3
    );
    assert_eq!(
        sim.fault_counts_of(keystorm_sim::ObjectOp::Put).slow_down,
        0
    );

    let requests = admin.get("/admin/keystorm/requests").await;
    assert_eq!(requests.status, 200);
    let r = requests.json.as_object().unwrap();
    assert_eq!(
        r.len(),
        keystorm_sim::Op::COUNT,
        "every operation is listed"
    );
    assert_eq!(r["CreateBucket"], 1);
    assert_eq!(r["PutObject"], 1);
    assert_eq!(
        r["HeadObject"], 3,
        "a request that drew a fault is received too"
    );
    assert_eq!(r["GetObject"], 0);
    let sum: u64 = r.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(sum, 5, "admin calls are not counted: {r:?}");
    assert_eq!(sim.requests(keystorm_sim::Op::HeadObject), 3);
    sim.shutdown().await;
}
