//! Request URIs as S3 signs them: keys percent-encoded once (everything but unreserved
//! characters and `/`), query values encoded strictly, path or virtual-host style.

use std::borrow::Cow;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::wire::Peer;

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

/// Where requests go: the endpoint's host and port, over TLS or not, and whether
/// buckets go in the path (or in front of the host).
#[derive(Debug, Clone)]
pub struct Base {
    /// The host as written (an IPv6 address in brackets).
    host: String,
    port: u16,
    tls: bool,
    /// `host` as signed and sent: the host, with its port unless the scheme's own.
    authority: String,
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
        let tls = match scheme {
            "http" => false,
            "https" => true,
            _ => return Err(EndpointError::Scheme(endpoint.to_string())),
        };
        let not_host_and_port = || EndpointError::NotHostAndPort(endpoint.to_string());
        let written = rest.trim_end_matches('/');
        if written.is_empty() || written.contains('/') {
            return Err(not_host_and_port());
        }
        let authority: http::uri::Authority = written.parse().map_err(|_| not_host_and_port())?;
        let host = authority.host();
        if host.is_empty() {
            return Err(not_host_and_port());
        }
        let default_port = if tls { 443 } else { 80 };
        let port = authority.port_u16().unwrap_or(default_port);
        let signed = if port == default_port {
            host.to_string()
        } else {
            format!("{host}:{port}")
        };
        Ok(Base {
            host: host.to_string(),
            port,
            tls,
            authority: signed,
            path_style,
        })
    }

    /// Whether `bucket` goes in front of the host.
    fn virtual_host(&self, bucket: &str) -> bool {
        !self.path_style && !bucket.is_empty()
    }

    /// Where a request about `bucket` connects to.
    pub fn peer(&self, bucket: &str) -> Peer<'_> {
        Peer {
            host: if self.virtual_host(bucket) {
                Cow::Owned(format!("{bucket}.{}", self.host))
            } else {
                Cow::Borrowed(&self.host)
            },
            port: self.port,
            tls: self.tls,
        }
    }

    /// The `host` a request about `bucket` names.
    pub fn host(&self, bucket: &str) -> Cow<'_, str> {
        if self.virtual_host(bucket) {
            Cow::Owned(format!("{bucket}.{}", self.authority))
        } else {
            Cow::Borrowed(&self.authority)
        }
    }

    /// Writes the target (path and query) of `bucket`/`key` with `query` pairs (values
    /// encoded here) into `out`.
    pub fn target_into(&self, out: &mut String, bucket: &str, key: &str, query: &[(&str, &str)]) {
        use std::fmt::Write;
        out.clear();
        out.push('/');
        if !self.virtual_host(bucket) {
            out.push_str(bucket);
            if !key.is_empty() {
                out.push('/');
            }
        }
        let _ = write!(out, "{}", encode_key(key));
        for (n, (k, v)) in query.iter().enumerate() {
            out.push(if n == 0 { '?' } else { '&' });
            let _ = write!(out, "{}", encode_query(k));
            if !v.is_empty() || *k != "delete" {
                let _ = write!(out, "={}", encode_query(v));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(b: &Base, bucket: &str, key: &str, query: &[(&str, &str)]) -> String {
        let mut out = String::new();
        b.target_into(&mut out, bucket, key, query);
        out
    }

    #[test]
    fn keys_and_queries_are_encoded_once() {
        let b = Base::parse("http://127.0.0.1:9000/", true).unwrap();
        assert_eq!(
            target(
                &b,
                "bkt",
                "a b/c+d%é",
                &[("list-type", "2"), ("prefix", "x/y z")]
            ),
            "/bkt/a%20b/c%2Bd%25%C3%A9?list-type=2&prefix=x%2Fy%20z"
        );
        assert_eq!(target(&b, "bkt", "", &[("delete", "")]), "/bkt?delete");
        assert_eq!(b.host("bkt"), "127.0.0.1:9000");
        assert_eq!(
            Base::parse("ftp://x", true).unwrap_err(),
            EndpointError::Scheme("ftp://x".into())
        );
        assert_eq!(
            Base::parse("http://x/path", true).unwrap_err().to_string(),
            "endpoint \"http://x/path\" must be scheme://host[:port]"
        );
        assert_eq!(
            Base::parse("http://exa mple:80", true).unwrap_err(),
            EndpointError::NotHostAndPort("http://exa mple:80".into())
        );
    }

    #[test]
    fn virtual_hosts_carry_the_bucket_and_no_default_port() {
        let v = Base::parse("https://s3.example.com:443", false).unwrap();
        assert_eq!(target(&v, "bkt", "k", &[]), "/k");
        assert_eq!(v.host("bkt"), "bkt.s3.example.com");
        let p = v.peer("bkt");
        assert_eq!((&*p.host, p.port, p.tls), ("bkt.s3.example.com", 443, true));
        // No bucket (the list of buckets): the endpoint itself.
        assert_eq!(target(&v, "", "", &[]), "/");
        assert_eq!(v.host(""), "s3.example.com");
        let six = Base::parse("http://[::1]:7480", false).unwrap();
        assert_eq!(six.host(""), "[::1]:7480");
        let p = six.peer("");
        assert_eq!((&*p.host, p.port, p.tls), ("[::1]", 7480, false));
        assert_eq!(Base::parse("http://h:80", true).unwrap().host("b"), "h");
        assert_eq!(
            Base::parse("http://u@h:81", true).unwrap().host("b"),
            "h:81"
        );
    }
}
