//! A request head as HTTP/1.1 writes it: the request line, `host` as the signature
//! signed it, the request's headers, and the body's length.

use std::io::Write;

use http::Uri;

use super::conn::Peer;
use super::error::WireError;
use crate::fast::sign::host_of;

/// Where a request for `uri` goes.
pub(super) fn peer(uri: &Uri) -> Result<Peer<'_>, WireError> {
    let bad = || WireError::Malformed(format!("request URI {uri} has no host"));
    let tls = match uri.scheme_str() {
        Some("https") => true,
        Some("http") => false,
        _ => return Err(bad()),
    };
    let host = uri.host().filter(|h| !h.is_empty()).ok_or_else(bad)?;
    let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
    Ok(Peer {
        host: host.into(),
        port,
        tls,
    })
}

/// Appends the head of `request`, whose body is `body_len` bytes, to `out`. A length
/// is sent for every body, and for an empty one where the method carries one.
pub(super) fn write_head(out: &mut Vec<u8>, request: &http::Request<()>, body_len: u64) {
    let uri = request.uri();
    out.extend_from_slice(request.method().as_str().as_bytes());
    out.push(b' ');
    out.extend_from_slice(
        uri.path_and_query()
            .map(|p| p.as_str())
            .filter(|p| !p.is_empty())
            .unwrap_or("/")
            .as_bytes(),
    );
    out.extend_from_slice(b" HTTP/1.1\r\nhost: ");
    out.extend_from_slice(host_of(uri).as_bytes());
    out.extend_from_slice(b"\r\n");
    let headers = request.headers();
    for (name, value) in headers {
        if name == http::header::HOST {
            continue;
        }
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    let carries_body = matches!(
        *request.method(),
        http::Method::PUT | http::Method::POST | http::Method::PATCH
    );
    if !headers.contains_key(http::header::CONTENT_LENGTH) && (body_len > 0 || carries_body) {
        let _ = write!(out, "content-length: {body_len}\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(method: &str, uri: &str, body_len: u64) -> String {
        let request = http::Request::builder()
            .method(method)
            .uri(uri)
            .header("x-amz-date", "20260101T000000Z")
            .body(())
            .unwrap();
        let mut out = Vec::new();
        write_head(&mut out, &request, body_len);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn heads_carry_the_signed_host_and_the_body_length() {
        assert_eq!(
            head("PUT", "http://127.0.0.1:9000/b/k%20x?uploads", 0),
            "PUT /b/k%20x?uploads HTTP/1.1\r\nhost: 127.0.0.1:9000\r\nx-amz-date: 20260101T000000Z\r\ncontent-length: 0\r\n\r\n"
        );
        assert_eq!(
            head("GET", "https://b.s3.example.com:443/k", 0),
            "GET /k HTTP/1.1\r\nhost: b.s3.example.com\r\nx-amz-date: 20260101T000000Z\r\n\r\n"
        );
        assert!(head("POST", "http://h/b?delete", 12).contains("content-length: 12\r\n"));
    }

    #[test]
    fn peers_default_their_port_by_scheme() {
        let uri: Uri = "https://s3.example.com/b".parse().unwrap();
        let p = peer(&uri).unwrap();
        assert_eq!((&*p.host, p.port, p.tls), ("s3.example.com", 443, true));
        let uri: Uri = "http://[::1]:7480/".parse().unwrap();
        let p = peer(&uri).unwrap();
        assert_eq!((&*p.host, p.port, p.tls), ("[::1]", 7480, false));
    }
}
