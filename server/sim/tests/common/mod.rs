//! What the S3 semantics tests share: a `Target` that is either the embedded target
//! started in-process or a real Ceph RGW named by the environment, so one test body
//! runs against both and any difference between them shows up as a failing test.
//!
//! The RGW comes from the env file of `scripts/ceph-up.sh`, named by
//! `KEYSTORM_RGW_ENV`, or else from `KEYSTORM_RGW_ENDPOINT`, `KEYSTORM_RGW_ACCESS_KEY`
//! and `KEYSTORM_RGW_SECRET_KEY` in the environment. Every bucket a test makes gets a
//! random suffix and is emptied and deleted when the test ends, passed or failed, so
//! tests can share one RGW and run in parallel.

#![allow(dead_code)] // each test binary uses its own part of this module

use std::future::Future;
use std::sync::{Arc, Mutex};

use aws_sdk_s3::Client;
use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::config::retry::RetryConfig;
use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region, RequestChecksumCalculation};
use aws_sdk_s3::error::SdkError;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{Delete, ObjectIdentifier};
use keystorm_sim::{SimConfig, SimHandle, Storage};

/// Credentials the embedded target is started with.
const SIM_KEYS: (&str, &str) = ("ak", "sk");

/// Where a test's requests go.
pub struct Target {
    /// A client with the target's credentials, path-style, no retries and no request
    /// checksums beyond those S3 requires.
    pub client: Client,
    endpoint: String,
    access_key: String,
    secret_key: String,
    sim: Option<SimHandle>,
    suffix: String,
    buckets: Mutex<Vec<String>>,
}

/// An RGW endpoint and the S3 user's keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgwConfig {
    pub endpoint: String,
    pub access_key: String,
    pub secret_key: String,
}

impl RgwConfig {
    /// Reads the RGW to test from `KEYSTORM_RGW_ENV` (an env file of KEY=value
    /// lines) or from the `KEYSTORM_RGW_*` variables; panics with what to do if
    /// neither names one: with the `rgw-tests` feature on, a missing RGW is an error,
    /// never a reason to skip.
    pub fn from_env() -> RgwConfig {
        const NAMES: [&str; 3] = [
            "KEYSTORM_RGW_ENDPOINT",
            "KEYSTORM_RGW_ACCESS_KEY",
            "KEYSTORM_RGW_SECRET_KEY",
        ];
        let env_file = std::env::var("KEYSTORM_RGW_ENV")
            .ok()
            .filter(|p| !p.is_empty());
        let source = match &env_file {
            Some(path) => format!("in KEYSTORM_RGW_ENV={path}"),
            None => "in the environment".to_string(),
        };
        let vars: Vec<(String, String)> = match &env_file {
            Some(path) => {
                let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
                    panic!(
                        "KEYSTORM_RGW_ENV={path} cannot be read ({e}); start the cluster \
                         with scripts/ceph-up.sh, which writes that file"
                    )
                });
                parse_env_file(&text)
            }
            None => NAMES
                .iter()
                .filter_map(|k| Some((k.to_string(), std::env::var(k).ok()?)))
                .collect(),
        };
        let lookup = |k: &str| {
            vars.iter()
                .find(|(key, v)| key == k && !v.is_empty())
                .map(|(_, v)| v.clone())
        };
        let get = |k: &str| {
            lookup(k).unwrap_or_else(|| {
                panic!(
                    "the rgw-tests feature is on but no RGW is configured ({k} is not set {source}): \
                     run scripts/ceph-up.sh and set KEYSTORM_RGW_ENV to the rgw.env file it \
                     prints, or export KEYSTORM_RGW_ENDPOINT, KEYSTORM_RGW_ACCESS_KEY and \
                     KEYSTORM_RGW_SECRET_KEY; or build without --features rgw-tests"
                )
            })
        };
        RgwConfig {
            endpoint: get(NAMES[0]),
            access_key: get(NAMES[1]),
            secret_key: get(NAMES[2]),
        }
    }
}

/// `KEY=value` lines; blank lines, `#` comments and an `export ` prefix are allowed,
/// and one pair of quotes around a value is removed.
pub fn parse_env_file(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let l = l.strip_prefix("export ").unwrap_or(l);
            let (k, v) = l.split_once('=')?;
            let v = v.trim();
            let v = [('"', '"'), ('\'', '\'')]
                .iter()
                .find_map(|(a, b)| v.strip_prefix(*a)?.strip_suffix(*b))
                .unwrap_or(v);
            Some((k.trim().to_string(), v.to_string()))
        })
        .collect()
}

impl Target {
    /// The embedded target, started on a free loopback port.
    pub async fn sim(storage: Storage) -> Arc<Target> {
        let sim = keystorm_sim::start(
            "127.0.0.1:0".parse().unwrap(),
            SimConfig {
                storage,
                credentials: Some((SIM_KEYS.0.into(), SIM_KEYS.1.into())),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        Target::new(sim.endpoint(), SIM_KEYS.0, SIM_KEYS.1, Some(sim))
    }

    /// The RGW named by the environment (see [`RgwConfig::from_env`]).
    pub fn rgw() -> Arc<Target> {
        let c = RgwConfig::from_env();
        Target::new(c.endpoint, &c.access_key, &c.secret_key, None)
    }

    fn new(
        endpoint: String,
        access_key: &str,
        secret_key: &str,
        sim: Option<SimHandle>,
    ) -> Arc<Self> {
        let suffix: String = std::iter::repeat_with(fastrand::lowercase)
            .take(10)
            .collect();
        let client = build_client(&endpoint, access_key, secret_key, false);
        Arc::new(Target {
            client,
            endpoint,
            access_key: access_key.into(),
            secret_key: secret_key.into(),
            sim,
            suffix,
            buckets: Mutex::new(Vec::new()),
        })
    }

    pub fn is_rgw(&self) -> bool {
        self.sim.is_none()
    }

    /// The embedded target, taken out (for a test that shuts it down).
    pub fn into_sim(self) -> Option<SimHandle> {
        self.sim
    }

    /// The embedded target, for the tests that look inside it.
    pub fn sim_handle(&self) -> Option<&SimHandle> {
        self.sim.as_ref()
    }

    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// A bucket name unique to this test run, `base-<random>`; it is deleted with
    /// its objects when the test ends.
    pub fn bucket(&self, base: &str) -> String {
        let name = format!("{base}-{}", self.suffix);
        assert!(name.len() <= 63, "bucket name too long: {name}");
        let mut buckets = self.buckets.lock().unwrap();
        if !buckets.contains(&name) {
            buckets.push(name.clone());
        }
        name
    }

    /// Another client for the same target: `checksums` turns on the SDK's default
    /// request checksums (CRC32 in an aws-chunked body with a trailer).
    pub fn client_with_checksums(&self) -> Client {
        build_client(&self.endpoint, &self.access_key, &self.secret_key, true)
    }

    /// A client whose keys are wrong in the given way.
    pub fn client_with_keys(&self, access_key: Option<&str>, secret_key: Option<&str>) -> Client {
        build_client(
            &self.endpoint,
            access_key.unwrap_or(&self.access_key),
            secret_key.unwrap_or(&self.secret_key),
            false,
        )
    }

    /// PUTs every key of `keys` with `body`, 16 at a time.
    pub async fn put_many(&self, bucket: &str, keys: Vec<String>, body: &'static [u8]) {
        let limit = Arc::new(tokio::sync::Semaphore::new(16));
        let mut tasks = tokio::task::JoinSet::new();
        for key in keys {
            let c = self.client.clone();
            let bucket = bucket.to_string();
            let permit = limit.clone().acquire_owned().await.unwrap();
            tasks.spawn(async move {
                let _permit = permit;
                c.put_object()
                    .bucket(bucket)
                    .key(&key)
                    .body(ByteStream::from_static(body))
                    .send()
                    .await
                    .unwrap_or_else(|e| panic!("PUT {key}: {e:?}"));
            });
        }
        while let Some(done) = tasks.join_next().await {
            done.unwrap();
        }
    }

    /// Every key in `bucket`, in listing order.
    pub async fn all_keys(&self, bucket: &str) -> Vec<String> {
        let mut keys = Vec::new();
        let mut token = None;
        loop {
            let page = self
                .client
                .list_objects_v2()
                .bucket(bucket)
                .set_continuation_token(token)
                .send()
                .await
                .unwrap();
            keys.extend(
                page.contents()
                    .iter()
                    .filter_map(|o| o.key().map(String::from)),
            );
            match page.next_continuation_token() {
                Some(t) if page.is_truncated() == Some(true) => token = Some(t.to_string()),
                _ => return keys,
            }
        }
    }

    /// Empties and deletes every bucket `bucket()` named; a bucket that is already
    /// gone is fine.
    async fn cleanup(&self) -> Result<(), String> {
        let buckets = std::mem::take(&mut *self.buckets.lock().unwrap());
        let mut problems = Vec::new();
        for bucket in buckets {
            if let Err(e) = self.remove_bucket(&bucket).await {
                problems.push(format!("{bucket}: {e}"));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }

    async fn remove_bucket(&self, bucket: &str) -> Result<(), String> {
        loop {
            let page = match self.client.list_objects_v2().bucket(bucket).send().await {
                Ok(page) => page,
                Err(e) if code(&e) == Some("NoSuchBucket") => return Ok(()),
                Err(e) => return Err(format!("list: {e:?}")),
            };
            if page.contents().is_empty() {
                break;
            }
            let objects: Vec<ObjectIdentifier> = page
                .contents()
                .iter()
                .filter_map(|o| o.key())
                .map(|k| ObjectIdentifier::builder().key(k).build().unwrap())
                .collect();
            let out = self
                .client
                .delete_objects()
                .bucket(bucket)
                .delete(
                    Delete::builder()
                        .set_objects(Some(objects))
                        .quiet(true)
                        .build()
                        .unwrap(),
                )
                .send()
                .await
                .map_err(|e| format!("delete objects: {e:?}"))?;
            if !out.errors().is_empty() {
                return Err(format!("delete objects: {:?}", out.errors()));
            }
        }
        match self.client.delete_bucket().bucket(bucket).send().await {
            Ok(_) => Ok(()),
            Err(e) if code(&e) == Some("NoSuchBucket") => Ok(()),
            Err(e) => Err(format!("delete bucket: {e:?}")),
        }
    }
}

fn build_client(endpoint: &str, access_key: &str, secret_key: &str, checksums: bool) -> Client {
    let conf = aws_sdk_s3::config::Builder::new()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new("us-east-1"))
        .force_path_style(true)
        .retry_config(RetryConfig::disabled())
        .credentials_provider(Credentials::new(access_key, secret_key, None, None, "test"))
        .request_checksum_calculation(if checksums {
            RequestChecksumCalculation::WhenSupported
        } else {
            RequestChecksumCalculation::WhenRequired
        })
        .build();
    Client::from_conf(conf)
}

/// Runs `body` against `target`, then deletes the buckets it made, whether it passed
/// or panicked; the test fails if the body failed or the clean-up did.
pub async fn run<F, Fut>(target: Arc<Target>, body: F)
where
    F: FnOnce(Arc<Target>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let outcome = tokio::spawn(body(target.clone())).await;
    let cleaned = target.cleanup().await;
    match outcome {
        Err(e) if e.is_panic() => {
            if let Err(problem) = cleaned {
                eprintln!("clean-up after the failure also failed: {problem}");
            }
            std::panic::resume_unwind(e.into_panic())
        }
        Err(e) => panic!("test task did not finish: {e}"),
        Ok(()) => {
            if let Err(problem) = cleaned {
                panic!("the test passed but its buckets could not be removed: {problem}");
            }
        }
    }
}

/// The HTTP status of a service error (panics on other errors: a test that expects
/// an S3 error must get one).
pub fn status<E: std::fmt::Debug>(e: &SdkError<E, HttpResponse>) -> u16 {
    match e {
        SdkError::ServiceError(s) => s.raw().status().as_u16(),
        other => panic!("not a service error: {other:?}"),
    }
}

/// The S3 error code of a service error, if there is one.
pub fn code<E, R>(e: &SdkError<E, R>) -> Option<&str>
where
    E: aws_sdk_s3::error::ProvideErrorMetadata,
{
    e.as_service_error().and_then(|s| s.code())
}
