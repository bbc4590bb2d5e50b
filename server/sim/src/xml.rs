//! Writing S3's XML response documents (no XML library needed to write them).

use std::fmt::Write;

/// Escapes text for XML element content.
pub fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"', '\'']) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// ISO 8601 with milliseconds, as S3 writes LastModified in listings.
pub fn iso8601(ms: u64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    humantime::format_rfc3339_millis(t).to_string()
}

/// `<Tag>escaped text</Tag>`
pub fn element(out: &mut String, tag: &str, text: &str) {
    let _ = write!(out, "<{tag}>{}</{tag}>", escape(text));
}

pub const HEADER: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
pub const NS: &str = "http://s3.amazonaws.com/doc/2006-03-01/";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(escape("a&b<c>"), "a&amp;b&lt;c&gt;");
        assert_eq!(escape("plain"), "plain");
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
    }
}
