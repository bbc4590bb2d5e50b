//! S3 access behind one small interface with two implementations.
//!
//! `sdk` is aws-sdk-s3 (full compatibility); `fast` is a lean hyper + aws-sigv4 +
//! quick-xml client for the hot operations, because the SDK spends several times more
//! client CPU per request than the request itself needs. Dispatch is a plain enum so
//! the hot path has no boxing and no dynamic futures.

mod classify;
pub mod config;
pub mod credentials;
pub mod fast;
pub mod sdk;

use bytes::Bytes;

pub use config::{ClientConfig, ClientKind, Credentials, TlsConfig};

use crate::ops::OpError;

/// Result of a GET: bytes streamed (and discarded) and time to the first body byte.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GetOutcome {
    pub bytes: u64,
    pub ttfb: std::time::Duration,
}

/// Result of a HEAD: what a storage engineer asks a HEAD for.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadOutcome {
    pub size: u64,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// User metadata, names without the `x-amz-meta-` prefix, lower-case.
    pub metadata: Vec<(String, String)>,
}

/// One ListObjects request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListRequest {
    pub prefix: Option<String>,
    pub delimiter: Option<String>,
    pub max_keys: Option<u32>,
    pub continuation_token: Option<String>,
    pub start_after: Option<String>,
    /// Only keys and sizes are wanted: a client may leave ETags and dates out of the
    /// entries (the fast client does, to spend less CPU per key).
    pub keys_and_sizes_only: bool,
}

/// One listed object.
#[derive(Debug, Clone, PartialEq)]
pub struct ListEntry {
    pub key: String,
    pub size: u64,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// One page of a ListObjectsV2 response.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListPage {
    pub entries: Vec<ListEntry>,
    pub common_prefixes: Vec<String>,
    pub is_truncated: bool,
    pub next_continuation_token: Option<String>,
}

/// Result of DeleteObjects: how many keys were deleted and the keys that failed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeleteManyOutcome {
    pub deleted: u64,
    pub errors: Vec<(String, String)>,
}

/// A shared S3 client; clone is cheap (it shares the connection pool).
#[derive(Clone)]
pub enum S3Client {
    Fast(std::sync::Arc<fast::FastClient>),
    Sdk(sdk::SdkClient),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $call:expr) => {
        match $self {
            S3Client::Fast($c) => $call,
            S3Client::Sdk($c) => $call,
        }
    };
}

impl S3Client {
    /// Builds the client the config asks for, with its pool sized to the concurrency.
    pub async fn connect(config: &ClientConfig) -> Result<S3Client, OpError> {
        Ok(match config.kind {
            ClientKind::Fast => S3Client::Fast(std::sync::Arc::new(fast::FastClient::new(config)?)),
            ClientKind::Sdk => S3Client::Sdk(sdk::SdkClient::new(config).await?),
        })
    }

    pub fn kind(&self) -> ClientKind {
        match self {
            S3Client::Fast(_) => ClientKind::Fast,
            S3Client::Sdk(_) => ClientKind::Sdk,
        }
    }

    /// PutObject with user metadata (names without `x-amz-meta-`).
    pub async fn put_object(
        &self,
        bucket: &str,
        key: &str,
        body: Bytes,
        metadata: &[(String, String)],
    ) -> Result<(), OpError> {
        dispatch!(self, c => c.put_object(bucket, key, body, metadata).await)
    }

    /// GetObject, optionally a byte range (inclusive, as in the Range header).
    pub async fn get_object(
        &self,
        bucket: &str,
        key: &str,
        range: Option<(u64, u64)>,
    ) -> Result<GetOutcome, OpError> {
        dispatch!(self, c => c.get_object(bucket, key, range).await)
    }

    /// GetObject streaming the body through `sink` (a file, for downloads).
    pub async fn get_object_to(
        &self,
        bucket: &str,
        key: &str,
        range: Option<(u64, u64)>,
        sink: &mut (dyn FnMut(&[u8]) -> std::io::Result<()> + Send),
    ) -> Result<GetOutcome, OpError> {
        dispatch!(self, c => c.get_object_to(bucket, key, range, sink).await)
    }

    /// CreateMultipartUpload with user metadata; returns the upload id.
    pub async fn create_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        metadata: &[(String, String)],
    ) -> Result<String, OpError> {
        dispatch!(self, c => c.create_multipart_upload(bucket, key, metadata).await)
    }

    /// UploadPart `number` (1-based); returns the part's ETag.
    pub async fn upload_part(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        number: u32,
        body: Bytes,
    ) -> Result<String, OpError> {
        dispatch!(self, c => c.upload_part(bucket, key, upload_id, number, body).await)
    }

    /// CompleteMultipartUpload from (part number, ETag) in ascending order; returns the
    /// object's ETag.
    pub async fn complete_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> Result<String, OpError> {
        dispatch!(self, c => c.complete_multipart_upload(bucket, key, upload_id, parts).await)
    }

    pub async fn abort_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> Result<(), OpError> {
        dispatch!(self, c => c.abort_multipart_upload(bucket, key, upload_id).await)
    }

    /// GetObject returning the body, for verification and tests (not the hot path).
    pub async fn get_object_bytes(&self, bucket: &str, key: &str) -> Result<Bytes, OpError> {
        dispatch!(self, c => c.get_object_bytes(bucket, key).await)
    }

    pub async fn head_object(&self, bucket: &str, key: &str) -> Result<HeadOutcome, OpError> {
        dispatch!(self, c => c.head_object(bucket, key).await)
    }

    pub async fn delete_object(&self, bucket: &str, key: &str) -> Result<(), OpError> {
        dispatch!(self, c => c.delete_object(bucket, key).await)
    }

    /// DeleteObjects (up to 1000 keys).
    pub async fn delete_objects(
        &self,
        bucket: &str,
        keys: &[String],
    ) -> Result<DeleteManyOutcome, OpError> {
        dispatch!(self, c => c.delete_objects(bucket, keys).await)
    }

    /// One ListObjectsV2 page.
    pub async fn list_objects_v2(
        &self,
        bucket: &str,
        request: &ListRequest,
    ) -> Result<ListPage, OpError> {
        dispatch!(self, c => c.list_objects_v2(bucket, request).await)
    }

    /// CreateBucket; `Ok(true)` if created, `Ok(false)` if it already existed and is ours.
    pub async fn create_bucket(&self, bucket: &str) -> Result<bool, OpError> {
        dispatch!(self, c => c.create_bucket(bucket).await)
    }

    /// HeadBucket; `Ok(false)` on 404.
    pub async fn bucket_exists(&self, bucket: &str) -> Result<bool, OpError> {
        dispatch!(self, c => c.bucket_exists(bucket).await)
    }

    pub async fn delete_bucket(&self, bucket: &str) -> Result<(), OpError> {
        dispatch!(self, c => c.delete_bucket(bucket).await)
    }
}
