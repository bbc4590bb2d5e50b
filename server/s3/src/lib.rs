//! keystorm's S3 clients: S3 access behind one small interface with two
//! implementations, counting failures by the error classes of `keystorm-types`, and
//! where credentials come from (`keystorm_types::CredentialSource`, resolved by
//! [`credentials`]). A crate of its own so that whatever talks to stores (the engine
//! that drives phases, the command line's listing and transfers) shares one client,
//! and nothing here knows about workloads or runs.
//!
//! `sdk` is aws-sdk-s3 (full compatibility); `fast` is a lean HTTP/1.1 + SigV4 +
//! quick-xml client for the hot operations, because the SDK spends several times more
//! client CPU per request than the request itself needs. Both implement the calls of
//! [`backend`], written once. Dispatch is a plain enum so the fast client's calls have
//! no boxing and no dynamic futures (the SDK's are boxed, see `dispatch!`). Both make
//! one attempt per call;
//! retries are keystorm's own (`retry`), so they behave and count the same whichever
//! client runs.

pub mod arrival;
mod backend;
mod classify;
pub mod config;
pub mod credentials;
pub mod fast;
pub mod payload;
pub mod retry;
pub mod sdk;
mod types;

use bytes::Bytes;

pub use config::{ClientConfig, TlsConfig};
pub use payload::Payload;
pub use types::{DeleteManyOutcome, GetOutcome, HeadOutcome, ListPage, ListRequest, md5_of_etag};

use backend::{MultipartCalls, ObjectCalls};
use keystorm_types::{ClientKind, OpError};

/// A shared S3 client; clone is cheap (it shares the connection pool). Each call is
/// retried as configured, by one loop for both backends ([`retry`]).
#[derive(Clone)]
pub struct S3Client {
    backend: Backend,
    retries: u32,
}

/// The client that makes the attempts: one request per call.
#[derive(Clone)]
enum Backend {
    Fast(std::sync::Arc<fast::FastClient>),
    Sdk(sdk::SdkClient),
}

/// Awaits `$call` on the backend. The SDK's futures are boxed: they are three to four
/// times the size of the fast client's (6.7-9.8 KB against 2.4-3.2 KB for a PUT, GET
/// or HEAD), and unboxed they would set the size of every future that awaits a call,
/// which is copied as it is built and handed down, whichever client runs.
macro_rules! dispatch {
    ($self:ident, $c:ident => $call:expr) => {
        match &$self.backend {
            Backend::Fast($c) => $call.await,
            Backend::Sdk($c) => Box::pin($call).await,
        }
    };
}

/// One call of `$call` on the backend per attempt, retried as configured. What the
/// call uses is copied into each attempt, so it must be references or `Copy`.
macro_rules! retried {
    ($self:ident, $c:ident => $call:expr) => {
        retry::run($self.retries, |_| {}, || async move {
            dispatch!($self, $c => $call)
        })
        .await
    };
}

impl S3Client {
    /// Builds the client the config asks for, its connection pool keeping `pool_size`
    /// idle connections per host.
    pub async fn connect(config: &ClientConfig) -> Result<S3Client, OpError> {
        let backend = match config.kind {
            ClientKind::Fast => Backend::Fast(std::sync::Arc::new(fast::FastClient::new(config)?)),
            ClientKind::Sdk => Backend::Sdk(sdk::SdkClient::new(config).await?),
        };
        Ok(S3Client {
            backend,
            retries: config.retries,
        })
    }

    /// Whether calls inside [`arrival::timed`] learn when their responses reached the
    /// socket: the `fast` client, where the kernel stamps received data.
    pub fn times_arrival(&self) -> bool {
        matches!(self.backend, Backend::Fast(_)) && arrival::kernel_stamps()
    }

    pub fn kind(&self) -> ClientKind {
        match self.backend {
            Backend::Fast(_) => ClientKind::Fast,
            Backend::Sdk(_) => ClientKind::Sdk,
        }
    }

    /// Retries after a failed attempt (of a 5xx, timeout or connection failure).
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The same client (sharing its pool) making one attempt per call, for callers
    /// that retry on their own and count every attempt (see [`retry::run`]).
    pub fn without_retries(&self) -> S3Client {
        S3Client {
            backend: self.backend.clone(),
            retries: 0,
        }
    }

    /// PutObject with user metadata (names without `x-amz-meta-`).
    pub async fn put_object(
        &self,
        bucket: &str,
        key: &str,
        body: impl Into<Payload>,
        metadata: &[(String, String)],
    ) -> Result<(), OpError> {
        let body = &body.into();
        retried!(self, c => c.put_object(bucket, key, body.clone(), metadata))
    }

    /// GetObject, optionally a byte range (inclusive, as in the Range header). The body
    /// is discarded, so a failure while reading it is retried like any other.
    pub async fn get_object(
        &self,
        bucket: &str,
        key: &str,
        range: Option<(u64, u64)>,
    ) -> Result<GetOutcome, OpError> {
        retried!(self, c => c.get_object(bucket, key, range))
    }

    /// GetObject streaming the body through `sink` (a file, for downloads). A failed
    /// attempt is retried only while `sink` has not been given any bytes.
    pub async fn get_object_to(
        &self,
        bucket: &str,
        key: &str,
        range: Option<(u64, u64)>,
        sink: &mut (dyn FnMut(&[u8]) -> std::io::Result<()> + Send),
    ) -> Result<GetOutcome, OpError> {
        let mut left = self.retries;
        loop {
            let mut delivered = false;
            let mut counting = |chunk: &[u8]| {
                delivered |= !chunk.is_empty();
                sink(chunk)
            };
            let r = dispatch!(self, c => c.get_object_to(bucket, key, range, &mut counting));
            match r {
                Err(e) if left > 0 && !delivered && retry::retriable(e.class) => left -= 1,
                r => return r,
            }
        }
    }

    /// CreateMultipartUpload with user metadata; returns the upload id.
    pub async fn create_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        metadata: &[(String, String)],
    ) -> Result<String, OpError> {
        retried!(self, c => c.create_multipart_upload(bucket, key, metadata))
    }

    /// UploadPart `number` (1-based); returns the part's ETag.
    pub async fn upload_part(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        number: u32,
        body: impl Into<Payload>,
    ) -> Result<String, OpError> {
        let body = &body.into();
        retried!(self, c => c.upload_part(bucket, key, upload_id, number, body.clone()))
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
        retried!(self, c => c.complete_multipart_upload(bucket, key, upload_id, parts))
    }

    pub async fn abort_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> Result<(), OpError> {
        retried!(self, c => c.abort_multipart_upload(bucket, key, upload_id))
    }

    /// GetObject returning the body, for verification and tests (not the hot path).
    pub async fn get_object_bytes(&self, bucket: &str, key: &str) -> Result<Bytes, OpError> {
        retried!(self, c => c.get_object_bytes(bucket, key))
    }

    pub async fn head_object(&self, bucket: &str, key: &str) -> Result<HeadOutcome, OpError> {
        retried!(self, c => c.head_object(bucket, key))
    }

    pub async fn delete_object(&self, bucket: &str, key: &str) -> Result<(), OpError> {
        retried!(self, c => c.delete_object(bucket, key))
    }

    /// DeleteObjects (up to 1000 keys).
    pub async fn delete_objects(
        &self,
        bucket: &str,
        keys: &[String],
    ) -> Result<DeleteManyOutcome, OpError> {
        retried!(self, c => c.delete_objects(bucket, keys))
    }

    /// One ListObjectsV2 page.
    pub async fn list_objects_v2(
        &self,
        bucket: &str,
        request: &ListRequest,
    ) -> Result<ListPage, OpError> {
        retried!(self, c => c.list_objects_v2(bucket, request))
    }

    /// CreateBucket; `Ok(true)` if created, `Ok(false)` if it already existed and is ours.
    pub async fn create_bucket(&self, bucket: &str) -> Result<bool, OpError> {
        retried!(self, c => c.create_bucket(bucket))
    }

    /// HeadBucket; `Ok(false)` on 404.
    pub async fn bucket_exists(&self, bucket: &str) -> Result<bool, OpError> {
        retried!(self, c => c.bucket_exists(bucket))
    }

    pub async fn delete_bucket(&self, bucket: &str) -> Result<(), OpError> {
        retried!(self, c => c.delete_bucket(bucket))
    }
}
