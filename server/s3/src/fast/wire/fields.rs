//! The header fields of a response head, copied out of the read buffer (which the body
//! reuses) into storage the connection keeps and reuses: no allocation per response
//! once a connection has seen its largest head, where a `HeaderMap` made one or two
//! per field.

use crate::fast::text::is_text;

/// A response head's fields: names lower-cased, values as they came.
#[derive(Debug, Default)]
pub(crate) struct Fields {
    /// Each name, then its value, back to back.
    text: Vec<u8>,
    /// Each field as the ends of its name and of its value in `text` (starting where
    /// the previous field ended).
    ends: Vec<(usize, usize)>,
}

impl Fields {
    pub fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }

    pub fn push(&mut self, name: &str, value: &[u8]) {
        self.text
            .extend(name.bytes().map(|b| b.to_ascii_lowercase()));
        let name_end = self.text.len();
        self.text.extend_from_slice(value);
        self.ends.push((name_end, self.text.len()));
    }

    /// Every field, as raw bytes.
    fn raw(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        let mut start = 0;
        self.ends.iter().map(move |&(name_end, value_end)| {
            let field = (&self.text[start..name_end], &self.text[name_end..value_end]);
            start = value_end;
            field
        })
    }

    /// The values of the fields named `name` (lower-case).
    pub fn get_all<'a, 'n>(
        &'a self,
        name: &'n str,
    ) -> impl Iterator<Item = &'a [u8]> + use<'a, 'n> {
        self.raw()
            .filter(move |(n, _)| *n == name.as_bytes())
            .map(|(_, v)| v)
    }

    /// The value of the first field named `name` (lower-case).
    pub fn get_bytes(&self, name: &str) -> Option<&[u8]> {
        self.get_all(name).next()
    }

    /// The value of the first field named `name` (lower-case), if it is text: visible
    /// ASCII, spaces and tabs.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.get_bytes(name).and_then(text)
    }

    /// Every field whose value is text (as [`Fields::get`]), in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.raw()
            .filter_map(|(n, v)| Some((std::str::from_utf8(n).ok()?, text(v)?)))
    }
}

/// `value` as a string, if it is text (see [`is_text`]).
fn text(value: &[u8]) -> Option<&str> {
    is_text(value)
        .then(|| std::str::from_utf8(value).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_by_lower_case_name_and_reused() {
        let mut f = Fields::default();
        f.push("ETag", b"\"abc\"");
        f.push("X-Amz-Meta-Owner", b"team");
        f.push("x-amz-meta-owner", b"caf\xc3\xa9");
        assert_eq!(f.get("etag"), Some("\"abc\""));
        assert_eq!(f.get("ETag"), None);
        assert_eq!(f.get_all("x-amz-meta-owner").count(), 2);
        // A value that is not text is there as bytes, not as text.
        assert_eq!(
            f.iter().collect::<Vec<_>>(),
            [("etag", "\"abc\""), ("x-amz-meta-owner", "team")]
        );
        f.clear();
        assert_eq!(f.get("etag"), None);
        f.push("Content-Length", b"5");
        assert_eq!(f.get_bytes("content-length"), Some(&b"5"[..]));
    }
}
