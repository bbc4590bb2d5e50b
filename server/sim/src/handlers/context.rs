//! What every S3 handler shares: the request's context (state, parsed request,
//! headers, request id) with its answers, reading a body, user metadata, waiting for
//! a writable index, and turning a write away when the memory budget is spent.

use bytes::Bytes;
use http::{HeaderMap, Method, Response, StatusCode, header};
use http_body_util::BodyExt;
use hyper::body::Incoming;

use crate::body::SimBody;
use crate::budget::OverBudget;
use crate::errors::S3Error;
use crate::payload::{self, MAX_BODY};
use crate::request::Parsed;
use crate::state::State;

/// S3's limit on key length, in bytes.
pub(super) const MAX_KEY: usize = 1024;

pub(super) type Resp = Response<SimBody>;

/// Everything a handler needs besides the body.
pub(super) struct Ctx<'a> {
    pub(super) state: &'a State,
    pub(super) parsed: Parsed,
    pub(super) headers: HeaderMap,
    pub(super) method: Method,
    pub(super) request_id: String,
}

impl Ctx<'_> {
    pub(super) fn error(&self, e: S3Error, message: Option<&str>) -> Resp {
        let mut r = Response::builder().status(e.status());
        r = r.header("x-amz-request-id", &self.request_id);
        if self.method == Method::HEAD {
            return r
                .body(SimBody::empty())
                .unwrap_or_else(|_| Response::new(SimBody::empty()));
        }
        let body = e.xml(
            message.unwrap_or(e.default_message()),
            &self.parsed.resource(),
            &self.request_id,
        );
        r.header(header::CONTENT_TYPE, "application/xml")
            .body(SimBody::bytes(body))
            .unwrap_or_else(|_| Response::new(SimBody::empty()))
    }

    pub(super) fn ok(&self, status: StatusCode) -> http::response::Builder {
        Response::builder()
            .status(status)
            .header("x-amz-request-id", &self.request_id)
    }

    pub(super) fn xml(&self, status: StatusCode, body: impl Into<Bytes>) -> Resp {
        self.ok(status)
            .header(header::CONTENT_TYPE, "application/xml")
            .body(SimBody::bytes(body))
            .unwrap_or_else(|_| Response::new(SimBody::empty()))
    }
}

/// Waits while the bucket's index is being resharded (RGW blocks index writes).
pub(super) async fn index_writable(ctx: &Ctx<'_>, bucket: &crate::store::Bucket) {
    bucket
        .index
        .wait_writable(
            ctx.state.store.index_config.retry_step,
            &ctx.state.store.delays,
        )
        .await;
}

pub(super) async fn read_body(ctx: &Ctx<'_>, body: Incoming) -> Result<Bytes, Box<Resp>> {
    let collected = http_body_util::Limited::new(body, MAX_BODY)
        .collect()
        .await
        .map_err(|e| {
            ctx.error(
                S3Error::InvalidArgument,
                Some(&format!("cannot read the body: {e}")),
            )
        })?
        .to_bytes();
    if payload::aws_chunked(&ctx.headers) {
        return crate::chunked::decode(&collected)
            .map(Bytes::from)
            .map_err(|m| Box::new(ctx.error(S3Error::InvalidArgument, Some(&m.to_string()))));
    }
    Ok(collected)
}

pub(super) fn user_metadata(headers: &HeaderMap) -> Box<[(Box<str>, Box<str>)]> {
    headers
        .iter()
        .filter_map(|(name, value)| {
            let n = name.as_str().strip_prefix("x-amz-meta-")?;
            let v = value.to_str().ok()?;
            Some((n.into(), v.into()))
        })
        .collect()
}

/// Answers a write the memory budget has no room for, with the budget's message. The
/// body is read and dropped first (unless the client waits for `100 Continue` and so
/// sends none), so the client gets the answer rather than a closed connection.
pub(super) async fn refuse(ctx: &Ctx<'_>, body: Incoming, e: OverBudget) -> Resp {
    if !payload::expects_continue(&ctx.headers) {
        payload::drain(body).await;
    }
    ctx.error(S3Error::InsufficientStorage, Some(&e.to_string()))
}
