//! Request URIs as S3 signs them: keys percent-encoded once (everything but unreserved
//! characters and `/`), query values encoded strictly, path or virtual-host style.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// RFC 3986 unreserved characters stay as they are.
pub(crate) const STRICT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');
/// Like STRICT, but `/` separates key "folders" and stays.
const KEY: &AsciiSet = &STRICT.remove(b'/');

pub fn encode_key(key: &str) -> percent_encoding::PercentEncode<'_> {
    utf8_percent_encode(key, KEY)
}

pub fn encode_query(value: &str) -> percent_encoding::PercentEncode<'_> {
    utf8_percent_encode(value, STRICT)
}

/// Where requests go: scheme and authority, and whether buckets go in the path.
#[derive(Debug, Clone)]
pub struct Base {
    pub scheme: String,
    pub authority: String,
    pub path_style: bool,
}

/// Why an endpoint is not one the fast client can address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("endpoint {0:?} has no scheme")]
    NoScheme(String),
    #[error("endpoint {0:?}: scheme must be http or https")]
    Scheme(String),
    #[error("endpoint {0:?} must be scheme://host[:port]")]
    NotHostAndPort(String),
}

impl Base {
    pub fn parse(endpoint: &str, path_style: bool) -> Result<Base, EndpointError> {
        let (scheme, rest) = endpoint
            .split_once("://")
            .ok_or_else(|| EndpointError::NoScheme(endpoint.to_string()))?;
        if scheme != "http" && scheme != "https" {
            return Err(EndpointError::Scheme(endpoint.to_string()));
        }
        let authority = rest.trim_end_matches('/');
        if authority.is_empty() || authority.contains('/') {
            return Err(EndpointError::NotHostAndPort(endpoint.to_string()));
        }
        Ok(Base {
            scheme: scheme.to_string(),
            authority: authority.to_string(),
            path_style,
        })
    }

    /// The URI of `bucket`/`key` with `query` pairs (values encoded here).
    pub fn uri(&self, bucket: &str, key: &str, query: &[(&str, &str)]) -> String {
        use std::fmt::Write;
        let mut s = String::with_capacity(self.authority.len() + bucket.len() + key.len() * 3 + 32);
        s.push_str(&self.scheme);
        s.push_str("://");
        if self.path_style || bucket.is_empty() {
            s.push_str(&self.authority);
            s.push('/');
            s.push_str(bucket);
            if !key.is_empty() {
                s.push('/');
            }
        } else {
            s.push_str(bucket);
            s.push('.');
            s.push_str(&self.authority);
            s.push('/');
        }
        let _ = write!(s, "{}", encode_key(key));
        for (n, (k, v)) in query.iter().enumerate() {
            s.push(if n == 0 { '?' } else { '&' });
            let _ = write!(s, "{}", encode_query(k));
            if !v.is_empty() || *k != "delete" {
                let _ = write!(s, "={}", encode_query(v));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_queries_are_encoded_once() {
        let b = Base::parse("http://127.0.0.1:9000/", true).unwrap();
        assert_eq!(
            b.uri(
                "bkt",
                "a b/c+d%é",
                &[("list-type", "2"), ("prefix", "x/y z")]
            ),
            "http://127.0.0.1:9000/bkt/a%20b/c%2Bd%25%C3%A9?list-type=2&prefix=x%2Fy%20z"
        );
        assert_eq!(
            b.uri("bkt", "", &[("delete", "")]),
            "http://127.0.0.1:9000/bkt?delete"
        );
        let v = Base::parse("https://s3.example.com", false).unwrap();
        assert_eq!(v.uri("bkt", "k", &[]), "https://bkt.s3.example.com/k");
        assert_eq!(
            Base::parse("ftp://x", true).unwrap_err(),
            EndpointError::Scheme("ftp://x".into())
        );
        assert_eq!(
            Base::parse("http://x/path", true).unwrap_err().to_string(),
            "endpoint \"http://x/path\" must be scheme://host[:port]"
        );
    }
}
