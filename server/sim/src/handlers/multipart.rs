//! Multipart upload over HTTP: initiate (`POST ?uploads`), upload a part (`PUT
//! ?partNumber&uploadId`), complete (`POST ?uploadId` with the part list) and abort
//! (`DELETE ?uploadId`), with S3's documents and error codes.

use http::{Response, StatusCode, header};
use hyper::body::Incoming;

use super::context::{Ctx, MAX_KEY, Resp, index_writable, read_body, refuse, user_metadata};
use crate::Storage;
use crate::body::SimBody;
use crate::budget::part_cost;
use crate::clock::now_ms;
use crate::document::DocumentError;
use crate::errors::S3Error;
use crate::multipart::{CompleteError, MAX_PART_NUMBER, Part, PartError, Upload};
use crate::objects::meta_len;
use crate::payload;
use crate::store::Object;
use crate::xml::{HEADER, NS, element};

pub(super) fn create(ctx: &Ctx<'_>) -> Resp {
    if ctx.state.store.bucket(&ctx.parsed.bucket).is_none() {
        return ctx.error(S3Error::NoSuchBucket, None);
    }
    if ctx.parsed.key.len() > MAX_KEY {
        return ctx.error(S3Error::KeyTooLongError, None);
    }
    let id = ctx.state.store.uploads.create(Upload {
        bucket: ctx.parsed.bucket.clone(),
        key: ctx.parsed.key.clone(),
        metadata: user_metadata(&ctx.headers),
        content_type: ctx
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(Into::into),
        parts: Default::default(),
    });
    let mut body = format!("{HEADER}<InitiateMultipartUploadResult xmlns=\"{NS}\">");
    element(&mut body, "Bucket", &ctx.parsed.bucket);
    element(&mut body, "Key", &ctx.parsed.key);
    element(&mut body, "UploadId", &id);
    body.push_str("</InitiateMultipartUploadResult>");
    ctx.xml(StatusCode::OK, body)
}

pub(super) async fn upload_part(ctx: &Ctx<'_>, body: Incoming) -> Resp {
    let number = match ctx.parsed.param("partNumber").map(str::parse::<u32>) {
        Some(Ok(n)) if (1..=MAX_PART_NUMBER).contains(&n) => n,
        _ => {
            return ctx.error(
                S3Error::InvalidArgument,
                Some("Part number must be an integer between 1 and 10000, inclusive."),
            );
        }
    };
    if !payload::has_length(&ctx.headers) {
        return ctx.error(S3Error::MissingContentLength, None);
    }
    let keep = ctx.state.store.storage == Storage::Memory;
    let announced = payload::announced_len(&ctx.headers).unwrap_or(0);
    let budget = &ctx.state.store.budget;
    let reservation = match budget.reserve(part_cost(keep.then_some(announced as usize))) {
        Ok(r) => r,
        Err(e) => return refuse(ctx, body, e).await,
    };
    let payload = match payload::read(body, &ctx.headers, keep).await {
        Ok(p) => p,
        Err(m) => return ctx.error(S3Error::InvalidArgument, Some(&m.to_string())),
    };
    let md5 = payload.md5;
    let part = Part {
        size: payload.len,
        md5,
        data: payload.data,
    };
    let id = ctx.parsed.param("uploadId").unwrap_or("");
    let target = (id, ctx.parsed.bucket.as_str(), ctx.parsed.key.as_str());
    match ctx
        .state
        .store
        .uploads
        .put_part(target, number, part, budget, reservation.bytes())
    {
        Ok(()) => reservation.commit(),
        Err(PartError::NoSuchUpload) => return ctx.error(S3Error::NoSuchUpload, None),
        Err(PartError::OverBudget(e)) => {
            return ctx.error(S3Error::InsufficientStorage, Some(&e.to_string()));
        }
    }
    ctx.ok(StatusCode::OK)
        .header(header::ETAG, format!("\"{}\"", hex::encode(md5)))
        .body(SimBody::empty())
        .unwrap_or_else(|_| Response::new(SimBody::empty()))
}

pub(super) async fn complete(ctx: &Ctx<'_>, body: Incoming) -> Resp {
    let Some(bucket) = ctx.state.store.bucket(&ctx.parsed.bucket) else {
        return ctx.error(S3Error::NoSuchBucket, None);
    };
    let doc = match read_body(ctx, body).await {
        Ok(d) => d,
        Err(r) => return *r,
    };
    let listed = match parse_parts(&doc) {
        Ok(l) => l,
        Err(m) => return ctx.error(S3Error::MalformedXml, Some(&m.to_string())),
    };
    let id = ctx.parsed.param("uploadId").unwrap_or("");
    let keep = ctx.state.store.storage == Storage::Memory;
    let budget = &ctx.state.store.budget;
    let fits = |upload: &Upload, size: u64, held: u64| {
        let cost = crate::budget::object_cost(
            upload.key.len(),
            keep.then_some(size as usize),
            meta_len(upload.content_type.as_deref(), &upload.metadata),
        );
        budget.check(cost, held + bucket.cost_of(upload.key.as_bytes()))
    };
    let done = match ctx.state.store.uploads.complete(
        id,
        &ctx.parsed.bucket,
        &ctx.parsed.key,
        &listed,
        fits,
    ) {
        Ok(d) => d,
        Err(e) => {
            let (code, message) = match e {
                CompleteError::NoSuchUpload => (S3Error::NoSuchUpload, None),
                CompleteError::InvalidPart => (S3Error::InvalidPart, None),
                CompleteError::InvalidPartOrder => (S3Error::InvalidPartOrder, None),
                CompleteError::EntityTooSmall => (S3Error::EntityTooSmall, None),
                CompleteError::OverBudget(e) => (S3Error::InsufficientStorage, Some(e.to_string())),
            };
            return ctx.error(code, message.as_deref());
        }
    };
    let object = Object {
        size: done.size,
        etag: done.etag,
        last_modified_ms: now_ms(),
        content_type: done.content_type,
        metadata: done.metadata,
        data: done.data,
        parts: done.parts,
    };
    let etag = crate::store::etag_header(&object.etag, object.parts);
    index_writable(ctx, &bucket).await;
    // The object takes the parts' place in the budget (checked above; this fails only
    // if other writes took the room meanwhile, and then the parts are gone all the same).
    if let Err(e) = bucket.put_freeing(done.key.as_bytes(), object, done.held) {
        ctx.state.store.budget.release(done.held);
        return ctx.error(S3Error::InsufficientStorage, Some(&e.to_string()));
    }
    let mut body = format!("{HEADER}<CompleteMultipartUploadResult xmlns=\"{NS}\">");
    element(&mut body, "Bucket", &done.bucket);
    element(&mut body, "Key", &done.key);
    element(&mut body, "ETag", &etag);
    body.push_str("</CompleteMultipartUploadResult>");
    ctx.xml(StatusCode::OK, body)
}

pub(super) fn abort(ctx: &Ctx<'_>) -> Resp {
    let id = ctx.parsed.param("uploadId").unwrap_or("");
    let Some(held) = ctx
        .state
        .store
        .uploads
        .abort(id, &ctx.parsed.bucket, &ctx.parsed.key)
    else {
        return ctx.error(S3Error::NoSuchUpload, None);
    };
    ctx.state.store.budget.release(held);
    ctx.ok(StatusCode::NO_CONTENT)
        .body(SimBody::empty())
        .unwrap_or_else(|_| Response::new(SimBody::empty()))
}

/// (PartNumber, ETag) pairs of a `<CompleteMultipartUpload>` document, in order.
fn parse_parts(xml: &[u8]) -> Result<Vec<(u32, String)>, DocumentError> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut buf = Vec::new();
    let mut parts = Vec::new();
    let (mut number, mut etag) = (None, None);
    let mut current: Option<Vec<u8>> = None;
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => current = Some(e.local_name().as_ref().to_vec()),
            Ok(Event::Text(t)) => {
                let text = t.decode()?.into_owned();
                match current.as_deref() {
                    Some(b"PartNumber") => {
                        number = Some(
                            text.trim()
                                .parse::<u32>()
                                .map_err(|_| DocumentError::PartNumber(text.clone()))?,
                        )
                    }
                    Some(b"ETag") => etag = Some(text),
                    _ => {}
                }
            }
            Ok(Event::GeneralRef(r)) if current.as_deref() == Some(b"ETag") => {
                if r.as_ref() == b"quot" {
                    etag.get_or_insert_with(String::new).push('"');
                }
            }
            Ok(Event::End(e)) => {
                if e.local_name().as_ref() == b"Part" {
                    match (number.take(), etag.take()) {
                        (Some(n), Some(t)) => parts.push((n, t)),
                        _ => return Err(DocumentError::IncompletePart),
                    }
                }
                current = None;
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => return Err(e.into()),
        }
        buf.clear();
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_lists_parse_with_quoted_etags() {
        let doc = br#"<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"aa"</ETag></Part><Part><ETag>&quot;bb&quot;</ETag><PartNumber>2</PartNumber></Part></CompleteMultipartUpload>"#;
        let parts = parse_parts(doc).unwrap();
        assert_eq!(parts[0], (1, "\"aa\"".to_string()));
        assert_eq!(parts[1].0, 2);
        assert_eq!(parts[1].1.trim_matches('"'), "bb");
        assert!(parse_parts(b"<CompleteMultipartUpload><Part><PartNumber>x</PartNumber></Part></CompleteMultipartUpload>").is_err());
    }
}
