//! The `sdk` client: aws-sdk-s3 with every measurement-distorting default set
//! explicitly (retries, request checksums, payload signing, stalled-stream protection,
//! pool size), for full compatibility with any S3 endpoint. The SDK's own retries are
//! off: one call is one request, and keystorm's retry loop (`s3::retry`) retries both
//! clients alike. A GET's body is read within what is left of the timeout, as the
//! fast client does, so a stalled body is a timeout with either client.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use aws_sdk_s3::Client;
use aws_sdk_s3::config::retry::RetryConfig;
use aws_sdk_s3::config::timeout::TimeoutConfig;
use aws_sdk_s3::config::{
    BehaviorVersion, Region, RequestChecksumCalculation, ResponseChecksumValidation,
    StalledStreamProtectionConfig,
};
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{
    BucketLocationConstraint, CompletedMultipartUpload, CompletedPart, CreateBucketConfiguration,
    Delete, ObjectIdentifier,
};
use aws_smithy_http_client::tls;
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
use bytes::Bytes;

use super::backend::{MultipartCalls, ObjectCalls};
use super::payload::Payload;
use super::{
    ClientConfig, DeleteManyOutcome, GetOutcome, HeadOutcome, ListPage, ListRequest, classify,
    md5_of_etag,
};
use keystorm_types::{ErrorClass, ListEntry, OpError, storage_class};

#[derive(Clone)]
pub struct SdkClient {
    client: Client,
    payload_signing: bool,
    /// The whole request's limit, body included (the SDK's covers the headers only).
    timeout: Option<Duration>,
}

fn classify<E>(e: SdkError<E, HttpResponse>, what: &str) -> OpError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    match &e {
        SdkError::ServiceError(se) => classify::with_message(
            classify::status(se.raw().status().as_u16(), se.err().code(), what),
            se.err().message(),
        ),
        SdkError::TimeoutError(_) => {
            OpError::new(ErrorClass::Timeout, format!("{what}: timed out"))
        }
        SdkError::DispatchFailure(d) if d.is_timeout() => OpError::new(
            ErrorClass::Timeout,
            format!("{what}: {}", classify::plain(&e)),
        ),
        SdkError::DispatchFailure(_) => OpError::new(
            ErrorClass::Connection,
            format!("{what}: {}", classify::plain(&e)),
        ),
        SdkError::ResponseError(r) => {
            let status = r.raw().status().as_u16();
            if status >= 400 {
                classify::status(status, None, what)
            } else {
                OpError::new(
                    ErrorClass::Other,
                    format!("{what}: {}", classify::chain(&e)),
                )
            }
        }
        _ => OpError::new(
            ErrorClass::Other,
            format!("{what}: {}", classify::chain(&e)),
        ),
    }
}

fn http_status<E>(e: &SdkError<E, HttpResponse>) -> Option<u16> {
    match e {
        SdkError::ServiceError(se) => Some(se.raw().status().as_u16()),
        SdkError::ResponseError(r) => Some(r.raw().status().as_u16()),
        _ => None,
    }
}

impl SdkClient {
    pub async fn new(config: &ClientConfig) -> Result<Self, OpError> {
        if config.tls.insecure_skip_verify {
            return Err(OpError::new(
                ErrorClass::Other,
                "tls.insecure_skip_verify is not supported by client: sdk; use client: fast",
            ));
        }
        let mut trust = tls::TrustStore::default();
        if let Some(ca) = &config.tls.ca_file {
            let pem = std::fs::read(ca).map_err(|e| {
                OpError::new(
                    ErrorClass::Other,
                    format!("tls.ca_file {}: {e}", ca.display()),
                )
            })?;
            trust = trust.with_pem_certificate(pem);
        }
        let tls_context = tls::TlsContext::builder()
            .with_trust_store(trust)
            .build()
            .map_err(|e| OpError::new(ErrorClass::Other, format!("TLS set-up: {e}")))?;
        let http = aws_smithy_http_client::Builder::new()
            .pool_max_idle_per_host(config.pool_size.max(1))
            .tls_provider(tls::Provider::Rustls(
                tls::rustls_provider::CryptoMode::AwsLc,
            ))
            .tls_context(tls_context)
            .build_https();
        let credentials = aws_credential_types::Credentials::new(
            config.credentials.access_key_id.clone(),
            config.credentials.secret_access_key.clone(),
            config.credentials.session_token.clone(),
            None,
            "keystorm",
        );
        let mut timeouts = TimeoutConfig::builder();
        if let Some(t) = config.timeout {
            timeouts = timeouts.operation_timeout(t);
        }
        let s3_config = aws_sdk_s3::config::Builder::new()
            .behavior_version(BehaviorVersion::latest())
            .endpoint_url(&config.endpoint)
            .region(Region::new(config.region.clone()))
            .force_path_style(config.path_style)
            .credentials_provider(credentials)
            .retry_config(RetryConfig::disabled())
            .timeout_config(timeouts.build())
            .request_checksum_calculation(if config.checksums {
                RequestChecksumCalculation::WhenSupported
            } else {
                RequestChecksumCalculation::WhenRequired
            })
            .response_checksum_validation(ResponseChecksumValidation::WhenRequired)
            .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
            .http_client(http)
            .build();
        Ok(SdkClient {
            client: Client::from_conf(s3_config),
            payload_signing: config.payload_signing,
            timeout: config.timeout,
        })
    }

    /// Runs `body` (reading a response body) within what is left of the timeout after
    /// `spent`.
    async fn within_timeout<T>(
        &self,
        spent: Duration,
        body: impl Future<Output = Result<T, OpError>>,
        what: &str,
    ) -> Result<T, OpError> {
        match self.timeout {
            Some(t) => tokio::time::timeout(t.saturating_sub(spent), body)
                .await
                .map_err(|_| {
                    OpError::new(
                        ErrorClass::Timeout,
                        format!("{what}: body not read within {t:?}"),
                    )
                })?,
            None => body.await,
        }
    }
}

/// A body for the SDK: one slice of the pool where the body lies in one, else streamed
/// slice by slice (and read again for a retry or a payload hash), never copied whole.
fn byte_stream(body: Payload) -> ByteStream {
    let mut chunks = body.chunks();
    match (chunks.next(), chunks.next()) {
        (None, _) => ByteStream::from(Bytes::new()),
        (Some(one), None) => ByteStream::from(one),
        _ => ByteStream::new(aws_smithy_types::body::SdkBody::retryable(move || {
            aws_smithy_types::body::SdkBody::from_body_1_x(body.clone().into_body())
        })),
    }
}

impl ObjectCalls for SdkClient {
    async fn put_object(
        &self,
        bucket: &str,
        key: &str,
        body: Payload,
        metadata: &[(String, String)],
    ) -> Result<(), OpError> {
        let meta: Option<HashMap<String, String>> =
            (!metadata.is_empty()).then(|| metadata.iter().cloned().collect());
        let req = self
            .client
            .put_object()
            .bucket(bucket)
            .key(key)
            .body(byte_stream(body))
            .set_metadata(meta);
        let r = if self.payload_signing {
            req.send().await
        } else {
            req.customize().disable_payload_signing().send().await
        };
        r.map(|_| ()).map_err(|e| classify(e, "PUT"))
    }

    /// GetObject streaming the body through `sink` chunk by chunk.
    async fn get_object_to(
        &self,
        bucket: &str,
        key: &str,
        range: Option<(u64, u64)>,
        sink: &mut (dyn FnMut(&[u8]) -> std::io::Result<()> + Send),
    ) -> Result<GetOutcome, OpError> {
        let start = Instant::now();
        let out = self
            .client
            .get_object()
            .bucket(bucket)
            .key(key)
            .set_range(range.map(|(a, b)| format!("bytes={a}-{b}")))
            .send()
            .await
            .map_err(|e| classify(e, "GET"))?;
        let headers_at = start.elapsed();
        let md5 = out.e_tag().and_then(md5_of_etag);
        let mut body = out.body;
        let mut bytes = 0u64;
        let mut ttfb = None;
        let stream = async {
            while let Some(chunk) = body.next().await {
                let chunk = chunk.map_err(|e| {
                    OpError::new(
                        ErrorClass::Connection,
                        format!("GET body: {}", classify::plain(&e)),
                    )
                })?;
                ttfb.get_or_insert_with(|| start.elapsed());
                bytes += chunk.len() as u64;
                sink(&chunk).map_err(|e| {
                    OpError::new(ErrorClass::Other, format!("GET body: cannot write: {e}"))
                })?;
            }
            Ok::<(), OpError>(())
        };
        self.within_timeout(headers_at, stream, "GET").await?;
        Ok(GetOutcome {
            bytes,
            ttfb: ttfb.unwrap_or(headers_at),
            md5,
        })
    }

    async fn get_object_bytes(&self, bucket: &str, key: &str) -> Result<Bytes, OpError> {
        let start = Instant::now();
        let out = self
            .client
            .get_object()
            .bucket(bucket)
            .key(key)
            .send()
            .await
            .map_err(|e| classify(e, "GET"))?;
        let body = async {
            out.body
                .collect()
                .await
                .map(|d| d.into_bytes())
                .map_err(|e| OpError::new(ErrorClass::Connection, format!("GET body: {e}")))
        };
        self.within_timeout(start.elapsed(), body, "GET").await
    }

    async fn head_object(&self, bucket: &str, key: &str) -> Result<HeadOutcome, OpError> {
        let out = self
            .client
            .head_object()
            .bucket(bucket)
            .key(key)
            .send()
            .await
            .map_err(|e| classify(e, "HEAD"))?;
        let mut metadata: Vec<(String, String)> = out
            .metadata()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.to_lowercase(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        metadata.sort();
        Ok(HeadOutcome {
            size: out.content_length().unwrap_or(0).max(0) as u64,
            etag: out.e_tag().map(str::to_string),
            last_modified: out
                .last_modified()
                .and_then(|t| t.fmt(aws_smithy_types::date_time::Format::HttpDate).ok()),
            metadata,
        })
    }

    async fn delete_object(&self, bucket: &str, key: &str) -> Result<(), OpError> {
        self.client
            .delete_object()
            .bucket(bucket)
            .key(key)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| classify(e, "DELETE"))
    }

    async fn delete_objects(
        &self,
        bucket: &str,
        keys: &[String],
    ) -> Result<DeleteManyOutcome, OpError> {
        let objects = keys
            .iter()
            .map(|k| ObjectIdentifier::builder().key(k).build())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| OpError::new(ErrorClass::Other, format!("DeleteObjects: {e}")))?;
        let delete = Delete::builder()
            .set_objects(Some(objects))
            .quiet(true)
            .build()
            .map_err(|e| OpError::new(ErrorClass::Other, format!("DeleteObjects: {e}")))?;
        let out = self
            .client
            .delete_objects()
            .bucket(bucket)
            .delete(delete)
            .send()
            .await
            .map_err(|e| classify(e, "DeleteObjects"))?;
        let errors: Vec<(String, String)> = out
            .errors()
            .iter()
            .map(|e| {
                (
                    e.key().unwrap_or_default().to_string(),
                    e.code().unwrap_or_default().to_string(),
                )
            })
            .collect();
        Ok(DeleteManyOutcome {
            deleted: keys.len() as u64 - errors.len() as u64,
            errors,
        })
    }

    async fn list_objects_v2(
        &self,
        bucket: &str,
        request: &ListRequest,
    ) -> Result<ListPage, OpError> {
        let out = self
            .client
            .list_objects_v2()
            .bucket(bucket)
            .set_prefix(request.prefix.clone())
            .set_delimiter(request.delimiter.clone())
            .set_max_keys(request.max_keys.map(|n| n as i32))
            .set_continuation_token(request.continuation_token.clone())
            .set_start_after(request.start_after.clone())
            .send()
            .await
            .map_err(|e| classify(e, "LIST"))?;
        Ok(ListPage {
            entries: out
                .contents()
                .iter()
                .map(|o| ListEntry {
                    key: o.key().unwrap_or_default().to_string(),
                    size: o.size().unwrap_or(0).max(0) as u64,
                    etag: o.e_tag().map(str::to_string),
                    last_modified: o
                        .last_modified()
                        .and_then(|t| t.fmt(aws_smithy_types::date_time::Format::DateTime).ok()),
                    storage_class: o.storage_class().map(|c| storage_class(c.as_str())),
                })
                .collect(),
            common_prefixes: out
                .common_prefixes()
                .iter()
                .filter_map(|p| p.prefix().map(str::to_string))
                .collect(),
            is_truncated: out.is_truncated().unwrap_or(false),
            next_continuation_token: out.next_continuation_token().map(str::to_string),
        })
    }

    async fn create_bucket(&self, bucket: &str) -> Result<bool, OpError> {
        let region = self
            .client
            .config()
            .region()
            .map(|r| r.to_string())
            .unwrap_or_default();
        let config = (region != "us-east-1" && !region.is_empty()).then(|| {
            CreateBucketConfiguration::builder()
                .location_constraint(BucketLocationConstraint::from(region.as_str()))
                .build()
        });
        match self
            .client
            .create_bucket()
            .bucket(bucket)
            .set_create_bucket_configuration(config)
            .send()
            .await
        {
            Ok(_) => Ok(true),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_bucket_already_owned_by_you()) =>
            {
                Ok(false)
            }
            Err(e) => Err(classify(e, "CreateBucket")),
        }
    }

    async fn bucket_exists(&self, bucket: &str) -> Result<bool, OpError> {
        match self.client.head_bucket().bucket(bucket).send().await {
            Ok(_) => Ok(true),
            Err(e) if http_status(&e) == Some(404) => Ok(false),
            Err(e) => Err(classify(e, "HeadBucket")),
        }
    }

    async fn delete_bucket(&self, bucket: &str) -> Result<(), OpError> {
        self.client
            .delete_bucket()
            .bucket(bucket)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| classify(e, "DeleteBucket"))
    }
}

impl MultipartCalls for SdkClient {
    async fn create_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        metadata: &[(String, String)],
    ) -> Result<String, OpError> {
        let meta: Option<HashMap<String, String>> =
            (!metadata.is_empty()).then(|| metadata.iter().cloned().collect());
        let out = self
            .client
            .create_multipart_upload()
            .bucket(bucket)
            .key(key)
            .set_metadata(meta)
            .send()
            .await
            .map_err(|e| classify(e, "CreateMultipartUpload"))?;
        out.upload_id
            .ok_or_else(|| OpError::new(ErrorClass::Other, "CreateMultipartUpload: no UploadId"))
    }

    async fn upload_part(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        number: u32,
        body: Payload,
    ) -> Result<String, OpError> {
        let req = self
            .client
            .upload_part()
            .bucket(bucket)
            .key(key)
            .upload_id(upload_id)
            .part_number(number as i32)
            .body(byte_stream(body));
        let r = if self.payload_signing {
            req.send().await
        } else {
            req.customize().disable_payload_signing().send().await
        };
        r.map_err(|e| classify(e, "UploadPart"))?
            .e_tag
            .ok_or_else(|| OpError::new(ErrorClass::Other, "UploadPart: no ETag"))
    }

    async fn complete_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> Result<String, OpError> {
        let completed = CompletedMultipartUpload::builder()
            .set_parts(Some(
                parts
                    .iter()
                    .map(|(n, etag)| {
                        CompletedPart::builder()
                            .part_number(*n as i32)
                            .e_tag(etag)
                            .build()
                    })
                    .collect(),
            ))
            .build();
        let out = self
            .client
            .complete_multipart_upload()
            .bucket(bucket)
            .key(key)
            .upload_id(upload_id)
            .multipart_upload(completed)
            .send()
            .await
            .map_err(|e| classify(e, "CompleteMultipartUpload"))?;
        out.e_tag
            .ok_or_else(|| OpError::new(ErrorClass::Other, "CompleteMultipartUpload: no ETag"))
    }

    async fn abort_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> Result<(), OpError> {
        self.client
            .abort_multipart_upload()
            .bucket(bucket)
            .key(key)
            .upload_id(upload_id)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| classify(e, "AbortMultipartUpload"))
    }
}
