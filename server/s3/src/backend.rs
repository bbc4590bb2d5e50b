//! The S3 interface, written once: the calls both clients make, one request per call.
//! [`ObjectCalls`] are objects, listings and buckets; [`MultipartCalls`] are multipart
//! uploads. The fast client and the SDK client implement both, so the compiler holds
//! them to the same calls with the same meaning; [`super::S3Client`] picks one and
//! retries its calls.

use std::future::Future;

use bytes::Bytes;

use super::payload::Payload;
use super::types::{DeleteManyOutcome, GetOutcome, HeadOutcome, ListPage, ListRequest};
use keystorm_types::OpError;

/// Objects, listings and buckets.
pub trait ObjectCalls: Send + Sync {
    /// PutObject with user metadata (names without `x-amz-meta-`).
    fn put_object(
        &self,
        bucket: &str,
        key: &str,
        body: Payload,
        metadata: &[(String, String)],
    ) -> impl Future<Output = Result<(), OpError>> + Send;

    /// GetObject, optionally a byte range (inclusive, as in the Range header); the body
    /// is read and discarded.
    fn get_object(
        &self,
        bucket: &str,
        key: &str,
        range: Option<(u64, u64)>,
    ) -> impl Future<Output = Result<GetOutcome, OpError>> + Send {
        async move {
            self.get_object_to(bucket, key, range, &mut |_| Ok(()))
                .await
        }
    }

    /// GetObject streaming the body through `sink` chunk by chunk.
    fn get_object_to(
        &self,
        bucket: &str,
        key: &str,
        range: Option<(u64, u64)>,
        sink: &mut (dyn FnMut(&[u8]) -> std::io::Result<()> + Send),
    ) -> impl Future<Output = Result<GetOutcome, OpError>> + Send;

    /// GetObject returning the body (verification and tests, not the hot path).
    fn get_object_bytes(
        &self,
        bucket: &str,
        key: &str,
    ) -> impl Future<Output = Result<Bytes, OpError>> + Send;

    /// HeadObject: size, ETag, date and user metadata.
    fn head_object(
        &self,
        bucket: &str,
        key: &str,
    ) -> impl Future<Output = Result<HeadOutcome, OpError>> + Send;

    fn delete_object(
        &self,
        bucket: &str,
        key: &str,
    ) -> impl Future<Output = Result<(), OpError>> + Send;

    /// DeleteObjects (up to 1000 keys).
    fn delete_objects(
        &self,
        bucket: &str,
        keys: &[String],
    ) -> impl Future<Output = Result<DeleteManyOutcome, OpError>> + Send;

    /// One ListObjectsV2 page.
    fn list_objects_v2(
        &self,
        bucket: &str,
        request: &ListRequest,
    ) -> impl Future<Output = Result<ListPage, OpError>> + Send;

    /// CreateBucket; `Ok(true)` if created, `Ok(false)` if it already existed and is ours.
    fn create_bucket(&self, bucket: &str) -> impl Future<Output = Result<bool, OpError>> + Send;

    /// HeadBucket; `Ok(false)` on 404.
    fn bucket_exists(&self, bucket: &str) -> impl Future<Output = Result<bool, OpError>> + Send;

    fn delete_bucket(&self, bucket: &str) -> impl Future<Output = Result<(), OpError>> + Send;
}

/// Multipart uploads.
pub trait MultipartCalls: Send + Sync {
    /// CreateMultipartUpload with user metadata; returns the upload id.
    fn create_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        metadata: &[(String, String)],
    ) -> impl Future<Output = Result<String, OpError>> + Send;

    /// UploadPart `number` (1-based); returns the part's ETag.
    fn upload_part(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        number: u32,
        body: Payload,
    ) -> impl Future<Output = Result<String, OpError>> + Send;

    /// CompleteMultipartUpload from (part number, ETag) in ascending order; returns the
    /// object's ETag. S3 can answer 200 with an error document: that is an error.
    fn complete_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> impl Future<Output = Result<String, OpError>> + Send;

    fn abort_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> impl Future<Output = Result<(), OpError>> + Send;
}
