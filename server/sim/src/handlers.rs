//! One function per S3 operation: read the request, touch the store, answer with S3's
//! status codes, headers and XML. Errors are S3 error documents (no body for HEAD).

use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use http::{HeaderValue, Method, Response, StatusCode, header};
use hyper::body::Incoming;

use crate::Storage;
use crate::body::SimBody;
use crate::clock::now_ms;
use crate::delay_record::DelayKind;
use crate::document::DocumentError;
use crate::errors::S3Error;
use crate::inject::{Fault, Injector};
use crate::list::{self, ListParams, V2Response};
use crate::objects::{meta_len, size_only_etag, size_only_etag_is_cheap};
use crate::payload;
use crate::request::{Op, parse};
use crate::state::{Port, Reset, State};
use crate::store::{DeleteBucketError, Object};
use crate::xml::{HEADER, NS, element, iso8601};

mod context;
mod multipart;

use context::{Ctx, MAX_KEY, Resp, index_writable, read_body, refuse, user_metadata};

static REQUEST_IDS: AtomicU64 = AtomicU64::new(1);

pub(crate) async fn handle(port: &Port, req: http::Request<Incoming>) -> Result<Resp, Reset> {
    let state: &State = &port.state;
    let (parts, body) = req.into_parts();
    let parsed = parse(
        &parts.method,
        parts.uri.path(),
        parts.uri.query(),
        &parts.headers,
    );
    let ctx = Ctx {
        state,
        parsed,
        headers: parts.headers,
        method: parts.method,
        request_id: format!("{:016X}", REQUEST_IDS.fetch_add(1, Ordering::Relaxed)),
    };
    // Path style only: with a bucket in the Host header, `/admin/...` is a key.
    let admin = ctx.parsed.bucket == "admin" && crate::admin::is_admin(parts.uri.path());
    if let Some((access, secret)) = &state.credentials
        && let Err(e) = crate::sigv4::verify(
            &ctx.method,
            parts.uri.path(),
            parts.uri.query(),
            &ctx.headers,
            access,
            secret,
        )
    {
        if admin {
            return Ok(crate::admin_call::error(e.status(), e.code()));
        }
        return Ok(ctx.error(e, None));
    }
    if admin {
        let call = crate::admin_call::Call {
            method: &ctx.method,
            path: parts.uri.path(),
            query: parts.uri.query(),
            through: port.number,
        };
        return Ok(crate::admin::handle(state, call).await);
    }
    // A gateway's worker threads: past `max_inflight` requests, the rest wait in turn.
    let _place = match &state.inflight {
        Some(places) => {
            let asked = std::time::Instant::now();
            let place = places.acquire().await.ok();
            state
                .store
                .delays
                .record_wait(DelayKind::Queue, asked.elapsed());
            place
        }
        None => None,
    };
    state.requests[ctx.parsed.op as usize].fetch_add(1, Ordering::Relaxed);
    port.count(ctx.parsed.op);
    if let Some(tally) = &state.key_tally
        && matches!(ctx.parsed.op, Op::GetObject | Op::HeadObject)
    {
        tally.note(ctx.parsed.op, &ctx.parsed.bucket, &ctx.parsed.key);
    }
    // The target's own latency, then the port's.
    let delays = [
        state.injector.delay(ctx.parsed.op),
        port.delay(ctx.parsed.op).map(|d| (DelayKind::Port, d)),
    ];
    if delays.iter().any(Option::is_some) {
        state.store.delays.sleep_in_turn(delays).await;
    }
    // The target's own fault, else the port's.
    let fault = match state.injector.fault(ctx.parsed.op) {
        Some(fault) => Some((fault, state.injector.clone())),
        None => port.faults.draw(ctx.parsed.op),
    };
    match fault {
        None => Ok(dispatch(&ctx, body).await),
        Some((fault, injector)) => faulty(&ctx, body, fault, &injector).await,
    }
}

async fn dispatch(ctx: &Ctx<'_>, body: Incoming) -> Resp {
    match ctx.parsed.op {
        Op::ListBuckets => list_buckets(ctx),
        Op::CreateBucket => create_bucket(ctx, body).await,
        Op::HeadBucket => head_bucket(ctx),
        Op::DeleteBucket => delete_bucket(ctx),
        Op::GetBucketLocation => bucket_location(ctx),
        Op::ListObjectsV2 => list_cost(ctx, list_v2(ctx)).await,
        Op::ListObjectsV1 => list_cost(ctx, list_v1(ctx)).await,
        Op::DeleteObjects if ctx.state.no_multi_delete => ctx.error(S3Error::NotImplemented, None),
        Op::DeleteObjects => delete_objects(ctx, body).await,
        Op::PutObject => put_object(ctx, body).await,
        Op::GetObject | Op::HeadObject => get_object(ctx),
        Op::DeleteObject => delete_object(ctx).await,
        Op::CreateMultipartUpload => multipart::create(ctx),
        Op::UploadPart => multipart::upload_part(ctx, body).await,
        Op::CompleteMultipartUpload => multipart::complete(ctx, body).await,
        Op::AbortMultipartUpload => multipart::abort(ctx),
        Op::Unsupported => ctx.error(S3Error::NotImplemented, None),
    }
}

/// Answers a request that drew a fault from `injector` (the target's or its port's).
/// The client never sees a normal answer: an error document, a connection closed
/// without a response, one that stalls (a GET after its headers and part of its body)
/// for `stall_time` and is then closed, or a GET's answer with one bit of its body
/// flipped.
async fn faulty(
    ctx: &Ctx<'_>,
    body: Incoming,
    fault: Fault,
    injector: &Injector,
) -> Result<Resp, Reset> {
    let stall = injector.stall_time();
    match fault {
        Fault::Corrupt => return Ok(corrupted(ctx, dispatch(ctx, body).await, injector)),
        // Unread request bytes make the close a TCP reset.
        Fault::Reset => return Err(Reset),
        Fault::SlowDown | Fault::InternalError => {
            // Read what the client sends first, so the connection stays usable.
            payload::drain(body).await;
            let e = match fault {
                Fault::SlowDown => S3Error::SlowDown,
                _ => S3Error::InternalError,
            };
            return Ok(ctx.error(e, None));
        }
        Fault::Stall if ctx.parsed.op == Op::GetObject => {
            let (parts, full) = dispatch(ctx, body).await.into_parts();
            if let Some(stalled) = full.stalled(stall) {
                return Ok(Response::from_parts(parts, stalled));
            }
        }
        Fault::Stall => payload::drain(body).await,
    }
    tokio::time::sleep(stall).await;
    Err(Reset)
}

/// `response` with one bit of its body flipped (drawn and counted by `injector`), if
/// it is a successful GET with a body; error documents and empty bodies go out as they
/// are (and are not counted).
fn corrupted(ctx: &Ctx<'_>, response: Resp, injector: &Injector) -> Resp {
    if ctx.method != Method::GET || !response.status().is_success() {
        return response;
    }
    let (parts, body) = response.into_parts();
    let body = match injector.corrupt_bit(body.len()) {
        Some(bit) => body.with_bit_flipped(bit),
        None => body,
    };
    Response::from_parts(parts, body)
}

/// An ordered listing merges every index shard: each page costs more with more shards.
async fn list_cost(ctx: &Ctx<'_>, response: Resp) -> Resp {
    let per_shard = ctx.state.store.index_config.list_time_per_shard;
    if !per_shard.is_zero()
        && let Some(bucket) = ctx.state.store.bucket(&ctx.parsed.bucket)
    {
        let cost = per_shard.saturating_mul(bucket.index.shards());
        ctx.state
            .store
            .delays
            .sleep(DelayKind::ListShards, cost)
            .await;
    }
    response
}

fn valid_bucket_name(name: &str) -> bool {
    (3..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && name
            .bytes()
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric())
}

fn list_buckets(ctx: &Ctx<'_>) -> Resp {
    let mut out = String::from(HEADER);
    out.push_str(&format!("<ListAllMyBucketsResult xmlns=\"{NS}\"><Owner><ID>keystorm</ID><DisplayName>keystorm</DisplayName></Owner><Buckets>"));
    for (name, created) in ctx.state.store.bucket_list() {
        out.push_str("<Bucket>");
        element(&mut out, "Name", &name);
        element(&mut out, "CreationDate", &iso8601(created));
        out.push_str("</Bucket>");
    }
    out.push_str("</Buckets></ListAllMyBucketsResult>");
    ctx.xml(StatusCode::OK, out)
}

async fn create_bucket(ctx: &Ctx<'_>, body: Incoming) -> Resp {
    // The body (CreateBucketConfiguration) only names a region; read and ignore it.
    if let Err(r) = read_body(ctx, body).await {
        return *r;
    }
    let name = &ctx.parsed.bucket;
    if !valid_bucket_name(name) {
        return ctx.error(S3Error::InvalidBucketName, None);
    }
    if !ctx.state.store.create_bucket(name) {
        return ctx.error(S3Error::BucketAlreadyOwnedByYou, None);
    }
    ctx.ok(StatusCode::OK)
        .header(header::LOCATION, format!("/{name}"))
        .body(SimBody::empty())
        .unwrap_or_else(|_| Response::new(SimBody::empty()))
}

fn head_bucket(ctx: &Ctx<'_>) -> Resp {
    match ctx.state.store.bucket(&ctx.parsed.bucket) {
        Some(_) => ctx
            .ok(StatusCode::OK)
            .header("x-amz-bucket-region", "us-east-1")
            .body(SimBody::empty())
            .unwrap_or_else(|_| Response::new(SimBody::empty())),
        None => ctx.error(S3Error::NoSuchBucket, None),
    }
}

fn delete_bucket(ctx: &Ctx<'_>) -> Resp {
    match ctx.state.store.delete_bucket(&ctx.parsed.bucket) {
        Ok(()) => ctx
            .ok(StatusCode::NO_CONTENT)
            .body(SimBody::empty())
            .unwrap_or_else(|_| Response::new(SimBody::empty())),
        Err(DeleteBucketError::NoSuchBucket) => ctx.error(S3Error::NoSuchBucket, None),
        Err(DeleteBucketError::NotEmpty) => ctx.error(S3Error::BucketNotEmpty, None),
    }
}

fn bucket_location(ctx: &Ctx<'_>) -> Resp {
    if ctx.state.store.bucket(&ctx.parsed.bucket).is_none() {
        return ctx.error(S3Error::NoSuchBucket, None);
    }
    ctx.xml(
        StatusCode::OK,
        format!("{HEADER}<LocationConstraint xmlns=\"{NS}\"></LocationConstraint>"),
    )
}

fn max_keys(ctx: &Ctx<'_>) -> Result<usize, Box<Resp>> {
    match ctx.parsed.param("max-keys") {
        None => Ok(1000),
        Some(v) => v
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .map(|n| n.min(1000) as usize)
            .ok_or_else(|| {
                Box::new(ctx.error(
                    S3Error::InvalidArgument,
                    Some("max-keys must be a non-negative integer"),
                ))
            }),
    }
}

/// Whether a continued page begins with the key the page before ended on
/// (`list_twice`, drawn and counted only for pages that can).
fn list_twice(ctx: &Ctx<'_>, objects: &crate::store::Objects, params: &ListParams<'_>) -> bool {
    ctx.state
        .injector
        .list_twice(|| list::repeatable(objects, params))
}

fn list_v2(ctx: &Ctx<'_>) -> Resp {
    let Some(bucket) = ctx.state.store.bucket(&ctx.parsed.bucket) else {
        return ctx.error(S3Error::NoSuchBucket, None);
    };
    let max_keys = match max_keys(ctx) {
        Ok(n) => n,
        Err(r) => return *r,
    };
    let token = ctx.parsed.param("continuation-token");
    let decoded_token = match token {
        Some(t) => match hex::decode(t).ok().and_then(|b| String::from_utf8(b).ok()) {
            Some(k) => Some(k),
            None => {
                return ctx.error(
                    S3Error::InvalidArgument,
                    Some("The continuation token provided is incorrect"),
                );
            }
        },
        None => None,
    };
    let start_after = ctx.parsed.param("start-after").filter(|s| !s.is_empty());
    let after = match (&decoded_token, start_after) {
        (Some(t), _) => Some(t.as_str()),
        (None, s) => s,
    };
    let mut params = ListParams {
        prefix: ctx.parsed.param("prefix").unwrap_or(""),
        delimiter: ctx.parsed.param("delimiter").filter(|d| !d.is_empty()),
        after,
        max_keys,
        repeat: false,
    };
    let objects = bucket.read();
    params.repeat = decoded_token.is_some() && list_twice(ctx, &objects, &params);
    let page = list::list(&objects, &params);
    let body = list::v2_xml(
        &V2Response {
            bucket: &ctx.parsed.bucket,
            params: &params,
            continuation_token: token,
            start_after,
            url: ctx.parsed.param("encoding-type") == Some("url"),
        },
        &page,
    );
    drop(objects);
    ctx.xml(StatusCode::OK, body)
}

fn list_v1(ctx: &Ctx<'_>) -> Resp {
    let Some(bucket) = ctx.state.store.bucket(&ctx.parsed.bucket) else {
        return ctx.error(S3Error::NoSuchBucket, None);
    };
    let max_keys = match max_keys(ctx) {
        Ok(n) => n,
        Err(r) => return *r,
    };
    let marker = ctx.parsed.param("marker").unwrap_or("");
    let mut params = ListParams {
        prefix: ctx.parsed.param("prefix").unwrap_or(""),
        delimiter: ctx.parsed.param("delimiter").filter(|d| !d.is_empty()),
        after: (!marker.is_empty()).then_some(marker),
        max_keys,
        repeat: false,
    };
    let objects = bucket.read();
    // A v1 marker is the last key (or NextMarker) of the page before.
    params.repeat = list_twice(ctx, &objects, &params);
    let page = list::list(&objects, &params);
    let url = ctx.parsed.param("encoding-type") == Some("url");
    let body = list::v1_xml(&ctx.parsed.bucket, &params, marker, url, &page);
    drop(objects);
    ctx.xml(StatusCode::OK, body)
}

async fn put_object(ctx: &Ctx<'_>, body: Incoming) -> Resp {
    if ctx.headers.contains_key("x-amz-copy-source") {
        return ctx.error(
            S3Error::NotImplemented,
            Some("CopyObject is not implemented by the embedded target."),
        );
    }
    let Some(bucket) = ctx.state.store.bucket(&ctx.parsed.bucket) else {
        // Drain nothing: the connection closes after an error with an unread body.
        return ctx.error(S3Error::NoSuchBucket, None);
    };
    let key = ctx.parsed.key.as_bytes();
    if key.len() > MAX_KEY {
        return ctx.error(S3Error::KeyTooLongError, None);
    }
    if !payload::has_length(&ctx.headers) {
        return ctx.error(S3Error::MissingContentLength, None);
    }
    let keep = ctx.state.store.storage == Storage::Memory;
    let metadata = user_metadata(&ctx.headers);
    let content_type: Option<Box<str>> = ctx
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(Into::into);
    // Room for the announced body is taken before it is read, so a full target
    // refuses it without holding it.
    let announced = payload::announced_len(&ctx.headers).unwrap_or(0);
    let cost = crate::budget::object_cost(
        key.len(),
        keep.then_some(announced as usize),
        meta_len(content_type.as_deref(), &metadata),
    );
    let budget = &ctx.state.store.budget;
    let reservation = match budget.reserve(cost.saturating_sub(bucket.cost_of(key))) {
        Ok(r) => r,
        Err(e) => return refuse(ctx, body, e).await,
    };
    let payload = match payload::read(body, &ctx.headers, keep).await {
        Ok(p) => p,
        Err(m) => return ctx.error(S3Error::InvalidArgument, Some(&m.to_string())),
    };
    let etag = match ctx.state.store.storage {
        Storage::Memory => payload.md5,
        // No bytes kept: the MD5 of the zeros a GET returns.
        Storage::SizeOnly => zeros_etag(payload.len).await,
    };
    let object = Object {
        size: payload.len,
        etag,
        last_modified_ms: now_ms(),
        content_type,
        metadata,
        data: payload.data,
        parts: 0,
    };
    let etag_header = crate::store::etag_header(&etag, 0);
    index_writable(ctx, &bucket).await;
    if let Err(e) = bucket.put_freeing(key, object, reservation.bytes()) {
        return ctx.error(S3Error::InsufficientStorage, Some(&e.to_string()));
    }
    reservation.commit();
    ctx.ok(StatusCode::OK)
        .header(header::ETAG, etag_header)
        .body(SimBody::empty())
        .unwrap_or_else(|_| Response::new(SimBody::empty()))
}

/// The ETag of a size-only object of `size` bytes, worked out off the async workers
/// when that means hashing many zeros.
async fn zeros_etag(size: u64) -> [u8; 16] {
    if size_only_etag_is_cheap(size) {
        return size_only_etag(size);
    }
    tokio::task::spawn_blocking(move || size_only_etag(size))
        .await
        .unwrap_or_else(|_| size_only_etag(size))
}

/// `Range: bytes=a-b | a- | -n` against `size`: `Ok(None)` = whole object,
/// `Err(())` = unsatisfiable.
fn parse_range(value: &str, size: u64) -> Result<Option<(u64, u64)>, ()> {
    let Some(spec) = value.trim().strip_prefix("bytes=") else {
        return Ok(None);
    };
    if spec.contains(',') {
        // Multiple ranges: S3 answers with the whole object.
        return Ok(None);
    }
    let Some((a, b)) = spec.split_once('-') else {
        return Ok(None);
    };
    let (a, b) = (a.trim(), b.trim());
    let range = match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ok(None),
        (true, false) => {
            let n: u64 = b.parse().map_err(|_| ())?;
            if n == 0 || size == 0 {
                return Err(());
            }
            (size.saturating_sub(n), size - 1)
        }
        (false, _) => {
            let start: u64 = a.parse().map_err(|_| ())?;
            if start >= size {
                return Err(());
            }
            let end = if b.is_empty() {
                size - 1
            } else {
                let e: u64 = b.parse().map_err(|_| ())?;
                if e < start {
                    return Ok(None);
                }
                e.min(size - 1)
            };
            (start, end)
        }
    };
    Ok(Some(range))
}

fn get_object(ctx: &Ctx<'_>) -> Resp {
    let Some(bucket) = ctx.state.store.bucket(&ctx.parsed.bucket) else {
        return ctx.error(S3Error::NoSuchBucket, None);
    };
    let objects = bucket.read();
    let Some(obj) = objects.get(ctx.parsed.key.as_bytes()) else {
        drop(objects);
        return ctx.error(S3Error::NoSuchKey, None);
    };
    let range = match ctx.headers.get(header::RANGE).and_then(|v| v.to_str().ok()) {
        Some(r) => match parse_range(r, obj.size) {
            Ok(r) => r,
            Err(()) => {
                let size = obj.size;
                drop(objects);
                let mut resp = ctx.error(S3Error::InvalidRange, None);
                if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
                    resp.headers_mut().insert(header::CONTENT_RANGE, v);
                }
                return resp;
            }
        },
        None => None,
    };
    let (status, start, len) = match range {
        Some((a, b)) => (StatusCode::PARTIAL_CONTENT, a, b - a + 1),
        None => (StatusCode::OK, 0, obj.size),
    };
    let mut r = ctx
        .ok(status)
        .header(header::CONTENT_LENGTH, len)
        .header(header::ETAG, obj.etag_header())
        .header(
            header::LAST_MODIFIED,
            httpdate::fmt_http_date(
                std::time::UNIX_EPOCH + std::time::Duration::from_millis(obj.last_modified_ms),
            ),
        )
        .header(header::ACCEPT_RANGES, "bytes")
        .header(
            header::CONTENT_TYPE,
            obj.content_type().unwrap_or("binary/octet-stream"),
        );
    if let Some((a, b)) = range {
        r = r.header(header::CONTENT_RANGE, format!("bytes {a}-{b}/{}", obj.size));
    }
    for (k, v) in obj.metadata() {
        if let Ok(v) = HeaderValue::from_str(v) {
            r = r.header(format!("x-amz-meta-{k}"), v);
        }
    }
    let body = if ctx.method == Method::HEAD {
        SimBody::empty()
    } else {
        match obj.data {
            Some(d) => SimBody::bytes(
                Bytes::from_owner(d.clone()).slice(start as usize..(start + len) as usize),
            ),
            None => SimBody::Zeros(len),
        }
    };
    drop(objects);
    r.body(body)
        .unwrap_or_else(|_| Response::new(SimBody::empty()))
}

async fn delete_object(ctx: &Ctx<'_>) -> Resp {
    let Some(bucket) = ctx.state.store.bucket(&ctx.parsed.bucket) else {
        return ctx.error(S3Error::NoSuchBucket, None);
    };
    index_writable(ctx, &bucket).await;
    bucket.delete([ctx.parsed.key.as_bytes()]);
    ctx.ok(StatusCode::NO_CONTENT)
        .body(SimBody::empty())
        .unwrap_or_else(|_| Response::new(SimBody::empty()))
}

/// Keys and the Quiet flag of a `<Delete>` document.
fn parse_delete(xml: &[u8]) -> Result<(Vec<String>, bool), DocumentError> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut keys = Vec::new();
    let mut quiet = false;
    // Text of the element being read (keys may arrive in pieces around entities).
    let mut text = String::new();
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf)? {
            Event::Start(_) => text.clear(),
            Event::Text(t) => text.push_str(&t.decode()?),
            Event::GeneralRef(r) => {
                let name = String::from_utf8_lossy(&r).into_owned();
                let resolved = match name.as_str() {
                    "amp" => "&".to_string(),
                    "lt" => "<".to_string(),
                    "gt" => ">".to_string(),
                    "quot" => "\"".to_string(),
                    "apos" => "'".to_string(),
                    n => {
                        let code = n
                            .strip_prefix("#x")
                            .and_then(|h| u32::from_str_radix(h, 16).ok())
                            .or_else(|| n.strip_prefix('#').and_then(|d| d.parse().ok()));
                        code.and_then(char::from_u32)
                            .map(String::from)
                            .ok_or_else(|| DocumentError::Entity(n.to_string()))?
                    }
                };
                text.push_str(&resolved);
            }
            Event::End(e) => {
                match e.local_name().as_ref() {
                    b"Key" => keys.push(std::mem::take(&mut text)),
                    b"Quiet" => quiet = text.trim() == "true",
                    _ => {}
                }
                text.clear();
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if keys.len() > 1000 {
        return Err(DocumentError::TooManyKeys);
    }
    Ok((keys, quiet))
}

async fn delete_objects(ctx: &Ctx<'_>, body: Incoming) -> Resp {
    let Some(bucket) = ctx.state.store.bucket(&ctx.parsed.bucket) else {
        return ctx.error(S3Error::NoSuchBucket, None);
    };
    let xml = match read_body(ctx, body).await {
        Ok(b) => b,
        Err(r) => return *r,
    };
    let (keys, quiet) = match parse_delete(&xml) {
        Ok(k) => k,
        Err(m) => return ctx.error(S3Error::MalformedXml, Some(&m.to_string())),
    };
    index_writable(ctx, &bucket).await;
    // Keys that fail on their own stay, and are reported even in quiet mode.
    let (failed, deleted): (Vec<String>, Vec<String>) = keys
        .into_iter()
        .partition(|_| ctx.state.injector.key_fails());
    bucket.delete(deleted.iter().map(|k| k.as_bytes()));
    let mut out = format!("{HEADER}<DeleteResult xmlns=\"{NS}\">");
    if !quiet {
        for k in &deleted {
            out.push_str("<Deleted>");
            element(&mut out, "Key", k);
            out.push_str("</Deleted>");
        }
    }
    for k in &failed {
        out.push_str("<Error>");
        element(&mut out, "Key", k);
        out.push_str("<Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>");
    }
    out.push_str("</DeleteResult>");
    ctx.xml(StatusCode::OK, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_follow_rfc_7233() {
        assert_eq!(parse_range("bytes=0-9", 100), Ok(Some((0, 9))));
        assert_eq!(parse_range("bytes=90-", 100), Ok(Some((90, 99))));
        assert_eq!(parse_range("bytes=-10", 100), Ok(Some((90, 99))));
        assert_eq!(parse_range("bytes=-500", 100), Ok(Some((0, 99))));
        assert_eq!(parse_range("bytes=50-500", 100), Ok(Some((50, 99))));
        assert_eq!(parse_range("bytes=100-", 100), Err(()));
        assert_eq!(parse_range("bytes=0-0", 0), Err(()));
        assert_eq!(parse_range("items=1-2", 100), Ok(None));
    }

    #[test]
    fn delete_documents_parse() {
        let xml = b"<Delete xmlns=\"x\"><Quiet>true</Quiet><Object><Key>a&amp;b</Key></Object><Object><Key>c d</Key></Object></Delete>";
        let (keys, quiet) = parse_delete(xml).unwrap();
        assert!(quiet);
        assert_eq!(keys.len(), 2);
        assert_eq!(keys[1], "c d");
        assert_eq!(keys[0], "a&b");
    }
}
