//! Request bodies that become object bytes (PUT, UploadPart): read frame by frame into
//! one allocation of exactly the body's size, never kept as slices of the connection's
//! read buffers (a small object would pin a buffer many times its size), and not kept
//! at all in size-only mode, where only the length and MD5 are needed.

use bytes::Bytes;
use http::HeaderMap;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use md5::{Digest, Md5};

use crate::data::Data;

/// Largest request body accepted (S3's single-PUT limit is larger; this is a test target).
pub const MAX_BODY: usize = 1 << 30;

/// What a body held.
#[derive(Debug)]
pub struct Payload {
    pub len: u64,
    pub md5: [u8; 16],
    /// The bytes, when asked to keep them.
    pub data: Option<Data>,
}

/// Whether the body is `aws-chunked` (streaming signatures or trailing checksums).
pub fn aws_chunked(headers: &HeaderMap) -> bool {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    header("content-encoding").is_some_and(|v| v.contains("aws-chunked"))
        || header("x-amz-content-sha256").is_some_and(|v| v.starts_with("STREAMING-"))
}

/// The payload length the request announces (for aws-chunked bodies, the decoded one).
pub fn announced_len(headers: &HeaderMap) -> Option<u64> {
    let name = if aws_chunked(headers) {
        "x-amz-decoded-content-length"
    } else {
        "content-length"
    };
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// Whether the request says how long its body is: a Content-Length, or a chunked
/// encoding (S3 and RGW answer a PUT with neither 411 MissingContentLength).
pub fn has_length(headers: &HeaderMap) -> bool {
    headers.contains_key(http::header::CONTENT_LENGTH)
        || headers.contains_key(http::header::TRANSFER_ENCODING)
}

/// Whether the client waits for `100 Continue` before it sends the body (then a
/// refusal needs no body read to keep the connection usable).
pub fn expects_continue(headers: &HeaderMap) -> bool {
    headers
        .get(http::header::EXPECT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
}

/// Why a request body could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("cannot read the body: {0}")]
    Read(Box<dyn std::error::Error + Send + Sync>),
    #[error("cannot read the body: it is larger than the target's limit of {}", crate::budget::human(MAX_BODY as u64))]
    TooLarge,
    #[error("the body is longer than its Content-Length")]
    Longer,
    #[error("the body is shorter than its Content-Length")]
    Shorter,
    #[error(transparent)]
    Chunked(#[from] crate::chunked::ChunkedError),
}

/// Reads the whole body: its length and MD5, and with `keep` its bytes.
pub async fn read(body: Incoming, headers: &HeaderMap, keep: bool) -> Result<Payload, BodyError> {
    let mut body = http_body_util::Limited::new(body, MAX_BODY);
    if aws_chunked(headers) {
        let raw = body.collect().await.map_err(BodyError::Read)?.to_bytes();
        let decoded = crate::chunked::decode(&raw)?;
        return Ok(Payload {
            len: decoded.len() as u64,
            md5: Md5::digest(&decoded).into(),
            data: keep.then(|| Data::from(decoded.as_slice())),
        });
    }
    let announced = announced_len(headers);
    if announced.is_some_and(|n| n > MAX_BODY as u64) {
        return Err(BodyError::TooLarge);
    }
    let mut sink = match (keep, announced) {
        (false, _) => Sink::Count,
        (true, Some(n)) => Sink::Exact(vec![0; n as usize].into_boxed_slice(), 0),
        (true, None) => Sink::Grow(Vec::new()),
    };
    let mut md5 = Md5::new();
    let mut len = 0u64;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(BodyError::Read)?;
        if let Ok(data) = frame.into_data() {
            md5.update(&data);
            len += data.len() as u64;
            sink.take(&data)?;
        }
    }
    Ok(Payload {
        len,
        md5: md5.finalize().into(),
        data: sink.finish()?,
    })
}

/// Reads and drops a body, so the connection stays usable after a refusal.
pub async fn drain(body: Incoming) {
    let mut body = body;
    while let Some(Ok(_)) = body.frame().await {}
}

/// Where a body's frames go.
enum Sink {
    Count,
    /// Announced length: the final allocation, filled up to the offset.
    Exact(Box<[u8]>, usize),
    /// No length announced: gathered, then copied once into an exact allocation.
    Grow(Vec<u8>),
}

impl Sink {
    fn take(&mut self, data: &Bytes) -> Result<(), BodyError> {
        match self {
            Sink::Count => {}
            Sink::Exact(buf, at) => {
                let end = *at + data.len();
                let Some(dst) = buf.get_mut(*at..end) else {
                    return Err(BodyError::Longer);
                };
                dst.copy_from_slice(data);
                *at = end;
            }
            Sink::Grow(v) => v.extend_from_slice(data),
        }
        Ok(())
    }

    fn finish(self) -> Result<Option<Data>, BodyError> {
        match self {
            Sink::Count => Ok(None),
            Sink::Exact(buf, at) if at == buf.len() => Ok(Some(Data::from(buf))),
            Sink::Exact(..) => Err(BodyError::Shorter),
            // Copied: the Vec's spare capacity is not kept.
            Sink::Grow(v) => Ok(Some(Data::from(v.as_slice()))),
        }
    }
}
