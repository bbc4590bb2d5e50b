//! RGW's admin ops API, the calls keystorm uses: bucket stats (shard and object
//! counts, instance id) and bucket-instance metadata (reshard status), answered with
//! RGW's JSON shapes (see `rgw_json`); plus the target's own calls —
//! `POST /admin/bucket?reshard&bucket=B&num-shards=N` as the stand-in for
//! `radosgw-admin bucket reshard` (RGW has no HTTP call for it),
//! `GET /admin/keystorm/faults` with the injected-fault counts (in all, and per
//! operation group under `ops`; index entries lost by reshards, no request's, in all
//! only), `GET /admin/keystorm/requests` with the requests received per S3 operation,
//! so a client in another process can check its own accounting against the target's, and `GET /admin/keystorm/delays` with the delays
//! the target applied against those it drew (see `delay_record`); and the calls on its
//! ports, `/admin/keystorm/ports...` (see `admin_ports`).
//!
//! Admin calls get neither injected latency nor injected faults.

use http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::admin_call::{Call, Resp, error, json_response};
use crate::request::parse_query;
use crate::reshard_log::MAX_SHARDS;
use crate::rgw_json;
use crate::state::State;

/// Whether the path belongs to the admin API (`/admin/...`), as RGW reserves it.
pub fn is_admin(path: &str) -> bool {
    path == "/admin" || path.starts_with("/admin/")
}

pub(crate) async fn handle(state: &State, call: Call<'_>) -> Resp {
    let Call {
        method,
        path,
        query,
        ..
    } = call;
    if let Some(rest) = crate::admin_ports::path_of(path) {
        return crate::admin_ports::handle(state, &call, rest).await;
    }
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

/// The injected faults by kind, in all and per operation group (every port's own
/// included), and what each port's own injected.
fn faults(state: &State) -> Value {
    let of = |op| state.injector.counts_of(op) + state.ports.injected(op);
    let all = crate::ObjectOp::ALL
        .into_iter()
        .map(|op| state.ports.injected(op))
        .fold(state.injector.counts(), |a, b| a + b);
    let mut doc = json!(all);
    let ops: serde_json::Map<String, Value> = crate::ObjectOp::ALL
        .into_iter()
        .map(|op| (op.name().to_string(), json!(of(op))))
        .collect();
    doc["ops"] = Value::Object(ops);
    let ports: serde_json::Map<String, Value> = state
        .ports
        .all()
        .iter()
        .map(|p| {
            (
                p.number().to_string(),
                json!(crate::admin_ports::injected(&**p)),
            )
        })
        .collect();
    doc["ports"] = Value::Object(ports);
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
