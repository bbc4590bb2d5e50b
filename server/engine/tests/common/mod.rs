//! Shared by the run tests: a real embedded target on loopback, workloads pointed at
//! it, and a client to look at what the target holds afterwards.

#![allow(dead_code)]

use std::sync::Arc;

use keystorm_engine::executor::{self, RunOptions, RunOutcome};
use keystorm_s3::{ClientConfig, ListRequest, S3Client, TlsConfig};
use keystorm_types::{ClientKind, Credentials};
use keystorm_workload::observer::{NoObserver, Observer};
use keystorm_workload::plan::Plan;
use tokio_util::sync::CancellationToken;

pub const ACCESS_KEY: &str = "test-access";
pub const SECRET_KEY: &str = "test-secret";

/// A target of our own keeping objects in `storage`, flipping a bit in that share of
/// GET bodies (`corrupt`, drawn from `seed`).
pub async fn start_corrupting(
    storage: keystorm_sim::Storage,
    corrupt: f64,
    seed: u64,
) -> keystorm_sim::SimHandle {
    let config = keystorm_sim::SimConfig {
        storage,
        credentials: Some((ACCESS_KEY.to_string(), SECRET_KEY.to_string())),
        faults: keystorm_sim::FaultConfig {
            corrupt,
            seed,
            ops: vec![keystorm_sim::ObjectOp::Get],
            ..Default::default()
        },
        ..Default::default()
    };
    keystorm_sim::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("sim starts")
}

/// A target of our own (so the test can inspect it after the run).
pub async fn start_sim() -> keystorm_sim::SimHandle {
    let config = keystorm_sim::SimConfig {
        credentials: Some((ACCESS_KEY.to_string(), SECRET_KEY.to_string())),
        ..Default::default()
    };
    keystorm_sim::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("sim starts")
}

/// A workload body (everything after `target:`) against `endpoint`.
pub fn workload(endpoint: &str, body: &str) -> String {
    format!(
        "name: test\ntarget:\n  endpoint: {endpoint}\n  credentials:\n    access_key: {ACCESS_KEY}\n    secret_key: {SECRET_KEY}\n{body}"
    )
}

pub fn plan(text: &str) -> Plan {
    match keystorm_workload::spec::parse_workload(text, "test.yaml") {
        Ok((plan, _warnings)) => plan,
        Err(e) => panic!("test workload invalid: {e}\n{text}"),
    }
}

pub async fn run_with(
    text: &str,
    results: &std::path::Path,
    observer: Arc<dyn Observer>,
    cancel: CancellationToken,
    resume: Option<std::path::PathBuf>,
) -> RunOutcome {
    let options = RunOptions {
        results_root: results.to_path_buf(),
        resume,
        embedded: Some(Arc::new(keystorm_embedded::SimTargets)),
        ..RunOptions::default()
    };
    executor::run(plan(text), text, options, observer, cancel)
        .await
        .expect("run starts")
}

/// A run to its end, told to `observer`.
pub async fn run_observed(
    text: &str,
    results: &std::path::Path,
    observer: Arc<dyn Observer>,
) -> RunOutcome {
    run_with(text, results, observer, CancellationToken::new(), None).await
}

pub async fn run(text: &str, results: &std::path::Path) -> RunOutcome {
    run_observed(text, results, Arc::new(NoObserver)).await
}

pub async fn client(endpoint: &str) -> S3Client {
    connect(endpoint, ClientKind::Sdk, 4).await
}

/// The fast client with a pool for `pool_size` requests in flight.
pub async fn client_of(endpoint: &str, pool_size: usize) -> S3Client {
    connect(endpoint, ClientKind::Fast, pool_size).await
}

/// The fast client retrying each call up to `retries` times.
pub async fn client_retrying(endpoint: &str, retries: u32) -> S3Client {
    S3Client::connect(&ClientConfig {
        retries,
        ..config(endpoint, ClientKind::Fast, 16)
    })
    .await
    .expect("client")
}

async fn connect(endpoint: &str, kind: ClientKind, pool_size: usize) -> S3Client {
    S3Client::connect(&config(endpoint, kind, pool_size))
        .await
        .expect("client")
}

fn config(endpoint: &str, kind: ClientKind, pool_size: usize) -> ClientConfig {
    ClientConfig {
        kind,
        endpoint: endpoint.to_string(),
        region: "us-east-1".to_string(),
        path_style: true,
        credentials: Credentials {
            access_key_id: ACCESS_KEY.to_string(),
            secret_access_key: SECRET_KEY.to_string(),
            session_token: None,
        },
        tls: TlsConfig::default(),
        timeout: None,
        retries: 0,
        pool_size,
        checksums: false,
        payload_signing: false,
    }
}

/// Every key in `bucket`, by listing (test-sized buckets only).
pub async fn list_all(client: &S3Client, bucket: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut request = ListRequest::default();
    loop {
        let page = client
            .list_objects_v2(bucket, &request)
            .await
            .expect("list");
        keys.extend(page.entries.into_iter().map(|e| e.key));
        match page.next_continuation_token.filter(|_| page.is_truncated) {
            Some(t) => request.continuation_token = Some(t),
            None => return keys,
        }
    }
}

/// A variable the RGW tests need (from the env file `scripts/ceph-up.sh` writes).
pub fn rgw_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: bring a cluster up with scripts/ceph-up.sh and export the \
             variables of the env file it prints (scripts/test.sh does both)"
        )
    })
}

/// The fast client on the RGW of `scripts/ceph-up.sh`, as its S3 user.
pub async fn rgw_client(pool_size: usize) -> S3Client {
    S3Client::connect(&ClientConfig {
        kind: ClientKind::Fast,
        endpoint: rgw_env("KEYSTORM_RGW_ENDPOINT"),
        region: "us-east-1".to_string(),
        path_style: true,
        credentials: Credentials {
            access_key_id: rgw_env("KEYSTORM_RGW_ACCESS_KEY"),
            secret_access_key: rgw_env("KEYSTORM_RGW_SECRET_KEY"),
            session_token: None,
        },
        tls: TlsConfig::default(),
        timeout: Some(std::time::Duration::from_secs(60)),
        retries: 0,
        pool_size,
        checksums: false,
        payload_signing: false,
    })
    .await
    .expect("client")
}

/// Every listing mode, with the variants worth telling apart.
pub fn list_modes() -> Vec<keystorm_results::ListMode> {
    use keystorm_results::ListMode;
    vec![
        ListMode::Serial,
        ListMode::base62_prefix(1),
        ListMode::base62_prefix(2),
        ListMode::adaptive_from_folders(),
        ListMode::Adaptive { delimiter: None },
    ]
}

/// Puts objects of the given sizes (no data) straight into the target's `bucket`.
pub fn put_sized(
    sim: &keystorm_sim::SimHandle,
    bucket: &str,
    keys: impl IntoIterator<Item = (String, u64)>,
) {
    let b = sim.store().bucket(bucket).expect("bucket");
    for (key, size) in keys {
        b.put(
            key.as_bytes(),
            keystorm_sim::Object {
                size,
                etag: [1; 16],
                last_modified_ms: keystorm_sim::now_ms(),
                content_type: None,
                metadata: Box::new([]),
                data: None,
                parts: 0,
            },
        )
        .expect("within the target's memory budget");
    }
}

/// Runs `f` once, at page `at` of a listing (counting every page, any lister's).
pub struct AtPage<F> {
    pub at: u64,
    pub f: F,
    pub pages: std::sync::atomic::AtomicU64,
}

impl<F: Fn() + Send + Sync> AtPage<F> {
    pub fn new(at: u64, f: F) -> AtPage<F> {
        AtPage {
            at,
            f,
            pages: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

impl<F: Fn() + Send + Sync> keystorm_engine::listing::PageObserver for AtPage<F> {
    fn page(&self, _: keystorm_engine::listing::PageEvent) {
        use std::sync::atomic::Ordering;
        if self.pages.fetch_add(1, Ordering::SeqCst) + 1 == self.at {
            (self.f)();
        }
    }
}
