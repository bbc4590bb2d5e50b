//! A small client for RGW's admin ops API (`/admin/bucket?stats`, the bucket-instance
//! metadata) signed with SigV4 like any S3 call. It has its own connection, apart from
//! the workload's pool, so polling never queues behind load.

use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde::Deserialize;

use keystorm_s3::TlsConfig;
use keystorm_s3::fast::{Http, http_client, sign::Signer};
use keystorm_types::Credentials;

/// Admin calls are small; anything slower than this counts as a failed poll.
const ADMIN_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_BODY: usize = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("{what}: {message}")]
    Transport { what: String, message: String },
    #[error("{what}: HTTP {status}{hint}")]
    Status {
        what: String,
        status: u16,
        hint: String,
    },
    #[error("{what}: unexpected answer: {message}")]
    Body { what: String, message: String },
    #[error(transparent)]
    Tls(#[from] keystorm_s3::fast::TlsError),
}

impl AdminError {
    pub fn status(&self) -> Option<u16> {
        match self {
            AdminError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// What `GET /admin/bucket?bucket=B&stats=true` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketStats {
    pub num_shards: u32,
    /// The current bucket instance id (changes on every reshard).
    pub id: String,
    pub marker: String,
    pub num_objects: u64,
}

/// What the bucket-instance metadata says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketInstance {
    pub num_shards: u32,
    /// 0 none, 1 in progress, 2 done.
    pub reshard_status: i64,
    pub new_bucket_instance_id: String,
}

pub struct AdminClient {
    http: Http,
    /// The admin API's endpoint, then the others it may be reached at (the other
    /// gateways of the cluster), tried in turn when one cannot be reached.
    endpoints: Vec<String>,
    /// The one that answered last.
    current: std::sync::atomic::AtomicUsize,
    signer: Signer,
}

impl AdminClient {
    pub fn new(
        endpoint: &str,
        credentials: &Credentials,
        region: &str,
        tls_config: &TlsConfig,
    ) -> Result<AdminClient, AdminError> {
        Ok(AdminClient {
            http: http_client(tls_config, 2)?,
            endpoints: vec![endpoint.trim_end_matches('/').to_string()],
            current: Default::default(),
            signer: Signer::new(credentials, region, false),
        })
    }

    /// Also reaches the admin API at `others` (gateways of the same cluster) while the
    /// first endpoint cannot be reached.
    pub fn with_fallbacks(mut self, others: &[String]) -> AdminClient {
        for o in others {
            let o = o.trim_end_matches('/').to_string();
            if !self.endpoints.contains(&o) {
                self.endpoints.push(o);
            }
        }
        self
    }

    /// Sends one signed call to the endpoint that answered last, then to the others in
    /// turn while one cannot be reached (a lost gateway); `path_and_query` starts with
    /// `/admin/`.
    async fn call(
        &self,
        method: Method,
        path_and_query: &str,
        what: &str,
    ) -> Result<Bytes, AdminError> {
        use std::sync::atomic::Ordering;
        let first = self.current.load(Ordering::Relaxed);
        let n = self.endpoints.len();
        let mut last = None;
        for i in 0..n {
            let at = (first + i) % n;
            match self
                .call_at(&self.endpoints[at], method.clone(), path_and_query, what)
                .await
            {
                Err(e @ AdminError::Transport { .. }) => last = Some(e),
                r => {
                    self.current.store(at, Ordering::Relaxed);
                    return r;
                }
            }
        }
        Err(last.unwrap_or_else(|| AdminError::Transport {
            what: what.to_string(),
            message: "no admin endpoint".to_string(),
        }))
    }

    /// Sends one signed call to `endpoint`.
    async fn call_at(
        &self,
        endpoint: &str,
        method: Method,
        path_and_query: &str,
        what: &str,
    ) -> Result<Bytes, AdminError> {
        let transport = |message: String| AdminError::Transport {
            what: what.to_string(),
            message,
        };
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{endpoint}{path_and_query}"))
            .body(keystorm_s3::Payload::default().into_body())
            .map_err(|e| transport(e.to_string()))?;
        self.signer
            .sign(&mut request, None)
            .map_err(|e| transport(e.to_string()))?;
        let response = tokio::time::timeout(ADMIN_TIMEOUT, async {
            let response = self
                .http
                .request(request)
                .await
                .map_err(|e| transport(e.to_string()))?;
            let status = response.status();
            let body = http_body_util::Limited::new(response.into_body(), MAX_BODY)
                .collect()
                .await
                .map_err(|e| transport(e.to_string()))?
                .to_bytes();
            Ok::<_, AdminError>((status, body))
        })
        .await
        .map_err(|_| transport(format!("no answer within {ADMIN_TIMEOUT:?}")))??;
        let (status, body) = response;
        if status.is_success() {
            return Ok(body);
        }
        let hint = match status {
            StatusCode::FORBIDDEN => {
                " (AccessDenied: the admin user needs caps `buckets=read; metadata=read`)"
                    .to_string()
            }
            StatusCode::NOT_FOUND => " (no such bucket or instance)".to_string(),
            StatusCode::METHOD_NOT_ALLOWED => {
                " (the target does not offer this admin call)".to_string()
            }
            _ => String::new(),
        };
        Err(AdminError::Status {
            what: what.to_string(),
            status: status.as_u16(),
            hint,
        })
    }

    pub async fn bucket_stats(&self, bucket: &str) -> Result<BucketStats, AdminError> {
        let what = format!("admin bucket stats of {bucket}");
        let body = self
            .call(
                Method::GET,
                &format!(
                    "/admin/bucket?bucket={}&format=json&stats=true",
                    encode(bucket)
                ),
                &what,
            )
            .await?;
        let raw: RawStats = parse(&body, &what)?;
        Ok(BucketStats {
            num_shards: raw.num_shards,
            id: raw.id,
            marker: raw.marker,
            num_objects: raw
                .usage
                .and_then(|u| u.main)
                .map(|m| m.num_objects)
                .unwrap_or(0),
        })
    }

    pub async fn bucket_instance(
        &self,
        bucket: &str,
        id: &str,
    ) -> Result<BucketInstance, AdminError> {
        let what = format!("admin bucket instance of {bucket}");
        // The `:` of the metadata key must be percent-encoded or RGW's signature check fails.
        let key = encode(&format!("{bucket}:{id}"));
        let body = self
            .call(
                Method::GET,
                &format!("/admin/metadata/bucket.instance?format=json&key={key}"),
                &what,
            )
            .await?;
        let raw: RawInstance = parse(&body, &what)?;
        let info = raw.data.bucket_info;
        Ok(BucketInstance {
            num_shards: info.num_shards,
            reshard_status: info.reshard_status,
            new_bucket_instance_id: info.new_bucket_instance_id,
        })
    }

    /// keystorm's stand-in for `radosgw-admin bucket reshard` (the embedded target and
    /// `keystorm sim` answer it; RGW has no such HTTP call).
    pub async fn reshard(&self, bucket: &str, shards: u32) -> Result<(), AdminError> {
        let what = format!("admin reshard of {bucket}");
        self.call(
            Method::POST,
            &format!(
                "/admin/bucket?bucket={}&num-shards={shards}&reshard",
                encode(bucket)
            ),
            &what,
        )
        .await
        .map(|_| ())
    }
}

fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

fn parse<T: for<'de> Deserialize<'de>>(body: &[u8], what: &str) -> Result<T, AdminError> {
    serde_json::from_slice(body).map_err(|e| AdminError::Body {
        what: what.to_string(),
        message: e.to_string(),
    })
}

#[derive(Deserialize)]
struct RawStats {
    num_shards: u32,
    id: String,
    #[serde(default)]
    marker: String,
    usage: Option<RawUsage>,
}

#[derive(Deserialize)]
struct RawUsage {
    #[serde(rename = "rgw.main")]
    main: Option<RawMain>,
}

#[derive(Deserialize)]
struct RawMain {
    num_objects: u64,
}

#[derive(Deserialize)]
struct RawInstance {
    data: RawInstanceData,
}

#[derive(Deserialize)]
struct RawInstanceData {
    bucket_info: RawBucketInfo,
}

#[derive(Deserialize)]
struct RawBucketInfo {
    num_shards: u32,
    #[serde(default)]
    reshard_status: i64,
    #[serde(default)]
    new_bucket_instance_id: String,
}
