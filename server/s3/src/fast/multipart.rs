//! Multipart upload with the fast client: initiate, upload parts, complete, abort.
//! S3 can answer a completion with 200 and an error document, so the body is checked.

use std::time::Instant;

use bytes::Bytes;
use http::Method;

use super::{FastClient, Req, meta_headers, meta_names, xml};
use crate::backend::MultipartCalls;
use crate::classify;
use crate::payload::Payload;
use keystorm_types::{ErrorClass, OpError};

impl MultipartCalls for FastClient {
    async fn create_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        metadata: &[(String, String)],
    ) -> Result<String, OpError> {
        let names = meta_names(metadata);
        let headers = meta_headers(&names, metadata);
        let what = "CreateMultipartUpload";
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::POST,
                bucket,
                key,
                query: &[("uploads", "")],
                headers: &headers,
                body: Payload::default(),
                what,
            })
            .await?;
        let r = self.check(r, what).await?;
        let body = self.read_body(r, what).await?;
        xml::text_at(&body, &[b"InitiateMultipartUploadResult", b"UploadId"])
            .map_err(|m| OpError::new(ErrorClass::Other, format!("{what}: {m}")))?
            .ok_or_else(|| OpError::new(ErrorClass::Other, format!("{what}: no UploadId")))
    }

    /// Uploads part `number`; returns its ETag.
    async fn upload_part(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        number: u32,
        body: Payload,
    ) -> Result<String, OpError> {
        let n = number.to_string();
        let what = "UploadPart";
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::PUT,
                bucket,
                key,
                query: &[("partNumber", &n), ("uploadId", upload_id)],
                headers: &[],
                body,
                what,
            })
            .await?;
        let r = self.check(r, what).await?;
        let etag = r.headers().get("etag").map(str::to_string);
        self.read_body(r, what).await?;
        etag.ok_or_else(|| OpError::new(ErrorClass::Other, format!("{what}: no ETag")))
    }

    /// Completes the upload from its parts (number and ETag, ascending); returns the
    /// object's ETag.
    async fn complete_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
        parts: &[(u32, String)],
    ) -> Result<String, OpError> {
        let mut doc = String::from(
            "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">",
        );
        for (n, etag) in parts {
            doc.push_str(&format!(
                "<Part><PartNumber>{n}</PartNumber><ETag>{}</ETag></Part>",
                quick_xml::escape::escape(etag.as_str())
            ));
        }
        doc.push_str("</CompleteMultipartUpload>");
        let what = "CompleteMultipartUpload";
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::POST,
                bucket,
                key,
                query: &[("uploadId", upload_id)],
                headers: &[("content-type", "application/xml")],
                body: Payload::from(Bytes::from(doc)),
                what,
            })
            .await?;
        let status = r.status().as_u16();
        let r = self.check(r, what).await?;
        let body = self.read_body(r, what).await?;
        if let Some(code) = xml::error_code(&body) {
            return Err(classify::status(
                if status < 400 { 500 } else { status },
                Some(&code),
                what,
            ));
        }
        xml::text_at(&body, &[b"CompleteMultipartUploadResult", b"ETag"])
            .map_err(|m| OpError::new(ErrorClass::Other, format!("{what}: {m}")))?
            .ok_or_else(|| OpError::new(ErrorClass::Other, format!("{what}: no ETag")))
    }

    async fn abort_multipart_upload(
        &self,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> Result<(), OpError> {
        let what = "AbortMultipartUpload";
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::DELETE,
                bucket,
                key,
                query: &[("uploadId", upload_id)],
                headers: &[],
                body: Payload::default(),
                what,
            })
            .await?;
        let r = self.check(r, what).await?;
        self.read_body(r, what).await.map(|_| ())
    }
}
