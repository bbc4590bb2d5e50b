//! The `fast` client: HTTP/1.1 of its own (the requesting task writes and reads on
//! a connection it holds; see [`wire`]), a SigV4 signer of its own and a streaming XML
//! parser, for the hot operations. It spends a fraction of the SDK's client CPU per
//! request, so the numbers measure the target rather than the load generator.

mod clock_pair;
mod multipart;
pub mod sign;
pub(crate) mod stamped;
mod text;
mod tls;
mod uri;
mod wire;
mod xml;

pub use tls::TlsError;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, StatusCode};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use super::{
    ClientConfig, DeleteManyOutcome, GetOutcome, HeadOutcome, ListPage, ListRequest, classify,
    md5_of_etag,
};
use crate::backend::ObjectCalls;
use crate::payload::{Payload, PayloadBody};
use keystorm_types::{ErrorClass, OpError};
use sign::Outgoing;
use wire::{Response, Wire, WireError};

/// A general-purpose pooled hyper client, for the few calls off the hot path that
/// speak other APIs (RGW's admin API).
pub type Http = Client<HttpsConnector<HttpConnector>, PayloadBody>;

/// A pooled HTTP/1.1 client over plain TCP (no Nagle) or TLS, keeping up to `pool_size`
/// idle connections per host.
pub fn http_client(tls_config: &super::TlsConfig, pool_size: usize) -> Result<Http, tls::TlsError> {
    let tls = tls::client_config(tls_config)?;
    let mut http = HttpConnector::new();
    http.set_nodelay(true);
    http.enforce_http(false);
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(pool_size.max(1))
        .pool_idle_timeout(Duration::from_secs(90))
        .build(connector))
}

pub struct FastClient {
    wire: Wire,
    base: uri::Base,
    signer: Arc<sign::Signer>,
    timeout: Option<Duration>,
    region: String,
}

/// One request to send.
struct Req<'a> {
    /// When the call began: the request is signed with this time, and it and the body
    /// of its answer are read within the timeout from it.
    start: Instant,
    method: Method,
    bucket: &'a str,
    key: &'a str,
    query: &'a [(&'a str, &'a str)],
    headers: &'a [(&'a str, &'a str)],
    body: Payload,
    what: &'a str,
}

/// `x-amz-meta-NAME` header names for user metadata.
fn meta_names(metadata: &[(String, String)]) -> Vec<String> {
    metadata
        .iter()
        .map(|(k, _)| format!("x-amz-meta-{k}"))
        .collect()
}

/// The metadata headers, names from [`meta_names`].
fn meta_headers<'a>(
    names: &'a [String],
    metadata: &'a [(String, String)],
) -> Vec<(&'a str, &'a str)> {
    names
        .iter()
        .zip(metadata)
        .map(|(n, (_, v))| (n.as_str(), v.as_str()))
        .collect()
}

/// What is wrong with a request header, if anything: names are lower-case tokens,
/// values have no line breaks or other control characters.
fn header_fault(name: &str, value: &str) -> Option<String> {
    let token =
        |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(token) {
        return Some(format!("header name {name:?}"));
    }
    if !value
        .bytes()
        .all(|b| b == b'\t' || (b >= b' ' && b != 0x7f))
    {
        return Some(format!("value of header {name} has a control character"));
    }
    None
}

/// Bodies of error responses are read up to this size (to find the S3 error code).
const MAX_ERROR_BODY: usize = 64 * 1024;

/// A failed exchange as an error of its class: a timeout, or the connection's.
fn wire_error(e: &WireError, what: &str) -> OpError {
    let class = match e.io().map(std::io::Error::kind) {
        Some(std::io::ErrorKind::TimedOut) => ErrorClass::Timeout,
        _ => ErrorClass::Connection,
    };
    OpError::new(class, format!("{what}: {e}"))
}

impl FastClient {
    pub fn new(config: &ClientConfig) -> Result<Self, OpError> {
        let other = |m: String| OpError::new(ErrorClass::Other, m);
        if config.checksums {
            return Err(other(
                "request checksums are not supported by client: fast; use client: sdk".into(),
            ));
        }
        let base = uri::Base::parse(&config.endpoint, config.path_style)
            .map_err(|e| other(e.to_string()))?;
        let mut tls = tls::client_config(&config.tls).map_err(|e| other(e.to_string()))?;
        // Turns the kernel's receive stamps on before the first request (see there).
        crate::arrival::kernel_stamps();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(FastClient {
            wire: Wire::new(Some(Arc::new(tls)), config.pool_size),
            base,
            signer: Arc::new(sign::Signer::new(
                &config.credentials,
                &config.region,
                config.payload_signing,
            )),
            timeout: config.timeout,
            region: config.region.clone(),
        })
    }

    /// Builds, signs and sends one request, once (retries are the caller's, see
    /// `s3::retry`). The response comes back with its body unread.
    async fn send(&self, r: Req<'_>) -> Result<Answer<'_>, OpError> {
        let Req {
            start,
            method,
            bucket,
            key,
            query,
            headers,
            body,
            what,
        } = r;
        let bad = |m: String| OpError::new(ErrorClass::Other, format!("{what}: {m}"));
        if let Some(fault) = headers.iter().find_map(|(n, v)| header_fault(n, v)) {
            return Err(bad(format!("bad request: {fault}")));
        }
        // RGW answers a PUT or POST without a length with 411 MissingContentLength (a
        // 0-byte object, an empty part); the length is signed like the rest.
        let headers: Cow<'_, [(&str, &str)]> =
            if body.is_empty() && (method == Method::PUT || method == Method::POST) {
                let mut with_length = headers.to_vec();
                with_length.push(("content-length", "0"));
                Cow::Owned(with_length)
            } else {
                Cow::Borrowed(headers)
            };
        let mut target = String::with_capacity(bucket.len() + key.len() * 3 + 32);
        self.base.target_into(&mut target, bucket, key, query);
        let host = self.base.host(bucket);
        let request = Outgoing {
            method: method.as_str(),
            target: &target,
            host: &host,
            headers: &headers,
        };
        let signed = self
            .signer
            .sign_outgoing(&request, self.signer.payload_hash(&body), start)
            .map_err(|e| bad(e.to_string()))?;
        let peer = self.base.peer(bucket);
        let send = self.wire.exchange(&peer, &request, &signed, &body);
        let deadline = self.timeout.and_then(|t| start.checked_add(t));
        let response = match deadline {
            Some(at) => timeout_at(at, send)
                .await
                .map_err(|_| self.timed_out(what, "no response"))?,
            None => send.await,
        }
        .map_err(|e| wire_error(&e, what))?;
        Ok(Answer { response, deadline })
    }

    /// Turns a non-success answer into an error, with S3's code from the body.
    async fn check<'a>(&self, mut answer: Answer<'a>, what: &str) -> Result<Answer<'a>, OpError> {
        if answer.status().is_success() {
            return Ok(answer);
        }
        let status = answer.status().as_u16();
        let deadline = answer.deadline;
        let read = answer.body(MAX_ERROR_BODY);
        let body = match deadline {
            Some(at) => timeout_at(at, read).await.ok().and_then(Result::ok),
            None => read.await.ok(),
        }
        .unwrap_or_default();
        Err(classify::with_message(
            classify::status(status, xml::error_code(&body).as_deref(), what),
            xml::error_message(&body).as_deref(),
        ))
    }

    /// Reads a whole (small) answer body, within the timeout.
    async fn read_body(&self, mut answer: Answer<'_>, what: &str) -> Result<Bytes, OpError> {
        let deadline = answer.deadline;
        let collect = answer.body(usize::MAX);
        let collected = match deadline {
            Some(at) => timeout_at(at, collect)
                .await
                .map_err(|_| self.timed_out(what, "body not read"))?,
            None => collect.await,
        };
        collected.map(Bytes::from).map_err(|e| wire_error(&e, what))
    }

    /// The error of a call `what` whose answer (`waited_for`: its head, or its body)
    /// did not come within the timeout.
    fn timed_out(&self, what: &str, waited_for: &str) -> OpError {
        let t = self.timeout.unwrap_or_default();
        OpError::new(
            ErrorClass::Timeout,
            format!("{what}: {waited_for} within {t:?}"),
        )
    }
}

/// A response, and when its request must be over (its body read) by: its start and
/// the timeout, one clock reading for the whole call.
struct Answer<'a> {
    response: Response<'a>,
    deadline: Option<Instant>,
}

impl<'a> std::ops::Deref for Answer<'a> {
    type Target = Response<'a>;

    fn deref(&self) -> &Response<'a> {
        &self.response
    }
}

impl std::ops::DerefMut for Answer<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.response
    }
}

/// `future`, or a timeout at `deadline`.
fn timeout_at<F: std::future::Future>(deadline: Instant, future: F) -> tokio::time::Timeout<F> {
    tokio::time::timeout_at(tokio::time::Instant::from_std(deadline), future)
}

impl ObjectCalls for FastClient {
    async fn put_object(
        &self,
        bucket: &str,
        key: &str,
        body: Payload,
        metadata: &[(String, String)],
    ) -> Result<(), OpError> {
        let names = meta_names(metadata);
        let headers = meta_headers(&names, metadata);
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::PUT,
                bucket,
                key,
                query: &[],
                headers: &headers,
                body,
                what: "PUT",
            })
            .await?;
        let r = self.check(r, "PUT").await?;
        // Drain the (empty) body so the connection returns to the pool.
        self.read_body(r, "PUT").await.map(|_| ())
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
        let range_header = range.map(|(a, b)| format!("bytes={a}-{b}"));
        let headers: Vec<(&str, &str)> = range_header
            .as_deref()
            .map(|r| vec![("range", r)])
            .unwrap_or_default();
        let r = self
            .send(Req {
                start,
                method: Method::GET,
                bucket,
                key,
                query: &[],
                headers: &headers,
                body: Payload::default(),
                what: "GET",
            })
            .await?;
        let mut r = self.check(r, "GET").await?;
        // The first bytes as the kernel received them, where it stamped them; else
        // when this task saw the body's first bytes (or the head, for an empty body).
        let stamped_ttfb =
            crate::arrival::so_far().map(|a| a.first.saturating_duration_since(start));
        let headers_at = stamped_ttfb.is_none().then(|| start.elapsed());
        let md5 = r.headers().get("etag").and_then(md5_of_etag);
        let deadline = r.deadline;
        let mut bytes = 0u64;
        let mut seen_ttfb = None;
        let stream = async {
            while let Some(data) = r.chunk().await.map_err(|e| wire_error(&e, "GET body"))? {
                if stamped_ttfb.is_none() {
                    seen_ttfb.get_or_insert_with(|| start.elapsed());
                }
                bytes += data.len() as u64;
                sink(data).map_err(|e| {
                    OpError::new(ErrorClass::Other, format!("GET body: cannot write: {e}"))
                })?;
            }
            Ok::<(), OpError>(())
        };
        match deadline {
            Some(at) => timeout_at(at, stream)
                .await
                .map_err(|_| self.timed_out("GET", "body not read"))??,
            None => stream.await?,
        }
        let ttfb = stamped_ttfb
            .or(seen_ttfb)
            .or(headers_at)
            .unwrap_or_default();
        Ok(GetOutcome { bytes, ttfb, md5 })
    }

    async fn get_object_bytes(&self, bucket: &str, key: &str) -> Result<Bytes, OpError> {
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::GET,
                bucket,
                key,
                query: &[],
                headers: &[],
                body: Payload::default(),
                what: "GET",
            })
            .await?;
        let r = self.check(r, "GET").await?;
        self.read_body(r, "GET").await
    }

    async fn head_object(&self, bucket: &str, key: &str) -> Result<HeadOutcome, OpError> {
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::HEAD,
                bucket,
                key,
                query: &[],
                headers: &[],
                body: Payload::default(),
                what: "HEAD",
            })
            .await?;
        if !r.status().is_success() {
            return Err(classify::status(r.status().as_u16(), None, "HEAD"));
        }
        let h = r.headers();
        let text = |name: &str| h.get(name).map(str::to_string);
        let mut metadata: Vec<(String, String)> = h
            .iter()
            .filter_map(|(k, v)| {
                let name = k.strip_prefix("x-amz-meta-")?;
                Some((name.to_string(), v.to_string()))
            })
            .collect();
        metadata.sort();
        Ok(HeadOutcome {
            size: h
                .get("content-length")
                .and_then(|s| s.parse().ok())
                .unwrap_or(0),
            etag: text("etag"),
            last_modified: text("last-modified"),
            metadata,
        })
    }

    async fn delete_object(&self, bucket: &str, key: &str) -> Result<(), OpError> {
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::DELETE,
                bucket,
                key,
                query: &[],
                headers: &[],
                body: Payload::default(),
                what: "DELETE",
            })
            .await?;
        let r = self.check(r, "DELETE").await?;
        self.read_body(r, "DELETE").await.map(|_| ())
    }

    async fn delete_objects(
        &self,
        bucket: &str,
        keys: &[String],
    ) -> Result<DeleteManyOutcome, OpError> {
        use base64::Engine;
        use md5::Digest;
        let mut doc = String::from(
            "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>",
        );
        for k in keys {
            doc.push_str("<Object><Key>");
            doc.push_str(&quick_xml::escape::escape(k.as_str()));
            doc.push_str("</Key></Object>");
        }
        doc.push_str("</Delete>");
        let md5 =
            base64::engine::general_purpose::STANDARD.encode(md5::Md5::digest(doc.as_bytes()));
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::POST,
                bucket,
                key: "",
                query: &[("delete", "")],
                headers: &[
                    ("content-md5", md5.as_str()),
                    ("content-type", "application/xml"),
                ],
                body: Payload::from(Bytes::from(doc)),
                what: "DeleteObjects",
            })
            .await?;
        let r = self.check(r, "DeleteObjects").await?;
        let body = self.read_body(r, "DeleteObjects").await?;
        let errors = xml::delete_errors(&body)
            .map_err(|m| OpError::new(ErrorClass::Other, format!("DeleteObjects: {m}")))?;
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
        let max_keys = request.max_keys.map(|n| n.to_string());
        let mut query: Vec<(&str, &str)> = vec![("list-type", "2")];
        if let Some(t) = &request.continuation_token {
            query.push(("continuation-token", t));
        }
        if let Some(d) = &request.delimiter {
            query.push(("delimiter", d));
        }
        if let Some(m) = &max_keys {
            query.push(("max-keys", m));
        }
        if let Some(p) = &request.prefix {
            query.push(("prefix", p));
        }
        if let Some(s) = &request.start_after {
            query.push(("start-after", s));
        }
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::GET,
                bucket,
                key: "",
                query: &query,
                headers: &[],
                body: Payload::default(),
                what: "LIST",
            })
            .await?;
        let r = self.check(r, "LIST").await?;
        let body = self.read_body(r, "LIST").await?;
        xml::parse_list(&body, !request.keys_and_sizes_only)
            .map_err(|m| OpError::new(ErrorClass::Other, format!("LIST: {m}")))
    }

    async fn create_bucket(&self, bucket: &str) -> Result<bool, OpError> {
        let body = if self.region != "us-east-1" && !self.region.is_empty() {
            Bytes::from(format!(
                "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>{}</LocationConstraint></CreateBucketConfiguration>",
                self.region
            ))
        } else {
            Bytes::new()
        };
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::PUT,
                bucket,
                key: "",
                query: &[],
                headers: &[],
                body: Payload::from(body),
                what: "CreateBucket",
            })
            .await?;
        if r.status() == StatusCode::CONFLICT {
            let body = self.read_body(r, "CreateBucket").await?;
            return match xml::error_code(&body).as_deref() {
                Some("BucketAlreadyOwnedByYou") => Ok(false),
                code => Err(classify::status(409, code, "CreateBucket")),
            };
        }
        let r = self.check(r, "CreateBucket").await?;
        self.read_body(r, "CreateBucket").await.map(|_| true)
    }

    async fn bucket_exists(&self, bucket: &str) -> Result<bool, OpError> {
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::HEAD,
                bucket,
                key: "",
                query: &[],
                headers: &[],
                body: Payload::default(),
                what: "HeadBucket",
            })
            .await?;
        match r.status() {
            s if s.is_success() => Ok(true),
            StatusCode::NOT_FOUND => Ok(false),
            s => Err(classify::status(s.as_u16(), None, "HeadBucket")),
        }
    }

    async fn delete_bucket(&self, bucket: &str) -> Result<(), OpError> {
        let r = self
            .send(Req {
                start: Instant::now(),
                method: Method::DELETE,
                bucket,
                key: "",
                query: &[],
                headers: &[],
                body: Payload::default(),
                what: "DeleteBucket",
            })
            .await?;
        let r = self.check(r, "DeleteBucket").await?;
        self.read_body(r, "DeleteBucket").await.map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::header_fault;

    #[test]
    fn headers_that_would_break_the_head_are_refused() {
        assert_eq!(header_fault("x-amz-meta-a", "storage team\tx"), None);
        assert_eq!(header_fault("range", "bytes=0-9"), None);
        assert!(header_fault("x-amz-meta-a", "one\r\nx-evil: 1").is_some());
        assert!(header_fault("X-Amz-Meta-A", "1").is_some());
        assert!(header_fault("bad name", "1").is_some());
        assert!(header_fault("", "1").is_some());
    }
}
