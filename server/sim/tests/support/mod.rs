//! What the RGW-imitation and injection tests share: starting a target, an aws-sdk-s3
//! client for it, a raw hyper client that signs admin calls the way RGW's admin
//! clients do (SigV4, `x-amz-content-sha256` included), and waiting on a condition of
//! the target's state instead of sleeping.

#![allow(dead_code)]

use std::time::{Duration, Instant, SystemTime};

use aws_sdk_s3::Client;
use aws_sdk_s3::config::retry::RetryConfig;
use aws_sdk_s3::config::timeout::TimeoutConfig;
use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_s3::primitives::ByteStream;
use bytes::Bytes;
use hmac::{Hmac, Mac};
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use keystorm_sim::{SimConfig, SimHandle};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use sha2::{Digest, Sha256};

pub const ACCESS: &str = "test-access";
pub const SECRET: &str = "test-secret";

/// A target on a free loopback port, verifying signatures with the test keys.
pub async fn start(config: SimConfig) -> SimHandle {
    keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        SimConfig {
            credentials: Some((ACCESS.into(), SECRET.into())),
            ..config
        },
    )
    .await
    .unwrap()
}

pub fn client_builder(sim: &SimHandle) -> aws_sdk_s3::config::Builder {
    aws_sdk_s3::config::Builder::new()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(sim.endpoint())
        .region(Region::new("us-east-1"))
        .force_path_style(true)
        .credentials_provider(Credentials::new(ACCESS, SECRET, None, None, "test"))
}

pub fn client(sim: &SimHandle) -> Client {
    Client::from_conf(client_builder(sim).build())
}

/// A client that never retries, with an optional per-attempt timeout: each call is one
/// request, so what it sees can be counted against what the target injected.
pub fn client_without_retries(sim: &SimHandle, timeout: Option<Duration>) -> Client {
    let mut timeouts = TimeoutConfig::builder();
    if let Some(t) = timeout {
        timeouts = timeouts.operation_attempt_timeout(t);
    }
    Client::from_conf(
        client_builder(sim)
            .retry_config(RetryConfig::disabled())
            .timeout_config(timeouts.build())
            .build(),
    )
}

pub async fn put(c: &Client, bucket: &str, key: &str) {
    c.put_object()
        .bucket(bucket)
        .key(key)
        .body(ByteStream::from_static(b"0123456789"))
        .send()
        .await
        .unwrap();
}

/// Waits until `cond` holds, checking every 10 ms; panics after `limit`.
pub async fn wait_until(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) {
    let began = Instant::now();
    while !cond() {
        assert!(began.elapsed() < limit, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

const STRICT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

pub fn encode(s: &str) -> String {
    utf8_percent_encode(s, STRICT).to_string()
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

/// A raw HTTP client for the admin API.
pub struct Admin {
    http: HyperClient<HttpConnector, Empty<Bytes>>,
    endpoint: String,
    host: String,
}

/// An answer: status and JSON body (`Null` when the body is not JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub json: serde_json::Value,
}

impl Admin {
    pub fn new(sim: &SimHandle) -> Admin {
        Admin {
            http: HyperClient::builder(TokioExecutor::new()).build_http(),
            endpoint: sim.endpoint(),
            host: sim.addr().to_string(),
        }
    }

    /// `path_and_query` with its query already percent-encoded, as sent.
    pub async fn call(&self, method: &str, path_and_query: &str, signed: bool) -> Answer {
        let (path, query) = path_and_query
            .split_once('?')
            .unwrap_or((path_and_query, ""));
        let mut req = http::Request::builder()
            .method(method)
            .uri(format!("{}{path_and_query}", self.endpoint))
            .header("host", &self.host);
        if signed {
            let payload = hex::encode(Sha256::digest(b""));
            let now = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
            let amz_date: String = now.chars().filter(|c| *c != '-' && *c != ':').collect();
            let date = &amz_date[..8];
            let mut pairs: Vec<(String, String)> = query
                .split('&')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    let dec = |s: &str| {
                        percent_encoding::percent_decode_str(s)
                            .decode_utf8_lossy()
                            .into_owned()
                    };
                    (encode(&dec(k)), encode(&dec(v)))
                })
                .collect();
            pairs.sort();
            let canonical_query = pairs
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("&");
            let signed_headers = "host;x-amz-content-sha256;x-amz-date";
            let canonical = format!(
                "{method}\n{path}\n{canonical_query}\nhost:{}\nx-amz-content-sha256:{payload}\nx-amz-date:{amz_date}\n\n{signed_headers}\n{payload}",
                self.host
            );
            let scope = format!("{date}/us-east-1/s3/aws4_request");
            let to_sign = format!(
                "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
                hex::encode(Sha256::digest(canonical.as_bytes()))
            );
            let mut key = hmac(format!("AWS4{SECRET}").as_bytes(), date.as_bytes());
            for part in ["us-east-1", "s3", "aws4_request"] {
                key = hmac(&key, part.as_bytes());
            }
            let signature = hex::encode(hmac(&key, to_sign.as_bytes()));
            req = req
                .header("x-amz-content-sha256", payload)
                .header("x-amz-date", amz_date)
                .header(
                    "authorization",
                    format!(
                        "AWS4-HMAC-SHA256 Credential={ACCESS}/{scope},SignedHeaders={signed_headers},Signature={signature}"
                    ),
                );
        }
        let response = self
            .http
            .request(req.body(Empty::new()).unwrap())
            .await
            .unwrap();
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        Answer {
            status,
            json: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
        }
    }

    pub async fn get(&self, path_and_query: &str) -> Answer {
        self.call("GET", path_and_query, true).await
    }

    pub async fn stats(&self, bucket: &str) -> Answer {
        self.get(&format!(
            "/admin/bucket?bucket={}&stats=true&format=json",
            encode(bucket)
        ))
        .await
    }

    pub async fn instance(&self, bucket: &str, id: &str) -> Answer {
        self.get(&format!(
            "/admin/metadata/bucket.instance?format=json&key={}",
            encode(&format!("{bucket}:{id}"))
        ))
        .await
    }

    pub async fn reshard(&self, bucket: &str, shards: &str) -> Answer {
        self.call(
            "POST",
            &format!(
                "/admin/bucket?reshard&bucket={}&num-shards={shards}",
                encode(bucket)
            ),
            true,
        )
        .await
    }
}
