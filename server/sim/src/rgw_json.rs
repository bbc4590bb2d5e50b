//! The JSON documents RGW's admin API answers with (Ceph Pacific's shapes): bucket
//! stats, bucket-instance metadata and the error document. Same keys and value types
//! as real RGW, so a client written against RGW reads the embedded target unchanged.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::index::Instance;
use crate::store::{Bucket, Usage};

const ZONEGROUP: &str = "8c6f4a2e-1b3d-4e5f-9a7b-0c1d2e3f4a5b";
const OWNER: &str = "keystorm";
const PLACEMENT: &str = "default-placement";
/// The bucket's ACL attribute, base64 as RGW shows it (owner `keystorm`).
const ACL: &str = "AgKnAAAAAwIiAAAACAAAAGtleXN0b3JtEgAAAGtleXN0b3JtIHRlc3QgdXNlcgQDeQAAAAEBAAAACAAAAGtleXN0b3JtDwAAAAEAAAAIAAAAa2V5c3Rvcm0FA0YAAAACAgQAAAAAAAAACAAAAGtleXN0b3JtAAAAAAAAAAACAgQAAAAPAAAAEgAAAGtleXN0b3JtIHRlc3QgdXNlcgAAAAAAAAAAAAAAAAAAAAA=";

fn time(t: SystemTime) -> String {
    humantime::format_rfc3339_micros(t).to_string()
}

/// Per-shard version strings as RGW writes them: `0#1,1#1,...`.
fn per_shard(shards: u32, value: &str) -> String {
    let mut out = String::with_capacity(shards as usize * (value.len() + 7));
    for i in 0..shards {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&i.to_string());
        out.push('#');
        out.push_str(value);
    }
    out
}

fn explicit_placement() -> Value {
    json!({ "data_pool": "", "data_extra_pool": "", "index_pool": "" })
}

fn quota() -> Value {
    json!({
        "enabled": false,
        "check_on_raw": false,
        "max_size": -1,
        "max_size_kb": 0,
        "max_objects": -1
    })
}

const HOST_ID: &str = "keystorm-sim-default-default";

static REQUEST_IDS: AtomicU64 = AtomicU64::new(1);

/// RGW's transaction id: `tx<21 hex digits>-<seconds, 10 hex digits>-<host id>`.
fn request_id() -> String {
    let n = REQUEST_IDS.fetch_add(1, Ordering::Relaxed);
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("tx{n:021x}-{secs:010x}-{HOST_ID}")
}

/// `{"Code": ..., "Message": "", "RequestId": ..., "HostId": ...}`.
pub fn error(code: &str) -> Value {
    json!({ "Code": code, "Message": "", "RequestId": request_id(), "HostId": HOST_ID })
}

/// The metadata object's write tag: 24 characters, stable per instance.
fn tag(id: &str) -> String {
    format!("_{}", &hex::encode(Sha256::digest(id.as_bytes()))[..23])
}

/// `GET /admin/bucket?bucket=B&stats=true`.
pub fn stats(name: &str, bucket: &Bucket) -> Value {
    let (instance, marker) = bucket.index.current();
    let Usage {
        objects: count,
        size,
        size_actual: actual,
    } = bucket.usage();
    // RGW has no `rgw.main` category until the bucket holds something.
    let usage = if count == 0 {
        json!({})
    } else {
        json!({ "rgw.main": {
            "size": size,
            "size_actual": actual,
            "size_utilized": size,
            "size_kb": size.div_ceil(1024),
            "size_kb_actual": actual / 1024,
            "size_kb_utilized": size.div_ceil(1024),
            "num_objects": count,
        }})
    };
    json!({
        "bucket": name,
        "num_shards": instance.shards,
        "tenant": "",
        "zonegroup": ZONEGROUP,
        "placement_rule": PLACEMENT,
        "explicit_placement": explicit_placement(),
        "id": instance.id,
        "marker": marker,
        "index_type": "Normal",
        "owner": OWNER,
        "ver": per_shard(instance.shards, "1"),
        "master_ver": per_shard(instance.shards, "0"),
        "mtime": time(instance.mtime),
        "creation_time": time(bucket.index.created),
        "max_marker": per_shard(instance.shards, ""),
        "usage": usage,
        "bucket_quota": quota(),
    })
}

/// `GET /admin/metadata/bucket.instance?key=B:<id>`.
pub fn instance(name: &str, bucket: &Bucket, instance: &Instance) -> Value {
    let (_, marker) = bucket.index.current();
    json!({
        "key": format!("bucket.instance:{name}:{}", instance.id),
        "ver": { "tag": tag(&instance.id), "ver": instance.ver },
        "mtime": time(instance.mtime),
        "data": {
            "bucket_info": {
                "bucket": {
                    "name": name,
                    "marker": marker,
                    "bucket_id": instance.id,
                    "tenant": "",
                    "explicit_placement": explicit_placement(),
                },
                "creation_time": time(bucket.index.created),
                "owner": OWNER,
                "flags": 0,
                "zonegroup": ZONEGROUP,
                "placement_rule": PLACEMENT,
                "has_instance_obj": "false",
                "quota": quota(),
                "num_shards": instance.shards,
                "bi_shard_hash_type": 0,
                "requester_pays": "false",
                "has_website": "false",
                "swift_versioning": "false",
                "swift_ver_location": "",
                "index_type": 0,
                "mdsearch_config": [],
                "reshard_status": instance.reshard_status as u8,
                "new_bucket_instance_id": instance.new_instance_id,
            },
            "attrs": [{ "key": "user.rgw.acl", "val": ACL }],
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_versions_list_every_shard() {
        assert_eq!(per_shard(3, "1"), "0#1,1#1,2#1");
        assert_eq!(per_shard(2, ""), "0#,1#");
        assert_eq!(per_shard(0, "1"), "");
    }
}
