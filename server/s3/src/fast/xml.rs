//! Streaming parsers for the S3 responses the fast client reads: ListObjectsV2 pages,
//! DeleteObjects results and error codes. No DOM, no serde, no allocation per element:
//! one pass over the bytes.

use std::borrow::Cow;

use crate::ListPage;
use keystorm_types::{ListEntry, storage_class};

/// Deepest element nesting accepted; S3 documents go four levels deep.
const MAX_DEPTH: usize = 32;

/// The character an entity reference (`amp`, `#xE9`, `#233`) stands for.
fn resolve_entity(name: &[u8]) -> Option<char> {
    Some(match name {
        b"amp" => '&',
        b"lt" => '<',
        b"gt" => '>',
        b"quot" => '"',
        b"apos" => '\'',
        n => {
            let n = std::str::from_utf8(n).ok()?;
            let code = n
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| n.strip_prefix('#').and_then(|d| d.parse().ok()))?;
            char::from_u32(code)?
        }
    })
}

/// Why a response is not the XML it should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum XmlError {
    #[error("bad XML text: {0}")]
    Text(#[from] std::str::Utf8Error),
    #[error("unknown XML entity &{0};")]
    Entity(String),
    #[error("bad XML: unterminated {0}")]
    Unterminated(String),
    #[error("bad XML: unexpected </{0}>")]
    UnexpectedClose(String),
    #[error("bad XML: <{0}> is not closed")]
    NotClosed(String),
    #[error("bad XML: {0}")]
    Shape(&'static str),
}

/// Appends character data to `text`, resolving entity references.
fn push_text(text: &mut String, raw: &[u8]) -> Result<(), XmlError> {
    let mut rest = std::str::from_utf8(raw).map_err(XmlError::Text)?;
    while let Some(amp) = memchr::memchr(b'&', rest.as_bytes()) {
        text.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semi = memchr::memchr(b';', after.as_bytes())
            .ok_or_else(|| XmlError::Unterminated("entity reference".to_string()))?;
        let name = &after[..semi];
        text.push(
            resolve_entity(name.as_bytes()).ok_or_else(|| XmlError::Entity(name.to_string()))?,
        );
        rest = &after[semi + 1..];
    }
    text.push_str(rest);
    Ok(())
}

/// The end of a markup construct starting at `from`: the index just past `close`.
fn skip_past(xml: &[u8], from: usize, close: &[u8], what: &str) -> Result<usize, XmlError> {
    memchr::memmem::find(&xml[from..], close)
        .map(|i| from + i + close.len())
        .ok_or_else(|| XmlError::Unterminated(what.to_string()))
}

/// The `>` closing the tag that starts at `from`, skipping quoted attribute values.
/// Tags are a few bytes long: a plain loop beats a vectorised search here.
fn tag_end(xml: &[u8], from: usize) -> Result<usize, XmlError> {
    let mut quote = None;
    for (i, &b) in xml[from..].iter().enumerate() {
        match (quote, b) {
            (None, b'>') => return Ok(from + i),
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            _ => {}
        }
    }
    Err(XmlError::Unterminated("tag".to_string()))
}

/// The local name of a tag (`s3:Key` → `Key`).
fn local_name(name: &[u8]) -> &[u8] {
    match name.iter().rposition(|&b| b == b':') {
        Some(i) => &name[i + 1..],
        None => name,
    }
}

/// What a walk over a document does with its elements.
trait Visitor {
    /// Whether the text of elements with this local name is wanted; others see "".
    fn keep(&self, _name: &[u8]) -> bool {
        true
    }

    /// An element just opened at `path`; its content starts at `xml[at..]`. A visitor
    /// may read the whole element itself and return the index just past its end tag;
    /// `None` lets the walk go on element by element.
    fn open(
        &mut self,
        _path: &[&[u8]],
        _xml: &[u8],
        _at: usize,
    ) -> Result<Option<usize>, XmlError> {
        Ok(None)
    }

    /// The end of the element at `path`, with its text.
    fn end(&mut self, path: &[&[u8]], text: &str);
}

/// A visitor that only looks at element ends.
struct Ends<F>(F);

impl<F: FnMut(&[&[u8]], &str)> Visitor for Ends<F> {
    fn end(&mut self, path: &[&[u8]], text: &str) {
        (self.0)(path, text)
    }
}

/// Walks `xml`, calling the visitor at the start and end of every element with the
/// element path (local names) and, at the end, its text. One pass, no allocation per
/// element: a list page holds thousands of them, and parsing it is most of a lister's
/// CPU. Checks what matters for S3's documents: tags nest and close in order, kept
/// text is UTF-8 with known entities; DTDs are not read.
fn walk(xml: &[u8], visitor: &mut impl Visitor) -> Result<(), XmlError> {
    let mut keeping = false;
    let mut path: Vec<&[u8]> = Vec::with_capacity(8);
    // An element's text is usually one run without entities: it is passed on as it
    // lies in `xml`, and only copied into `text` when it comes in pieces.
    let mut text = String::new();
    let mut run: Option<&str> = None;
    let mut pos = 0;
    while pos < xml.len() {
        let Some(lt) = xml[pos..].iter().position(|&b| b == b'<').map(|i| pos + i) else {
            if path.is_empty() && xml[pos..].iter().all(u8::is_ascii_whitespace) {
                break;
            }
            return Err(XmlError::Shape(
                "text after the document or an unclosed element",
            ));
        };
        if lt > pos && keeping {
            let raw = &xml[pos..lt];
            if run.is_none() && text.is_empty() && !raw.contains(&b'&') {
                run = Some(std::str::from_utf8(raw).map_err(XmlError::Text)?);
            } else {
                if let Some(r) = run.take() {
                    text.push_str(r);
                }
                push_text(&mut text, raw)?;
            }
        }
        let rest = &xml[lt + 1..];
        if rest.starts_with(b"?") {
            pos = skip_past(xml, lt, b"?>", "processing instruction")?;
        } else if rest.starts_with(b"!--") {
            pos = skip_past(xml, lt, b"-->", "comment")?;
        } else if rest.starts_with(b"![CDATA[") {
            let body = lt + 9;
            pos = skip_past(xml, body, b"]]>", "CDATA section")?;
            let cdata = std::str::from_utf8(&xml[body..pos - 3]).map_err(XmlError::Text)?;
            if keeping {
                if let Some(r) = run.take() {
                    text.push_str(r);
                }
                text.push_str(cdata);
            }
        } else if rest.starts_with(b"!") {
            pos = tag_end(xml, lt)? + 1;
        } else if let Some(name) = rest.strip_prefix(b"/") {
            let gt = tag_end(xml, lt)?;
            let name = local_name(name[..gt - lt - 2].trim_ascii_end());
            match path.last() {
                Some(open) if *open == name => {}
                _ => {
                    return Err(XmlError::UnexpectedClose(
                        String::from_utf8_lossy(name).into_owned(),
                    ));
                }
            }
            visitor.end(&path, run.take().unwrap_or(&text));
            path.pop();
            text.clear();
            keeping = false;
            pos = gt + 1;
        } else {
            let gt = tag_end(xml, lt)?;
            let tag = &xml[lt + 1..gt];
            let self_closing = tag.ends_with(b"/");
            let name_len = tag
                .iter()
                .position(|&b| b.is_ascii_whitespace() || b == b'/')
                .unwrap_or(tag.len());
            if name_len == 0 {
                return Err(XmlError::Shape("a tag without a name"));
            }
            if path.len() == MAX_DEPTH {
                return Err(XmlError::Shape("elements nested too deep"));
            }
            let name = local_name(&tag[..name_len]);
            path.push(name);
            text.clear();
            run = None;
            keeping = !self_closing && visitor.keep(name);
            pos = gt + 1;
            if self_closing {
                visitor.end(&path, "");
                path.pop();
            } else if let Some(next) = visitor.open(&path, xml, pos)? {
                path.pop();
                keeping = false;
                pos = next;
            }
        }
    }
    match path.last() {
        None => Ok(()),
        Some(open) => Err(XmlError::NotClosed(
            String::from_utf8_lossy(open).into_owned(),
        )),
    }
}

fn is(path: &[&[u8]], tail: &[&[u8]]) -> bool {
    path.len() >= tail.len() && path[path.len() - tail.len()..] == *tail
}

/// A ListObjectsV2 (or v1) response page. Without `details`, entries carry key and
/// size only (no ETag, no last-modified): what counting a bucket needs, for less CPU.
pub fn parse_list(xml: &[u8], details: bool) -> Result<ListPage, XmlError> {
    parse_list_with(xml, true, details)
}

/// `plain`: read `<Contents>` elements with [`plain_contents`] where they allow it.
fn parse_list_with(xml: &[u8], plain: bool, details: bool) -> Result<ListPage, XmlError> {
    let mut visitor = ListVisitor {
        page: ListPage::default(),
        entry: None,
        plain,
        details,
    };
    walk(xml, &mut visitor)?;
    Ok(visitor.page)
}

struct ListVisitor {
    page: ListPage,
    entry: Option<ListEntry>,
    plain: bool,
    details: bool,
}

impl ListVisitor {
    fn push(&mut self, entry: ListEntry) {
        if self.page.entries.capacity() == 0 {
            self.page.entries.reserve(1000);
        }
        self.page.entries.push(entry);
    }

    fn entry(&mut self) -> &mut ListEntry {
        self.entry.get_or_insert_with(empty_entry)
    }
}

impl Visitor for ListVisitor {
    fn keep(&self, name: &[u8]) -> bool {
        match name {
            b"ETag" | b"LastModified" | b"StorageClass" => self.details,
            _ => matches!(
                name,
                b"Key"
                    | b"Size"
                    | b"Prefix"
                    | b"IsTruncated"
                    | b"NextContinuationToken"
                    | b"NextMarker"
            ),
        }
    }

    fn open(&mut self, path: &[&[u8]], xml: &[u8], at: usize) -> Result<Option<usize>, XmlError> {
        if !self.plain || path.len() != 2 || path[1] != b"Contents" {
            return Ok(None);
        }
        // Sibling `<Contents>` follow each other: they are read in one go, without a
        // return to the walk between them.
        let Some((entry, mut next)) = plain_contents(xml, at, self.details)? else {
            return Ok(None);
        };
        self.push(entry);
        while let Some(start) = next_contents(xml, next) {
            let Some((entry, end)) = plain_contents(xml, start, self.details)? else {
                // The walk reads this one from its start tag.
                break;
            };
            self.push(entry);
            next = end;
        }
        Ok(Some(next))
    }

    fn end(&mut self, path: &[&[u8]], text: &str) {
        let Some(last) = path.last() else { return };
        let in_contents = path.len() >= 2 && path[path.len() - 2] == b"Contents";
        match *last {
            b"Key" if in_contents => self.entry().key = text.into(),
            b"Size" if in_contents => self.entry().size = parse_size(text.as_bytes()),
            b"ETag" if in_contents && self.details => self.entry().etag = Some(text.into()),
            b"LastModified" if in_contents && self.details => {
                self.entry().last_modified = Some(text.into())
            }
            b"StorageClass" if in_contents && self.details => {
                self.entry().storage_class = Some(storage_class(text))
            }
            b"Contents" => {
                if let Some(e) = self.entry.take() {
                    self.push(e);
                }
            }
            b"Prefix" if is(path, &[b"CommonPrefixes", b"Prefix"]) => {
                self.page.common_prefixes.push(text.into())
            }
            b"IsTruncated" if path.len() == 2 => self.page.is_truncated = text.trim() == "true",
            b"NextContinuationToken" if path.len() == 2 => {
                self.page.next_continuation_token = Some(text.into())
            }
            b"NextMarker" if path.len() == 2 && self.page.next_continuation_token.is_none() => {
                self.page.next_continuation_token = Some(text.into())
            }
            _ => {}
        }
    }
}

/// The index of the first `<` at or after `from`. Many texts of a listing are short
/// (sizes, storage classes): a plain look at the first bytes beats setting up a
/// vectorised search, which takes over for the rest.
fn next_lt(xml: &[u8], from: usize) -> Option<usize> {
    let head = &xml[from..xml.len().min(from + 16)];
    match head.iter().position(|&b| b == b'<') {
        Some(i) => Some(from + i),
        None => memchr::memchr(b'<', &xml[from + head.len()..]).map(|i| from + head.len() + i),
    }
}

/// The content of the `<Contents>` element starting at or after `xml[pos..]` (after
/// whitespace), if that is what comes next.
fn next_contents(xml: &[u8], pos: usize) -> Option<usize> {
    let pos = skip_space(xml, pos);
    xml[pos..]
        .starts_with(b"<Contents>")
        .then_some(pos + b"<Contents>".len())
}

/// The first index at or after `pos` that is not XML whitespace.
fn skip_space(xml: &[u8], mut pos: usize) -> usize {
    while xml.get(pos).is_some_and(u8::is_ascii_whitespace) {
        pos += 1;
    }
    pos
}

/// Reads a `<Contents>` element written the way S3 servers write it — child elements
/// holding only text, no attributes, e.g. `<Key>k</Key><Size>6</Size>` — from its
/// content at `xml[at..]`: the entry and the index just past `</Contents>`. `None` at
/// anything else (nested elements such as `<Owner>`, attributes, comments, CDATA), for
/// the walk to read generically. Each byte is looked at about once, against several
/// times in the walk: this is most of what listing a bucket costs the client.
fn plain_contents(
    xml: &[u8],
    mut pos: usize,
    details: bool,
) -> Result<Option<(ListEntry, usize)>, XmlError> {
    let mut entry = empty_entry();
    loop {
        pos = skip_space(xml, pos);
        if xml.get(pos) != Some(&b'<') {
            return Ok(None);
        }
        let rest = &xml[pos + 1..];
        if rest.starts_with(b"/Contents>") {
            return Ok(Some((entry, pos + 11)));
        }
        let name = match known_child(rest) {
            Some(known) => known,
            None => {
                let Some(len) = rest.iter().take(64).position(|&b| b == b'>') else {
                    return Ok(None);
                };
                let name = &rest[..len];
                if name.is_empty() || !name.iter().all(u8::is_ascii_alphanumeric) {
                    return Ok(None);
                }
                name
            }
        };
        let body = pos + name.len() + 2;
        let Some(end) = next_lt(xml, body) else {
            return Ok(None);
        };
        if !xml
            .get(end + 1..)
            .is_some_and(|r| r.first() == Some(&b'/') && tag_named(&r[1..], name))
        {
            return Ok(None);
        }
        let raw = &xml[body..end];
        match name {
            b"Key" => entry.key = owned_text(raw)?,
            b"Size" => entry.size = parse_size(raw),
            b"ETag" if details => entry.etag = Some(etag_text(raw)?),
            b"LastModified" if details => entry.last_modified = Some(owned_text(raw)?),
            b"StorageClass" if details => entry.storage_class = Some(class_text(raw)?),
            _ => {}
        }
        pos = end + name.len() + 3;
    }
}

/// The name of the start tag `rest` begins with (what follows its `<`), if it is one of
/// the children of `<Contents>` that S3 servers write: recognised by its first letter
/// and one comparison, where other names are read byte by byte.
fn known_child(rest: &[u8]) -> Option<&'static [u8]> {
    let name: &'static [u8] = match rest.first()? {
        b'K' => b"Key",
        b'L' => b"LastModified",
        b'E' => b"ETag",
        b'S' if rest.get(1) == Some(&b'i') => b"Size",
        b'S' => b"StorageClass",
        _ => return None,
    };
    tag_named(rest, name).then_some(name)
}

/// Whether `rest` (what follows a `<` or `</`) is the tag `name` closed by `>`. Names
/// are a few bytes: a plain loop beats a call to `memcmp`.
fn tag_named(rest: &[u8], name: &[u8]) -> bool {
    rest.len() > name.len()
        && rest.iter().zip(name).all(|(a, b)| a == b)
        && rest[name.len()] == b'>'
}

/// A decimal size (surrounding whitespace allowed); anything else reads as 0.
fn parse_size(raw: &[u8]) -> u64 {
    let digits = raw.trim_ascii();
    if digits.is_empty() || digits.len() > 20 || !digits.iter().all(u8::is_ascii_digit) {
        return 0;
    }
    digits
        .iter()
        .try_fold(0u64, |n, &d| {
            n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
        .unwrap_or(0)
}

/// An ETag as S3 writes it, `&quot;<hex>&quot;`, without going through the general
/// entity decoder; anything else through [`owned_text`].
fn etag_text(raw: &[u8]) -> Result<String, XmlError> {
    const QUOT: &[u8] = b"&quot;";
    if let Some(inner) = raw
        .strip_prefix(QUOT)
        .and_then(|r| r.strip_suffix(QUOT))
        .filter(|inner| memchr::memchr(b'&', inner).is_none())
    {
        let inner = std::str::from_utf8(inner).map_err(XmlError::Text)?;
        let mut text = String::with_capacity(inner.len() + 2);
        text.push('"');
        text.push_str(inner);
        text.push('"');
        return Ok(text);
    }
    owned_text(raw)
}

/// Element text as an owned string, entities resolved.
fn owned_text(raw: &[u8]) -> Result<String, XmlError> {
    if memchr::memchr(b'&', raw).is_some() {
        let mut text = String::with_capacity(raw.len());
        push_text(&mut text, raw)?;
        Ok(text)
    } else {
        std::str::from_utf8(raw)
            .map(str::to_owned)
            .map_err(XmlError::Text)
    }
}

/// A storage class, without an allocation when it is one S3 names and holds no entity.
fn class_text(raw: &[u8]) -> Result<Cow<'static, str>, XmlError> {
    if memchr::memchr(b'&', raw).is_some() {
        return owned_text(raw).map(Cow::Owned);
    }
    std::str::from_utf8(raw)
        .map(storage_class)
        .map_err(XmlError::Text)
}

fn empty_entry() -> ListEntry {
    ListEntry {
        key: String::new(),
        size: 0,
        etag: None,
        last_modified: None,
        storage_class: None,
    }
}

/// The `<Code>` of an S3 error document, if the body is one.
pub fn error_code(xml: &[u8]) -> Option<String> {
    let mut code = None;
    walk(
        xml,
        &mut Ends(|path: &[&[u8]], text: &str| {
            if is(path, &[b"Error", b"Code"]) {
                code = Some(text.to_string());
            }
        }),
    )
    .ok()?;
    code
}

/// The `<Message>` of an S3 error document, if the body is one and has it.
pub fn error_message(xml: &[u8]) -> Option<String> {
    let mut message = None;
    walk(
        xml,
        &mut Ends(|path: &[&[u8]], text: &str| {
            if is(path, &[b"Error", b"Message"]) {
                message = Some(text.to_string());
            }
        }),
    )
    .ok()?;
    message
}

/// `(key, code)` of every `<Error>` in a DeleteObjects result.
pub fn delete_errors(xml: &[u8]) -> Result<Vec<(String, String)>, XmlError> {
    let mut errors = Vec::new();
    let mut key = String::new();
    let mut code = String::new();
    walk(
        xml,
        &mut Ends(|path: &[&[u8]], text: &str| {
            if is(path, &[b"Error", b"Key"]) {
                key = text.to_string();
            } else if is(path, &[b"Error", b"Code"]) {
                code = text.to_string();
            } else if path.last().is_some_and(|l| *l == b"Error") && path.len() == 2 {
                errors.push((std::mem::take(&mut key), std::mem::take(&mut code)));
            }
        }),
    )?;
    Ok(errors)
}

/// The text of the element at the end of `path` (e.g. `UploadId` of an
/// `InitiateMultipartUploadResult`), if the document has one.
pub fn text_at(xml: &[u8], path_tail: &[&[u8]]) -> Result<Option<String>, XmlError> {
    let mut found = None;
    walk(
        xml,
        &mut Ends(|path: &[&[u8]], text: &str| {
            if found.is_none() && is(path, path_tail) {
                found = Some(text.to_string());
            }
        }),
    )?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix></Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken><Contents><Key>a &amp; b</Key><LastModified>2026-11-22T10:00:00.000Z</LastModified><ETag>&quot;0cc1&quot;</ETag><Size>6</Size><StorageClass>STANDARD</StorageClass></Contents><Contents><Key>caf&#xE9;</Key><LastModified>2026-11-22T10:00:01.000Z</LastModified><ETag>"ff"</ETag><Size>1024</Size></Contents><CommonPrefixes><Prefix>dir/</Prefix></CommonPrefixes></ListBucketResult>"#;

    #[test]
    fn parses_a_list_page() {
        let p = parse_list(PAGE.as_bytes(), true).unwrap();
        assert_eq!(p.entries.len(), 2);
        assert_eq!(p.entries[0].key, "a & b");
        assert_eq!(p.entries[0].size, 6);
        assert_eq!(p.entries[0].etag.as_deref(), Some("\"0cc1\""));
        assert_eq!(p.entries[1].key, "café");
        assert_eq!(p.entries[1].size, 1024);
        assert_eq!(p.entries[0].storage_class.as_deref(), Some("STANDARD"));
        assert_eq!(p.entries[1].storage_class, None);
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
        assert_eq!(error_message(e).as_deref(), Some("x"));
        assert_eq!(error_code(b"not xml <"), None);
        assert_eq!(error_message(b"<Error><Code>A</Code></Error>"), None);
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
        for bad in [
            &b"<a><b></a>"[..],
            b"<a>",
            b"<a></b>",
            b"<a><Key>x &nbsp; y</Key></a>",
            b"<a><Key>x &amp y</Key></a>",
            b"<a><Key>\xff</Key></a>",
            b"<a><!-- open",
            b"<a><![CDATA[x</a>",
            b"<a x=\"1>",
            b"< >",
            b"</a>",
            b"<a></a>trailing",
        ] {
            assert!(
                parse_list(bad, true).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let deep = "<a>".repeat(40) + &"</a>".repeat(40);
        assert!(parse_list(deep.as_bytes(), true).is_err());
    }

    #[test]
    fn the_plain_reader_agrees_with_the_walk() {
        // Plain entries, entries the plain reader hands back (an Owner block, an
        // attribute, a comment, CDATA, a prefixed name) and whitespace, mixed in one page.
        let mut xml = String::from(
            "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>t</NextContinuationToken>",
        );
        for i in 0..200 {
            let key = ["k&amp;", "caf&#xE9;", "a b", "x", "%2B+"][i % 5];
            let extra = match i % 9 {
                0 => "<Owner><ID>o</ID></Owner>",
                1 => "<Checksum a=\"1\">x</Checksum>",
                2 => "<!-- c -->",
                3 => "<Other><![CDATA[z]]></Other>",
                4 => "\n  ",
                5 => "<ns:Tag>t</ns:Tag>",
                6 => "<Keys>k</Keys><S>s</S><SizeClass>z</SizeClass>",
                _ => "",
            };
            let etag = match i % 11 {
                10 => format!("bare{i}"),
                9 => format!("&quot;{i}&amp;{i}&quot;"),
                _ => format!("&quot;{i:x}&quot;"),
            };
            xml.push_str(&format!(
                "<Contents>{extra}<Key>{key}{i}</Key><LastModified>2026-11-23T00:00:{:02}.000Z</LastModified><ETag>{etag}</ETag><Size> {i} </Size><StorageClass>STANDARD</StorageClass></Contents>\n",
                i % 60
            ));
            if i % 50 == 0 {
                xml.push_str(&format!(
                    "<CommonPrefixes><Prefix>p{i}/</Prefix></CommonPrefixes>"
                ));
            }
        }
        xml.push_str("</ListBucketResult>");
        let plain = parse_list_with(xml.as_bytes(), true, true).unwrap();
        let walked = parse_list_with(xml.as_bytes(), false, true).unwrap();
        assert_eq!(plain, walked);
        assert_eq!(plain.entries.len(), 200);
        assert_eq!(plain.entries[6].key, "caf\u{e9}6");
        assert_eq!(plain.entries[7].size, 7);
        assert_eq!(plain.common_prefixes.len(), 4);
        assert_eq!(plain.entries[1].etag.as_deref(), Some("\"1\""));
        assert_eq!(plain.entries[9].etag.as_deref(), Some("\"9&9\""));
        assert_eq!(plain.entries[10].etag.as_deref(), Some("bare10"));
        // Without details: the same keys and sizes, no ETags or dates, by both readers.
        let bare = parse_list_with(xml.as_bytes(), true, false).unwrap();
        assert_eq!(bare, parse_list_with(xml.as_bytes(), false, false).unwrap());
        assert!(
            bare.entries.iter().all(|e| e.etag.is_none()
                && e.last_modified.is_none()
                && e.storage_class.is_none())
        );
        assert!(
            plain
                .entries
                .iter()
                .all(|e| matches!(e.storage_class, Some(Cow::Borrowed("STANDARD"))))
        );
        let keys_sizes = |p: &ListPage| -> Vec<(String, u64)> {
            p.entries.iter().map(|e| (e.key.clone(), e.size)).collect()
        };
        assert_eq!(keys_sizes(&bare), keys_sizes(&plain));
        // Text errors are found the same way by both readers.
        let bad =
            b"<ListBucketResult><Contents><Key>a &nope; b</Key></Contents></ListBucketResult>";
        assert!(parse_list_with(bad, true, true).is_err());
        assert!(parse_list_with(bad, false, true).is_err());
    }

    #[test]
    fn reads_what_other_servers_write() {
        // Pretty-printed, a comment, a namespace prefix, an Owner block, CDATA, a
        // self-closing element, an attribute value holding `>`, entities in keys.
        let xml = br#"<?xml version="1.0"?>
<!-- a listing -->
<s3:ListBucketResult xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/" note="a>b">
  <s3:IsTruncated>false</s3:IsTruncated>
  <s3:Contents>
    <s3:Key><![CDATA[x<y]]>&#233;&#x263A;</s3:Key>
    <s3:Owner><s3:ID>o</s3:ID><s3:DisplayName/></s3:Owner>
    <s3:Size> 42 </s3:Size>
    <s3:ETag>&quot;e&quot;</s3:ETag>
  </s3:Contents>
  <s3:Contents><s3:Key>a &lt;&gt;&apos; b</s3:Key><s3:Size>0</s3:Size></s3:Contents>
</s3:ListBucketResult>
"#;
        let p = parse_list(xml, true).unwrap();
        assert!(!p.is_truncated);
        assert_eq!(p.entries.len(), 2);
        assert_eq!(p.entries[0].key, "x<yé☺");
        assert_eq!(p.entries[0].size, 42);
        assert_eq!(p.entries[0].etag.as_deref(), Some("\"e\""));
        assert_eq!(p.entries[1].key, "a <>' b");
        assert_eq!(p.entries[1].etag, None);
    }
}
