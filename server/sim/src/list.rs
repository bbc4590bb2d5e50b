//! ListObjects (v1 and v2): an ordered range scan from the marker, prefix filtering,
//! delimiter grouping into CommonPrefixes, and pages of at most `max-keys` entries.
//! A page costs what it returns (plus skipped keys inside one common prefix), never a
//! scan of the whole bucket. Objects whose index entry a reshard lost are skipped;
//! a continued page may begin with the key the page before ended on (`list_twice`),
//! decided from the marker alone, so tokens and markers stay what they always are.

use std::fmt::Write;
use std::ops::Bound;

use crate::store::{ObjectRef, Objects};
use crate::xml::{Dates, HEADER, NS, element, escape};

pub struct ListParams<'a> {
    pub prefix: &'a str,
    pub delimiter: Option<&'a str>,
    /// Exclusive: list keys strictly after this one.
    pub after: Option<&'a str>,
    pub max_keys: usize,
    /// Begin with `after` itself, listed again (`list_twice`); only where
    /// [`repeatable`] holds.
    pub repeat: bool,
}

pub enum Entry<'a> {
    Object(ObjectRef<'a>),
    Prefix(String),
}

pub struct Page<'a> {
    pub entries: Vec<Entry<'a>>,
    pub truncated: bool,
    /// The last key or common prefix returned (for markers and tokens).
    pub last: Option<String>,
}

/// The smallest byte string greater than every string starting with `prefix`.
fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut v = prefix.to_vec();
    while let Some(last) = v.pop() {
        if last < 0xff {
            v.push(last + 1);
            return Some(v);
        }
    }
    None
}

pub fn list<'a>(objects: &'a Objects, p: &ListParams<'_>) -> Page<'a> {
    let prefix = p.prefix.as_bytes();
    let mut start: Vec<u8> = prefix.to_vec();
    let mut start_excluded = false;
    if let Some(after) = p.after
        && after.as_bytes() >= prefix
    {
        start = after.as_bytes().to_vec();
        start_excluded = !p.repeat;
    }
    // Every key under the prefix sorts before its successor, so the range itself stops
    // at the prefix's end and no key needs comparing with the prefix.
    let end = prefix_successor(prefix);
    let delimiter = p.delimiter.filter(|d| !d.is_empty());
    let mut entries = Vec::with_capacity(p.max_keys.min(1000));
    let mut truncated = false;
    let mut last_key: Option<&[u8]> = None;
    let mut last = None;
    let mut cursor: Bound<Vec<u8>> = if start_excluded {
        Bound::Excluded(start)
    } else {
        Bound::Included(start)
    };
    'scan: loop {
        for obj in objects.iter_from(cursor.as_ref().map(|v| v.as_slice())) {
            let key = obj.key;
            if end.as_deref().is_some_and(|e| key >= e) {
                break 'scan;
            }
            if !objects.is_listed(key) {
                continue;
            }
            if entries.len() >= p.max_keys {
                // An empty page is never truncated (as RGW and S3 answer `max-keys=0`),
                // so a client looping while truncated always ends.
                truncated = p.max_keys > 0;
                break 'scan;
            }
            if let Some(d) = delimiter
                && let Some(pos) = find(&key[prefix.len()..], d.as_bytes())
            {
                let end = prefix.len() + pos + d.len();
                let common = &key[..end];
                let text = String::from_utf8_lossy(common).into_owned();
                // A marker inside this common prefix means it was returned already.
                let already = p.after.is_some_and(|a| a.as_bytes().starts_with(common));
                if !already {
                    last_key = None;
                    last = Some(text.clone());
                    entries.push(Entry::Prefix(text));
                }
                // Jump past every key under this common prefix.
                match prefix_successor(common) {
                    Some(next) => {
                        cursor = Bound::Included(next);
                        continue 'scan;
                    }
                    None => break 'scan,
                }
            }
            last_key = Some(key);
            entries.push(Entry::Object(obj));
        }
        break;
    }
    if let Some(key) = last_key {
        last = Some(String::from_utf8_lossy(key).into_owned());
    }
    Page {
        entries,
        truncated,
        last,
    }
}

/// Whether a page continued after `p.after` can begin with that key again: it names
/// an object this listing shows as an object (listed, under the prefix, not grouped by
/// the delimiter), so the page before ended on it; and the page may hold more than
/// that key (`max-keys` ≥ 2), so a repeat still makes progress.
pub fn repeatable(objects: &Objects, p: &ListParams<'_>) -> bool {
    let Some(after) = p.after else {
        return false;
    };
    let Some(rest) = after.strip_prefix(p.prefix) else {
        return false;
    };
    let grouped = p
        .delimiter
        .is_some_and(|d| !d.is_empty() && rest.contains(d));
    p.max_keys >= 2
        && !grouped
        && objects.get(after.as_bytes()).is_some()
        && objects.is_listed(after.as_bytes())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Keys as S3 returns them: raw, or URL-encoded with `encoding-type=url`.
pub fn encode_key(key: &str, url: bool) -> std::borrow::Cow<'_, str> {
    if !url {
        return escape(key);
    }
    const SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~')
        .remove(b'/');
    std::borrow::Cow::Owned(percent_encoding::utf8_percent_encode(key, SET).to_string())
}

/// Whether a key can go into the document as it is stored: ASCII without markup
/// characters, which is what almost every key is. Written as one pass without an early
/// exit, which the compiler turns into vector compares.
fn plain_key(key: &[u8]) -> bool {
    !key.iter().fold(false, |bad, &b| {
        bad | (b >= 0x80) | (b == b'&') | (b == b'<') | (b == b'>') | (b == b'"') | (b == b'\'')
    })
}

/// One `<Contents>` element, written as bytes without formatting machinery or
/// temporary strings: a page of a thousand of them is the hottest thing the target
/// writes. Everything between the key and the size has a fixed length (for a single
/// PUT's ETag) and is assembled on the stack, then copied once.
fn write_object(out: &mut Vec<u8>, dates: &mut Dates, obj: &ObjectRef<'_>, url: bool) {
    let key = obj.key;
    out.extend_from_slice(b"<Contents><Key>");
    if !url && plain_key(key) {
        out.extend_from_slice(key);
    } else {
        let key = String::from_utf8_lossy(key);
        out.extend_from_slice(encode_key(&key, url).as_bytes());
    }
    const MIDDLE: &[u8; 122] = b"</Key><LastModified>YYYY-MM-DDTHH:MM:SS.mmmZ</LastModified><ETag>&quot;0123456789abcdef0123456789abcdef&quot;</ETag><Size>";
    let mut middle = *MIDDLE;
    middle[20..44].copy_from_slice(&dates.format(obj.last_modified_ms).0);
    hex_into(&obj.etag(), &mut middle[71..103]);
    if obj.parts == 0 {
        out.extend_from_slice(&middle);
    } else {
        out.extend_from_slice(&middle[..103]);
        out.push(b'-');
        out.extend_from_slice(itoa::Buffer::new().format(obj.parts).as_bytes());
        out.extend_from_slice(&middle[103..]);
    }
    out.extend_from_slice(itoa::Buffer::new().format(obj.size).as_bytes());
    out.extend_from_slice(b"</Size><StorageClass>STANDARD</StorageClass></Contents>");
}

/// Lower-case hex of `bytes` into `out` (twice as long).
fn hex_into(bytes: &[u8; 16], out: &mut [u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(b >> 4)];
        pair[1] = DIGITS[usize::from(b & 0xf)];
    }
}

/// The entries of a page after the document's head; objects first, then common
/// prefixes, as S3 orders them.
fn write_entries(head: String, page: &Page<'_>, url: bool) -> Vec<u8> {
    let mut out = head.into_bytes();
    out.reserve(64 + page.entries.len() * 220);
    let mut prefixes = String::new();
    let mut dates = Dates::default();
    for e in &page.entries {
        match e {
            Entry::Object(obj) => write_object(&mut out, &mut dates, obj, url),
            Entry::Prefix(p) => {
                let _ = write!(
                    prefixes,
                    "<CommonPrefixes><Prefix>{}</Prefix></CommonPrefixes>",
                    encode_key(p, url)
                );
            }
        }
    }
    out.extend_from_slice(prefixes.as_bytes());
    out.extend_from_slice(b"</ListBucketResult>");
    out
}

pub struct V2Response<'a> {
    pub bucket: &'a str,
    pub params: &'a ListParams<'a>,
    pub continuation_token: Option<&'a str>,
    pub start_after: Option<&'a str>,
    pub url: bool,
}

pub fn v2_xml(r: &V2Response<'_>, page: &Page<'_>) -> Vec<u8> {
    let mut out = String::with_capacity(512);
    out.push_str(HEADER);
    let _ = write!(out, "<ListBucketResult xmlns=\"{NS}\">");
    element(&mut out, "Name", r.bucket);
    element(&mut out, "Prefix", &encode_key(r.params.prefix, r.url));
    if let Some(d) = r.params.delimiter {
        element(&mut out, "Delimiter", &encode_key(d, r.url));
    }
    let _ = write!(out, "<MaxKeys>{}</MaxKeys>", r.params.max_keys);
    let _ = write!(out, "<KeyCount>{}</KeyCount>", page.entries.len());
    let _ = write!(out, "<IsTruncated>{}</IsTruncated>", page.truncated);
    if r.url {
        out.push_str("<EncodingType>url</EncodingType>");
    }
    if let Some(t) = r.continuation_token {
        element(&mut out, "ContinuationToken", t);
    }
    if page.truncated
        && let Some(last) = &page.last
    {
        element(
            &mut out,
            "NextContinuationToken",
            &hex::encode(last.as_bytes()),
        );
    }
    if let Some(s) = r.start_after {
        element(&mut out, "StartAfter", &encode_key(s, r.url));
    }
    write_entries(out, page, r.url)
}

pub fn v1_xml(
    bucket: &str,
    params: &ListParams<'_>,
    marker: &str,
    url: bool,
    page: &Page<'_>,
) -> Vec<u8> {
    let mut out = String::with_capacity(512);
    out.push_str(HEADER);
    let _ = write!(out, "<ListBucketResult xmlns=\"{NS}\">");
    element(&mut out, "Name", bucket);
    element(&mut out, "Prefix", &encode_key(params.prefix, url));
    element(&mut out, "Marker", &encode_key(marker, url));
    if let Some(d) = params.delimiter {
        element(&mut out, "Delimiter", &encode_key(d, url));
    }
    let _ = write!(out, "<MaxKeys>{}</MaxKeys>", params.max_keys);
    let _ = write!(out, "<IsTruncated>{}</IsTruncated>", page.truncated);
    if url {
        out.push_str("<EncodingType>url</EncodingType>");
    }
    if page.truncated
        && params.delimiter.is_some()
        && let Some(last) = &page.last
    {
        element(&mut out, "NextMarker", &encode_key(last, url));
    }
    write_entries(out, page, url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn objects(keys: &[&str]) -> Objects {
        let mut o = Objects::new(0);
        for k in keys {
            o.insert(
                k.as_bytes(),
                crate::store::Object {
                    size: 1,
                    etag: [0; 16],
                    last_modified_ms: 0,
                    content_type: None,
                    metadata: Box::new([]),
                    data: None,
                    parts: 0,
                },
            );
        }
        o
    }

    fn names(page: &Page<'_>) -> Vec<String> {
        page.entries
            .iter()
            .map(|e| match e {
                Entry::Object(o) => String::from_utf8_lossy(o.key).into_owned(),
                Entry::Prefix(p) => format!("P:{p}"),
            })
            .collect()
    }

    #[test]
    fn contents_are_written_as_s3_writes_them() {
        let mut obj = ObjectRef {
            key: b"",
            size: 1234,
            etag: Some([0xab; 16]),
            last_modified_ms: 1_795_000_000_123,
            parts: 0,
            meta: None,
            data: None,
        };
        let mut dates = Dates::default();
        for (parts, key, url) in [(0, "a&b", false), (3, "dir/x y", true), (0, "plain", false)] {
            obj.parts = parts;
            obj.key = key.as_bytes();
            let mut out = Vec::new();
            write_object(&mut out, &mut dates, &obj, url);
            let etag = if parts > 0 {
                format!("{}-{parts}", "ab".repeat(16))
            } else {
                "ab".repeat(16)
            };
            let date = humantime::format_rfc3339_millis(
                std::time::UNIX_EPOCH + std::time::Duration::from_millis(obj.last_modified_ms),
            );
            let expected = format!(
                "<Contents><Key>{}</Key><LastModified>{date}</LastModified><ETag>&quot;{etag}&quot;</ETag><Size>1234</Size><StorageClass>STANDARD</StorageClass></Contents>",
                encode_key(key, url)
            );
            assert_eq!(String::from_utf8(out).unwrap(), expected);
        }
    }

    #[test]
    fn delimiter_groups_and_skips_whole_folders() {
        let o = objects(&["a/1", "a/2", "a/3", "b", "c/x/1", "c/y", "d"]);
        let p = ListParams {
            prefix: "",
            delimiter: Some("/"),
            after: None,
            max_keys: 1000,
            repeat: false,
        };
        assert_eq!(names(&list(&o, &p)), ["P:a/", "b", "P:c/", "d"]);
        let p = ListParams {
            prefix: "c/",
            delimiter: Some("/"),
            after: None,
            max_keys: 1000,
            repeat: false,
        };
        assert_eq!(names(&list(&o, &p)), ["P:c/x/", "c/y"]);
    }

    #[test]
    fn pages_continue_after_the_last_entry() {
        let o = objects(&["a/1", "a/2", "b", "c/1", "d"]);
        let p = ListParams {
            prefix: "",
            delimiter: Some("/"),
            after: None,
            max_keys: 2,
            repeat: false,
        };
        let first = list(&o, &p);
        assert_eq!(names(&first), ["P:a/", "b"]);
        assert!(first.truncated);
        let p2 = ListParams {
            prefix: "",
            delimiter: Some("/"),
            after: first.last.as_deref(),
            max_keys: 2,
            repeat: false,
        };
        let second = list(&o, &p2);
        assert_eq!(names(&second), ["P:c/", "d"]);
        assert!(!second.truncated);
        // A marker inside a common prefix does not return that prefix again.
        let p3 = ListParams {
            prefix: "",
            delimiter: Some("/"),
            after: Some("a/1"),
            max_keys: 10,
            repeat: false,
        };
        assert_eq!(names(&list(&o, &p3)), ["b", "P:c/", "d"]);
    }

    fn params<'a>(
        prefix: &'a str,
        delimiter: Option<&'a str>,
        after: Option<&'a str>,
        max_keys: usize,
    ) -> ListParams<'a> {
        ListParams {
            prefix,
            delimiter,
            after,
            max_keys,
            repeat: false,
        }
    }

    #[test]
    fn unlisted_objects_are_in_no_listing() {
        let mut o = objects(&["a/1", "a/2", "b", "c/1", "c/2", "d"]);
        for k in ["a/1", "a/2", "c/1", "d"] {
            assert!(o.unlist(k.as_bytes()));
        }
        let all = list(&o, &params("", None, None, 1000));
        assert_eq!(names(&all), ["b", "c/2"]);
        // A folder of unlisted keys only is no common prefix.
        assert_eq!(
            names(&list(&o, &params("", Some("/"), None, 1000))),
            ["b", "P:c/"]
        );
        assert_eq!(names(&list(&o, &params("c/", None, None, 1000))), ["c/2"]);
        // Nothing listed after the last listed key: the page is not truncated.
        let page = list(&o, &params("", None, Some("b"), 1));
        assert_eq!(names(&page), ["c/2"]);
        assert!(!page.truncated);
    }

    #[test]
    fn a_repeated_page_begins_with_the_key_the_last_one_ended_on() {
        let mut o = objects(&["a/", "a/1", "b", "c", "d/1", "e"]);
        let mut p = params("", None, Some("b"), 2);
        assert!(repeatable(&o, &p));
        p.repeat = true;
        let page = list(&o, &p);
        assert_eq!(names(&page), ["b", "c"]);
        assert_eq!(page.last.as_deref(), Some("c"));
        // Only a key this listing shows as an object, on pages that still progress.
        let can = |o: &Objects, prefix, delimiter, after, max_keys| {
            repeatable(o, &params(prefix, delimiter, Some(after), max_keys))
        };
        assert!(can(&o, "", Some("/"), "c", 2));
        assert!(!can(&o, "", None, "b", 1), "one key a page");
        assert!(!can(&o, "", None, "bb", 2), "no such key");
        assert!(!can(&o, "", Some("/"), "a/1", 2), "inside a common prefix");
        assert!(!can(&o, "", Some("/"), "a/", 2), "a common prefix");
        assert!(!can(&o, "d/", None, "c", 2), "outside the prefix");
        assert!(can(&o, "d/", Some("/"), "d/1", 2));
        assert!(!repeatable(&o, &params("", None, None, 2)), "no marker");
        assert!(o.unlist(b"c"));
        assert!(!can(&o, "", None, "c", 2), "unlisted");
    }

    #[test]
    fn prefix_bounds_the_scan() {
        let o = objects(&["x", "y/1", "y/2", "z"]);
        let p = ListParams {
            prefix: "y/",
            delimiter: None,
            after: None,
            max_keys: 1000,
            repeat: false,
        };
        assert_eq!(names(&list(&o, &p)), ["y/1", "y/2"]);
        let p = ListParams {
            prefix: "y/",
            delimiter: None,
            after: Some("a"),
            max_keys: 1000,
            repeat: false,
        };
        assert_eq!(names(&list(&o, &p)), ["y/1", "y/2"]);
    }
}
