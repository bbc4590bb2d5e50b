//! The canonical request of SigV4 as S3 reads it, hashed as it is written: the path
//! as sent (encoded once, not normalised), the query sorted on its encoded pairs, the
//! headers lower-case, sorted, their values trimmed and runs of spaces collapsed.

use std::borrow::Cow;

use http::Uri;
use percent_encoding::{percent_decode, utf8_percent_encode};
use sha2::{Digest, Sha256};
use smallvec::SmallVec;

use super::outgoing::Outgoing;
use crate::fast::text::is_text;
use crate::fast::uri::STRICT;

/// Headers AWS leaves unsigned: proxies and clients may change them on the way.
const UNSIGNED: [&str; 4] = [
    "authorization",
    "user-agent",
    "x-amzn-trace-id",
    "transfer-encoding",
];

/// How many headers a request signs without a heap allocation to sort them in: the
/// host, the signature's own three, and a few of the request's.
const INLINE_HEADERS: usize = 12;

/// Hashes the canonical request of `request` with the signature's own headers `added`
/// (`x-amz-date`, `x-amz-content-sha256`, the session token) and the body's
/// `payload_hash`; returns the hash in hex, and appends the signed header names,
/// joined by `;`, to `signed_headers`. The `host` header is the request's `host`
/// unless it has one.
pub fn canonical<'a>(
    request: &Outgoing<'a>,
    added: impl Iterator<Item = (&'static str, &'a str)>,
    payload_hash: &str,
    signed_headers: &mut String,
) -> [u8; 64] {
    let (path, query) = request
        .target
        .split_once('?')
        .unwrap_or((request.target, ""));
    let mut sha = Sha256::new();
    sha.update(request.method);
    sha.update(b"\n");
    sha.update(if path.is_empty() { "/" } else { path });
    sha.update(b"\n");
    if !query.is_empty() {
        hash_query(&mut sha, query);
    }
    sha.update(b"\n");

    let mut signed: SmallVec<[(&str, &str); INLINE_HEADERS]> = SmallVec::new();
    if !request.headers.iter().any(|(name, _)| *name == "host") {
        signed.push(("host", request.host));
    }
    signed.extend(
        request
            .headers
            .iter()
            .copied()
            .chain(added.map(|(name, value)| (name as &str, value)))
            .filter(|(name, value)| !UNSIGNED.contains(name) && is_text(value.as_bytes())),
    );
    // Stable: several values of one header keep the order they were added in.
    signed.sort_by(|a, b| a.0.cmp(b.0));
    let names_from = signed_headers.len();
    for (n, (name, value)) in signed.iter().enumerate() {
        let repeat = n > 0 && signed[n - 1].0 == *name;
        if repeat {
            sha.update(b",");
        } else {
            if n > 0 {
                sha.update(b"\n");
                signed_headers.push(';');
            }
            sha.update(name);
            sha.update(b":");
            signed_headers.push_str(name);
        }
        sha.update(trim_all(value).as_bytes());
    }
    if !signed.is_empty() {
        sha.update(b"\n");
    }
    sha.update(b"\n");
    sha.update(&signed_headers[names_from..]);
    sha.update(b"\n");
    sha.update(payload_hash);
    let mut hash = [0u8; 64];
    // Both are exactly 32 bytes into 64 hex digits.
    let _ = hex::encode_to_slice(sha.finalize(), &mut hash);
    hash
}

/// The `host` value signed: the URI's authority, without a scheme's default port.
pub(crate) fn host_of(uri: &Uri) -> Cow<'_, str> {
    let host = uri.host().unwrap_or_default();
    let port = uri.port();
    match (uri.scheme_str(), port.as_ref().map(|p| p.as_str())) {
        (Some("http"), Some("80")) | (Some("https"), Some("443")) | (_, None) => {
            Cow::Borrowed(host)
        }
        // The authority is `host:port` as written, unless it carries user info.
        (_, Some(_)) => match uri.authority().map(|a| a.as_str()) {
            Some(authority) if !authority.contains('@') => Cow::Borrowed(authority),
            _ => Cow::Owned(format!(
                "{host}:{}",
                port.as_ref().map_or("", |p| p.as_str())
            )),
        },
    }
}

/// The query's pairs, each decoded and encoded strictly, sorted, joined by `&`; a name
/// without a value (`?delete`) is signed as `delete=`.
fn hash_query(sha: &mut Sha256, query: &str) {
    let mut pairs: Vec<(Cow<'_, str>, Cow<'_, str>)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (strict(name), strict(value))
        })
        .collect();
    pairs.sort();
    for (n, (name, value)) in pairs.iter().enumerate() {
        if n > 0 {
            sha.update(b"&");
        }
        sha.update(name.as_bytes());
        sha.update(b"=");
        sha.update(value.as_bytes());
    }
}

/// A query component as SigV4 signs it: form-decoded (`+` is a space) and encoded
/// again, everything but unreserved characters.
fn strict(component: &str) -> Cow<'_, str> {
    let unreserved = |b: &u8| b.is_ascii_alphanumeric() || b"-_.~".contains(b);
    if component.bytes().all(|b| unreserved(&b)) {
        return Cow::Borrowed(component);
    }
    let spaced = component.replace('+', " ");
    let decoded = percent_decode(spaced.as_bytes()).decode_utf8_lossy();
    Cow::Owned(utf8_percent_encode(&decoded, STRICT).to_string())
}

/// A header value with its spaces trimmed at both ends and runs of spaces made one.
fn trim_all(value: &str) -> Cow<'_, str> {
    let value = value.trim_matches(' ');
    if !value.contains("  ") {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len());
    let mut last_space = false;
    for c in value.chars() {
        if c != ' ' || !last_space {
            out.push(c);
        }
        last_space = c == ' ';
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_trimmed_and_runs_of_spaces_collapsed() {
        assert_eq!(trim_all("  a  b   c "), "a b c");
        assert_eq!(trim_all("a b"), "a b");
        assert_eq!(trim_all("a\t\tb"), "a\t\tb");
    }

    #[test]
    fn query_components_are_encoded_strictly() {
        assert_eq!(strict("list-type"), "list-type");
        assert_eq!(strict("x%2fy"), "x%2Fy");
        assert_eq!(strict("a+b"), "a%20b");
        assert_eq!(strict("a/b c"), "a%2Fb%20c");
    }
}
