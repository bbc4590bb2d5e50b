//! The embedded target's admin-API answers have the shape of real RGW's (Ceph Pacific,
//! recorded in tests/fixtures/rgw): the same keys, nesting and JSON types, before,
//! during and after a reshard, and for errors — so a client written against RGW reads
//! the target unchanged.

mod support;

use std::time::Duration;

use keystorm_sim::{IndexConfig, SimConfig, Storage};
use serde_json::Value;
use support::{Admin, client, start, wait_until};

fn fixture(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rgw")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Where `ours` differs from `theirs` in keys or JSON types (array elements are
/// compared with the first element of theirs; an empty array matches any array).
fn differences(path: &str, ours: &Value, theirs: &Value, out: &mut Vec<String>) {
    if kind(ours) != kind(theirs) {
        out.push(format!(
            "{path}: {} here, {} in RGW",
            kind(ours),
            kind(theirs)
        ));
        return;
    }
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for k in b.keys().filter(|k| !a.contains_key(*k)) {
                out.push(format!("{path}.{k}: missing here"));
            }
            for k in a.keys().filter(|k| !b.contains_key(*k)) {
                out.push(format!("{path}.{k}: not in RGW's answer"));
            }
            for (k, v) in a {
                if let Some(w) = b.get(k) {
                    differences(&format!("{path}.{k}"), v, w, out);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if let Some(first) = b.first() {
                if a.is_empty() {
                    out.push(format!("{path}: empty here, not in RGW"));
                }
                for (i, v) in a.iter().enumerate() {
                    differences(&format!("{path}[{i}]"), v, first, out);
                }
            }
        }
        _ => {}
    }
}

#[track_caller]
fn assert_shape(ours: &Value, fixture_name: &str) {
    let mut out = Vec::new();
    differences("$", ours, &fixture(fixture_name), &mut out);
    assert!(
        out.is_empty(),
        "differs from {fixture_name}:\n{}\n{ours:#}",
        out.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_answers_have_rgw_shapes_before_during_and_after_a_reshard() {
    let sim = start(SimConfig {
        storage: Storage::SizeOnly,
        index: IndexConfig {
            reshard_time_per_object: Duration::from_millis(200),
            retry_step: Duration::from_millis(100),
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    let admin = Admin::new(&sim);
    c.create_bucket()
        .bucket("keystorm-fixture")
        .send()
        .await
        .unwrap();
    for i in 0..5 {
        support::put(&c, "keystorm-fixture", &format!("obj-{i}")).await;
    }

    let stats = admin.stats("keystorm-fixture").await;
    assert_eq!(stats.status, 200);
    assert_shape(&stats.json, "bucket-stats.json");
    let first = stats.json["id"].as_str().unwrap().to_string();
    let instance = admin.instance("keystorm-fixture", &first).await;
    assert_eq!(instance.status, 200);
    assert_shape(&instance.json, "bucket-instance.json");
    assert_eq!(instance.json["ver"]["ver"], 1);

    // During: 5 objects × 200 ms.
    let reshard = {
        let admin = Admin::new(&sim);
        tokio::spawn(async move { admin.reshard("keystorm-fixture", "7").await })
    };
    wait_until("the reshard to start", Duration::from_secs(30), || {
        sim.bucket_index("keystorm-fixture").unwrap().resharding
    })
    .await;
    let during = admin.instance("keystorm-fixture", &first).await.json;
    assert!(sim.bucket_index("keystorm-fixture").unwrap().resharding);
    assert_shape(&during, "bucket-instance-reshard-in-progress.json");
    let info = &during["data"]["bucket_info"];
    assert_eq!(
        (&info["reshard_status"], &info["num_shards"]),
        (&1.into(), &11.into())
    );
    let new_id = info["new_bucket_instance_id"].as_str().unwrap().to_string();
    assert!(
        !new_id.is_empty() && new_id != first,
        "named from the start"
    );
    assert_eq!(during["ver"]["ver"], 2);

    assert_eq!(reshard.await.unwrap().status, 200);
    let done = admin.instance("keystorm-fixture", &first).await.json;
    assert_shape(&done, "bucket-instance-reshard-done.json");
    let info = &done["data"]["bucket_info"];
    assert_eq!(
        (&info["reshard_status"], &info["num_shards"]),
        (&2.into(), &11.into())
    );
    assert_eq!(info["new_bucket_instance_id"], new_id.as_str());
    assert_eq!(done["ver"]["ver"], 3);

    let stats = admin.stats("keystorm-fixture").await.json;
    assert_shape(&stats, "bucket-stats-resharded.json");
    assert_eq!(stats["id"], new_id.as_str());
    assert_eq!(stats["marker"], first.as_str());
    assert_eq!(stats["num_shards"], 7);
    let resharded = admin.instance("keystorm-fixture", &new_id).await.json;
    assert_shape(&resharded, "bucket-instance-resharded.json");
    assert_eq!(
        resharded["key"],
        format!("bucket.instance:keystorm-fixture:{new_id}").as_str()
    );
    assert_eq!(
        resharded["data"]["bucket_info"]["bucket"]["marker"],
        first.as_str()
    );

    // Errors: the JSON document RGW sends for every admin error.
    let missing = admin.instance("keystorm-fixture", "no-such-id").await;
    let theirs = fixture("old-instance-after-reshard.json");
    assert_eq!(missing.status, theirs["status"]);
    assert_eq!(missing.json["Code"], theirs["body"]["Code"]);
    assert_shape(
        &serde_json::json!({ "status": missing.status, "body": missing.json }),
        "old-instance-after-reshard.json",
    );
    let queue = admin.get("/admin/reshard").await;
    let theirs = fixture("reshard-queue-get.json");
    assert_eq!(queue.status, theirs["status"]);
    assert_shape(
        &serde_json::json!({ "status": queue.status, "body": queue.json }),
        "reshard-queue-get.json",
    );
    sim.shutdown().await;
}

#[test]
fn the_comparison_catches_differences() {
    let theirs = serde_json::json!({ "a": 1, "b": { "c": "x" }, "d": [{ "e": true }] });
    let mut out = Vec::new();
    differences(
        "$",
        &serde_json::json!({ "a": "1", "b": {}, "d": [{ "e": true, "f": 0 }], "g": null }),
        &theirs,
        &mut out,
    );
    out.sort();
    assert_eq!(
        out,
        [
            "$.a: string here, integer in RGW",
            "$.b.c: missing here",
            "$.d[0].f: not in RGW's answer",
            "$.g: not in RGW's answer",
        ]
    );
}
