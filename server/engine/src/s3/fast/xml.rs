//! Streaming parsers for the S3 responses the fast client reads: ListObjectsV2 pages,
//! DeleteObjects results and error codes. No DOM, no serde: one pass over the bytes.

use quick_xml::Reader;
use quick_xml::events::Event;

use crate::s3::{ListEntry, ListPage};

/// Text of the current element, assembled across entity references.
fn resolve_entity(name: &[u8]) -> Option<String> {
    Some(match name {
        b"amp" => "&".into(),
        b"lt" => "<".into(),
        b"gt" => ">".into(),
        b"quot" => "\"".into(),
        b"apos" => "'".into(),
        n => {
            let n = std::str::from_utf8(n).ok()?;
            let code = n
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| n.strip_prefix('#').and_then(|d| d.parse().ok()))?;
            char::from_u32(code)?.to_string()
        }
    })
}

/// Walks `xml`, calling `on_end(path, text)` at the end of every element with the
/// element path (local names) and its text.
fn walk(xml: &[u8], mut on_end: impl FnMut(&[Vec<u8>], &mut String)) -> Result<(), String> {
    let mut reader = Reader::from_reader(xml);
    let mut path: Vec<Vec<u8>> = Vec::with_capacity(4);
    let mut text = String::new();
    let mut buf = Vec::with_capacity(256);
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                path.push(e.local_name().as_ref().to_vec());
                text.clear();
            }
            Ok(Event::Text(t)) => {
                text.push_str(&t.decode().map_err(|e| format!("bad XML text: {e}"))?)
            }
            Ok(Event::CData(t)) => text.push_str(&String::from_utf8_lossy(&t)),
            Ok(Event::GeneralRef(r)) => match resolve_entity(&r) {
                Some(s) => text.push_str(&s),
                None => {
                    return Err(format!(
                        "unknown XML entity &{};",
                        String::from_utf8_lossy(&r)
                    ));
                }
            },
            Ok(Event::End(_)) => {
                on_end(&path, &mut text);
                path.pop();
                text.clear();
            }
            Ok(Event::Eof) => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(format!("bad XML: {e}")),
        }
        buf.clear();
    }
}

fn is(path: &[Vec<u8>], tail: &[&[u8]]) -> bool {
    path.len() >= tail.len()
        && path[path.len() - tail.len()..]
            .iter()
            .zip(tail)
            .all(|(a, b)| a == b)
}

/// A ListObjectsV2 (or v1) response page.
pub fn parse_list(xml: &[u8]) -> Result<ListPage, String> {
    let mut page = ListPage::default();
    let mut entry: Option<ListEntry> = None;
    walk(xml, |path, text| {
        let Some(last) = path.last() else { return };
        match last.as_slice() {
            b"Key" if is(path, &[b"Contents", b"Key"]) => {
                entry.get_or_insert_with(empty_entry).key = std::mem::take(text)
            }
            b"Size" if is(path, &[b"Contents", b"Size"]) => {
                entry.get_or_insert_with(empty_entry).size = text.trim().parse().unwrap_or(0)
            }
            b"ETag" if is(path, &[b"Contents", b"ETag"]) => {
                entry.get_or_insert_with(empty_entry).etag = Some(std::mem::take(text))
            }
            b"LastModified" if is(path, &[b"Contents", b"LastModified"]) => {
                entry.get_or_insert_with(empty_entry).last_modified = Some(std::mem::take(text))
            }
            b"Contents" => {
                if let Some(e) = entry.take() {
                    page.entries.push(e);
                }
            }
            b"Prefix" if is(path, &[b"CommonPrefixes", b"Prefix"]) => {
                page.common_prefixes.push(std::mem::take(text))
            }
            b"IsTruncated" if path.len() == 2 => page.is_truncated = text.trim() == "true",
            b"NextContinuationToken" if path.len() == 2 => {
                page.next_continuation_token = Some(std::mem::take(text))
            }
            b"NextMarker" if path.len() == 2 && page.next_continuation_token.is_none() => {
                page.next_continuation_token = Some(std::mem::take(text))
            }
            _ => {}
        }
    })?;
    Ok(page)
}

fn empty_entry() -> ListEntry {
    ListEntry {
        key: String::new(),
        size: 0,
        etag: None,
        last_modified: None,
    }
}

/// The `<Code>` of an S3 error document, if the body is one.
pub fn error_code(xml: &[u8]) -> Option<String> {
    let mut code = None;
    walk(xml, |path, text| {
        if is(path, &[b"Error", b"Code"]) {
            code = Some(std::mem::take(text));
        }
    })
    .ok()?;
    code
}

/// `(key, code)` of every `<Error>` in a DeleteObjects result.
pub fn delete_errors(xml: &[u8]) -> Result<Vec<(String, String)>, String> {
    let mut errors = Vec::new();
    let mut key = String::new();
    let mut code = String::new();
    walk(xml, |path, text| {
        if is(path, &[b"Error", b"Key"]) {
            key = std::mem::take(text);
        } else if is(path, &[b"Error", b"Code"]) {
            code = std::mem::take(text);
        } else if path.last().is_some_and(|l| l == b"Error") && path.len() == 2 {
            errors.push((std::mem::take(&mut key), std::mem::take(&mut code)));
        }
    })?;
    Ok(errors)
}

/// The text of the element at the end of `path` (e.g. `UploadId` of an
/// `InitiateMultipartUploadResult`), if the document has one.
pub fn text_at(xml: &[u8], path_tail: &[&[u8]]) -> Result<Option<String>, String> {
    let mut found = None;
    walk(xml, |path, text| {
        if found.is_none() && is(path, path_tail) {
            found = Some(std::mem::take(text));
        }
    })?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix></Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken><Contents><Key>a &amp; b</Key><LastModified>2026-11-22T10:00:00.000Z</LastModified><ETag>&quot;0cc1&quot;</ETag><Size>6</Size><StorageClass>STANDARD</StorageClass></Contents><Contents><Key>caf&#xE9;</Key><LastModified>2026-11-22T10:00:01.000Z</LastModified><ETag>"ff"</ETag><Size>1024</Size></Contents><CommonPrefixes><Prefix>dir/</Prefix></CommonPrefixes></ListBucketResult>"#;

    #[test]
    fn parses_a_list_page() {
        let p = parse_list(PAGE.as_bytes()).unwrap();
        assert_eq!(p.entries.len(), 2);
        assert_eq!(p.entries[0].key, "a & b");
        assert_eq!(p.entries[0].size, 6);
        assert_eq!(p.entries[0].etag.as_deref(), Some("\"0cc1\""));
        assert_eq!(p.entries[1].key, "café");
        assert_eq!(p.entries[1].size, 1024);
        assert_eq!(p.common_prefixes, ["dir/"]);
        assert!(p.is_truncated);
        assert_eq!(
            p.next_continuation_token.as_deref(),
            Some("1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        );
    }

    #[test]
    fn reads_error_codes_and_delete_errors() {
        let e = b"<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>x</Message></Error>";
        assert_eq!(error_code(e).as_deref(), Some("NoSuchKey"));
        assert_eq!(error_code(b"not xml <"), None);
        let d = b"<DeleteResult><Deleted><Key>a</Key></Deleted><Error><Key>b</Key><Code>AccessDenied</Code></Error></DeleteResult>";
        assert_eq!(
            delete_errors(d).unwrap(),
            vec![("b".to_string(), "AccessDenied".to_string())]
        );
    }

    #[test]
    fn finds_upload_ids_and_etags() {
        let init = b"<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>u-1</UploadId></InitiateMultipartUploadResult>";
        assert_eq!(
            text_at(init, &[b"InitiateMultipartUploadResult", b"UploadId"]).unwrap(),
            Some("u-1".into())
        );
        let done = b"<CompleteMultipartUploadResult><ETag>&quot;ab-2&quot;</ETag></CompleteMultipartUploadResult>";
        assert_eq!(
            text_at(done, &[b"CompleteMultipartUploadResult", b"ETag"]).unwrap(),
            Some("\"ab-2\"".into())
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(parse_list(b"<a><b></a>").is_err());
    }
}
