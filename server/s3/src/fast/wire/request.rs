//! A request head as HTTP/1.1 writes it: the request line, `host` as the signature
//! signed it, the request's headers and the signature's, and the body's length.

use std::io::Write;

use crate::fast::sign::{Outgoing, Signed};

/// Appends the head of `request`, signed by `signed`, whose body is `body_len` bytes,
/// to `out`. A length is sent for every body, and for an empty one where the method
/// carries one.
pub(super) fn write_head(
    out: &mut Vec<u8>,
    request: &Outgoing<'_>,
    signed: &Signed<'_>,
    body_len: u64,
) {
    out.extend_from_slice(request.method.as_bytes());
    out.push(b' ');
    let target = if request.target.is_empty() {
        "/"
    } else {
        request.target
    };
    out.extend_from_slice(target.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\nhost: ");
    out.extend_from_slice(request.host.as_bytes());
    out.extend_from_slice(b"\r\n");
    let mut has_length = false;
    let signature = signed.headers().map(|(name, value)| (name as &str, value));
    for (name, value) in request.headers.iter().copied().chain(signature) {
        if name == "host" {
            continue;
        }
        has_length |= name == "content-length";
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    let carries_body = matches!(request.method, "PUT" | "POST" | "PATCH");
    if !has_length && (body_len > 0 || carries_body) {
        let _ = write!(out, "content-length: {body_len}\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::sign::Signer;

    fn head(method: &str, target: &str, host: &str, body_len: u64) -> String {
        let credentials = keystorm_types::Credentials {
            access_key_id: "AKID".into(),
            secret_access_key: "secret".into(),
            session_token: None,
        };
        let signer = Signer::new(&credentials, "us-east-1", false);
        let request = Outgoing {
            method,
            target,
            host,
            headers: &[("range", "bytes=0-9")],
        };
        let signed = signer
            .sign_outgoing(&request, None, std::time::Instant::now())
            .unwrap();
        let mut out = Vec::new();
        write_head(&mut out, &request, &signed, body_len);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn heads_carry_the_signed_host_the_signature_and_the_body_length() {
        let put = head("PUT", "/b/k%20x?uploads", "127.0.0.1:9000", 0);
        assert!(
            put.starts_with(
                "PUT /b/k%20x?uploads HTTP/1.1\r\nhost: 127.0.0.1:9000\r\nrange: bytes=0-9\r\nx-amz-date: "
            ),
            "{put}"
        );
        assert!(
            put.contains("\r\nx-amz-content-sha256: UNSIGNED-PAYLOAD\r\n"),
            "{put}"
        );
        assert!(
            put.contains("\r\nauthorization: AWS4-HMAC-SHA256 Credential=AKID/"),
            "{put}"
        );
        assert!(
            put.contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature="),
            "{put}"
        );
        assert!(put.ends_with("\r\ncontent-length: 0\r\n\r\n"), "{put}");
        let get = head("GET", "", "b.s3.example.com", 0);
        assert!(
            get.starts_with("GET / HTTP/1.1\r\nhost: b.s3.example.com\r\n"),
            "{get}"
        );
        assert!(!get.contains("content-length"), "{get}");
        assert!(head("POST", "/b?delete", "h", 12).contains("content-length: 12\r\n"));
    }
}
