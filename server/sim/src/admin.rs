//! RGW's admin ops API, the calls keystorm uses: bucket stats (shard and object
//! counts, instance id) and bucket-instance metadata (reshard status), answered with
//! RGW's JSON shapes (see `rgw_json`); plus the target's own calls —
//! `POST /admin/bucket?reshard&bucket=B&num-shards=N` as the stand-in for
//! `radosgw-admin bucket reshard` (RGW has no HTTP call for it),
//! `GET /admin/keystorm/faults` with the injected-fault counts (in all, and per
//! operation group under `ops`; index entries lost by reshards, no request's, in all
//! only), `GET /admin/keystorm/requests` with the requests received per S3 operation,
//! so a client in another process can check its own accounting against the target's, and `GET /admin/keystorm/delays` with the delays
//! the target applied against those it drew (see `delay_record`).
//!
//! Admin calls get neither injected latency nor injected faults.

use http::{Method, Response, StatusCode, header};
use serde_json::{Value, json};

use crate::body::SimBody;
use crate::request::parse_query;
use crate::reshard_log::MAX_SHARDS;
use crate::rgw_json;
use crate::state::State;

type Resp = Response<SimBody>;

/// A successful answer: compact JSON without a Content-Type, as RGW sends it.
fn json_response(status: StatusCode, body: &Value) -> Resp {
    Response::builder()
        .status(status)
        .body(SimBody::bytes(body.to_string()))
        .unwrap_or_else(|_| Response::new(SimBody::empty()))
}

/// RGW's admin error document (`{"Code": ..., "Message": "", ...}`), as JSON.
pub fn error(status: StatusCode, code: &str) -> Resp {
    let mut r = json_response(status, &rgw_json::error(code));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    r
}

/// Whether the path belongs to the admin API (`/admin/...`), as RGW reserves it.
pub fn is_admin(path: &str) -> bool {
    path == "/admin" || path.starts_with("/admin/")
}

pub async fn handle(state: &State, method: &Method, path: &str, query: Option<&str>) -> Resp {
    let query = parse_query(query);
    let param = |name: &str| {
        query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let has = |name: &str| query.iter().any(|(k, _)| k == name);
    match (method, path.trim_end_matches('/')) {
        (&Method::GET, "/admin/bucket") => match param("bucket") {
            Some(name) => match state.store.bucket(name) {
                Some(bucket) => json_response(StatusCode::OK, &rgw_json::stats(name, &bucket)),
                None => error(StatusCode::NOT_FOUND, "NoSuchBucket"),
            },
            // Without a bucket RGW lists the bucket names.
            None => {
                let names: Vec<String> = state
                    .store
                    .bucket_list()
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect();
                json_response(StatusCode::OK, &json!(names))
            }
        },
        (&Method::POST, "/admin/bucket") if has("reshard") => {
            reshard(state, param("bucket"), param("num-shards")).await
        }
        (&Method::GET, "/admin/metadata/bucket.instance") => {
            let Some(key) = param("key") else {
                return error(StatusCode::BAD_REQUEST, "InvalidArgument");
            };
            let Some((name, id)) = key.split_once(':') else {
                return error(StatusCode::NOT_FOUND, "NoSuchKey");
            };
            let found = state
                .store
                .bucket(name)
                .and_then(|b| b.index.instance(id).map(|i| (b, i)));
            match found {
                Some((bucket, instance)) => json_response(
                    StatusCode::OK,
                    &rgw_json::instance(name, &bucket, &instance),
                ),
                None => error(StatusCode::NOT_FOUND, "NoSuchKey"),
            }
        }
        (&Method::GET, "/admin/keystorm/faults") => json_response(StatusCode::OK, &faults(state)),
        (&Method::GET, "/admin/keystorm/requests") => {
            json_response(StatusCode::OK, &requests(state))
        }
        (&Method::GET, "/admin/keystorm/delays") => {
            json_response(StatusCode::OK, &json!(state.store.delays.stats()))
        }
        // `/admin/reshard`: Pacific has no HTTP call for the reshard queue either.
        (
            _,
            "/admin/bucket"
            | "/admin/metadata/bucket.instance"
            | "/admin/keystorm/faults"
            | "/admin/keystorm/requests"
            | "/admin/keystorm/delays"
            | "/admin/reshard",
        ) => error(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed"),
        _ => error(StatusCode::NOT_FOUND, "NoSuchKey"),
    }
}

/// The injected faults by kind, in all and per operation group.
fn faults(state: &State) -> Value {
    let mut doc = json!(state.injector.counts());
    let ops: serde_json::Map<String, Value> = crate::ObjectOp::ALL
        .into_iter()
        .map(|op| (op.name().to_string(), json!(state.injector.counts_of(op))))
        .collect();
    doc["ops"] = Value::Object(ops);
    doc
}

/// The requests received per S3 operation (admin calls are not counted).
fn requests(state: &State) -> Value {
    let counts: serde_json::Map<String, Value> = crate::Op::ALL
        .into_iter()
        .map(|op| {
            let n = state.requests[op as usize].load(std::sync::atomic::Ordering::Relaxed);
            (op.name().to_string(), json!(n))
        })
        .collect();
    Value::Object(counts)
}

/// `POST /admin/bucket?reshard&bucket=B&num-shards=N`: reshards now and answers when
/// done (instantly on an empty bucket) with the bucket's stats.
async fn reshard(state: &State, name: Option<&str>, shards: Option<&str>) -> Resp {
    let Some(name) = name else {
        return error(StatusCode::BAD_REQUEST, "InvalidArgument");
    };
    let shards = shards
        .and_then(|n| n.trim().parse::<u32>().ok())
        .filter(|n| (1..=MAX_SHARDS).contains(n));
    let Some(shards) = shards else {
        return error(StatusCode::BAD_REQUEST, "InvalidArgument");
    };
    let Some(bucket) = state.store.bucket(name) else {
        return error(StatusCode::NOT_FOUND, "NoSuchBucket");
    };
    if !crate::reshard::reshard(&state.store, &state.injector, name, &bucket, shards, false).await {
        return error(StatusCode::CONFLICT, "ReshardInProgress");
    }
    json_response(StatusCode::OK, &rgw_json::stats(name, &bucket))
}
