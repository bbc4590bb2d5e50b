//! SigV4 verification (header-signed requests): rebuild the canonical request the
//! client signed and compare signatures, so the target catches a client that signs
//! wrongly instead of accepting anything.

use hmac::{Hmac, Mac};
use http::{HeaderMap, Method};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use sha2::{Digest, Sha256};

use crate::errors::S3Error;

type HmacSha256 = Hmac<Sha256>;

/// RFC 3986 unreserved characters stay; everything else is encoded.
const STRICT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

struct Authorization<'a> {
    access_key: &'a str,
    scope: &'a str,
    signed_headers: &'a str,
    signature: &'a str,
}

fn parse_authorization(value: &str) -> Option<Authorization<'_>> {
    let rest = value.strip_prefix("AWS4-HMAC-SHA256")?.trim();
    let (mut credential, mut signed_headers, mut signature) = (None, None, None);
    for part in rest.split(',') {
        let (k, v) = part.trim().split_once('=')?;
        match k {
            "Credential" => credential = Some(v),
            "SignedHeaders" => signed_headers = Some(v),
            "Signature" => signature = Some(v),
            _ => {}
        }
    }
    let (access_key, scope) = credential?.split_once('/')?;
    Some(Authorization {
        access_key,
        scope,
        signed_headers: signed_headers?,
        signature: signature?,
    })
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC accepts keys of any length.
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

fn canonical_query(query: Option<&str>) -> String {
    let mut pairs: Vec<(String, String)> = query
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let enc = |s: &str| {
                let decoded = percent_decode_str(s).decode_utf8_lossy().into_owned();
                utf8_percent_encode(&decoded, STRICT).to_string()
            };
            (enc(k), enc(v))
        })
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// Checks the request's signature against `secret`.
pub fn verify(
    method: &Method,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
    access_key: &str,
    secret: &str,
) -> Result<(), S3Error> {
    let auth_value = headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .ok_or(S3Error::AccessDenied)?;
    let auth = parse_authorization(auth_value).ok_or(S3Error::AccessDenied)?;
    if auth.access_key != access_key {
        return Err(S3Error::InvalidAccessKeyId);
    }
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let amz_date = header("x-amz-date").ok_or(S3Error::AccessDenied)?;
    let payload_hash = header("x-amz-content-sha256").unwrap_or("UNSIGNED-PAYLOAD");

    let mut canonical_headers = String::new();
    for name in auth.signed_headers.split(';') {
        let values: Vec<String> = headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        canonical_headers.push_str(name);
        canonical_headers.push(':');
        canonical_headers.push_str(&values.join(","));
        canonical_headers.push('\n');
    }
    let canonical_request = format!(
        "{method}\n{}\n{}\n{canonical_headers}\n{}\n{payload_hash}",
        if path.is_empty() { "/" } else { path },
        canonical_query(query),
        auth.signed_headers
    );
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{}\n{}",
        auth.scope,
        hex::encode(Sha256::digest(canonical_request.as_bytes()))
    );
    let mut scope_parts = auth.scope.split('/');
    let (Some(date), Some(region), Some(service)) =
        (scope_parts.next(), scope_parts.next(), scope_parts.next())
    else {
        return Err(S3Error::AccessDenied);
    };
    let k_date = hmac(format!("AWS4{secret}").as_bytes(), date.as_bytes());
    let k_region = hmac(&k_date, region.as_bytes());
    let k_service = hmac(&k_region, service.as_bytes());
    let k_signing = hmac(&k_service, b"aws4_request");
    let expected = hex::encode(hmac(&k_signing, string_to_sign.as_bytes()));
    if expected.len() == auth.signature.len()
        && expected
            .bytes()
            .zip(auth.signature.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    {
        Ok(())
    } else {
        Err(S3Error::SignatureDoesNotMatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GET-object example of AWS's SigV4 documentation for S3.
    #[test]
    fn matches_the_documented_example() {
        let mut h = HeaderMap::new();
        h.insert("host", "examplebucket.s3.amazonaws.com".parse().unwrap());
        h.insert("range", "bytes=0-9".parse().unwrap());
        h.insert(
            "x-amz-content-sha256",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
                .parse()
                .unwrap(),
        );
        h.insert("x-amz-date", "20130524T000000Z".parse().unwrap());
        h.insert("authorization", "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41".parse().unwrap());
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        assert_eq!(
            verify(
                &Method::GET,
                "/test.txt",
                None,
                &h,
                "AKIAIOSFODNN7EXAMPLE",
                secret
            ),
            Ok(())
        );
        assert_eq!(
            verify(
                &Method::GET,
                "/test.txt",
                None,
                &h,
                "AKIAIOSFODNN7EXAMPLE",
                "wrong"
            ),
            Err(S3Error::SignatureDoesNotMatch)
        );
        assert_eq!(
            verify(&Method::GET, "/test.txt", None, &h, "OTHER", secret),
            Err(S3Error::InvalidAccessKeyId)
        );
    }

    #[test]
    fn unsigned_requests_are_denied() {
        assert_eq!(
            verify(&Method::GET, "/", None, &HeaderMap::new(), "a", "b"),
            Err(S3Error::AccessDenied)
        );
    }
}
