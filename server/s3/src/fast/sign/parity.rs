//! Every header the signer writes, held equal to what AWS's own `aws-sigv4` writes
//! for the same request, time and credentials, over the shapes of request the clients
//! send: ranges, metadata with runs of spaces, queries out of order and needing
//! encoding, `?delete`, session tokens, signed payloads, default and other ports,
//! virtual hosts, and a day change.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sigv4::http_request::{
    PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest, SigningSettings,
    UriPathNormalizationMode, sign,
};
use aws_sigv4::sign::v4;

use super::Signer;

fn credentials(token: Option<&str>) -> keystorm_types::Credentials {
    keystorm_types::Credentials {
        access_key_id: "AKIAIOSFODNN7EXAMPLE".into(),
        secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
        session_token: token.map(str::to_string),
    }
}

fn request(method: &str, uri: &str, headers: &[(&str, &str)]) -> http::Request<()> {
    let mut builder = http::Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        builder = builder.header(*k, *v);
    }
    builder.body(()).unwrap()
}

/// The headers `aws-sigv4` adds, set up as the fast client used it before.
fn reference(
    r: &http::Request<()>,
    creds: &keystorm_types::Credentials,
    region: &str,
    hash: Option<&str>,
    time: SystemTime,
) -> Vec<(String, String)> {
    let identity = aws_credential_types::Credentials::new(
        creds.access_key_id.clone(),
        creds.secret_access_key.clone(),
        creds.session_token.clone(),
        None,
        "test",
    )
    .into();
    let mut settings = SigningSettings::default();
    settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
    settings.percent_encoding_mode = PercentEncodingMode::Single;
    settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name("s3")
        .time(time)
        .settings(settings)
        .build()
        .unwrap()
        .into();
    let body = match hash {
        Some(h) => SignableBody::Precomputed(h.to_string()),
        None => SignableBody::UnsignedPayload,
    };
    let headers = r
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str(), v.to_str().unwrap()));
    let signable =
        SignableRequest::new(r.method().as_str(), r.uri().to_string(), headers, body).unwrap();
    let (instructions, _) = sign(signable, &params).unwrap().into_parts();
    let mut out: Vec<(String, String)> = instructions
        .headers()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    out.sort();
    out
}

/// The headers `Signer` adds.
fn ours(
    mut r: http::Request<()>,
    creds: &keystorm_types::Credentials,
    region: &str,
    hash: Option<&str>,
    time: SystemTime,
) -> Vec<(String, String)> {
    let before = r.headers().clone();
    Signer::new(creds, region, hash.is_some())
        .sign_at(&mut r, hash.map(str::to_string), time)
        .unwrap();
    let mut out: Vec<(String, String)> = r
        .headers()
        .iter()
        .filter(|(k, _)| !before.contains_key(*k))
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap().to_string()))
        .collect();
    out.sort();
    out
}

/// Method, URI, headers and payload hash of one request.
type Shape<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], Option<&'a str>);

#[test]
fn every_request_shape_signs_as_aws_sigv4_does() {
    let hash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    let cases: &[Shape] = &[
        ("GET", "http://127.0.0.1:9000/bkt/k%20e%2By/0001", &[], None),
        ("HEAD", "http://127.0.0.1:9000/bkt/obj", &[], None),
        (
            "GET",
            "http://127.0.0.1:9000/bkt/obj",
            &[("range", "bytes=0-1023")],
            None,
        ),
        (
            "PUT",
            "http://127.0.0.1:9000/bkt/obj",
            &[
                ("x-amz-meta-owner", "  storage   team "),
                ("x-amz-meta-a", "1"),
                ("content-length", "0"),
            ],
            Some(hash),
        ),
        (
            "GET",
            "http://127.0.0.1:9000/bkt?prefix=x%2Fy%20z&list-type=2&max-keys=1000&continuation-token=a%2Bb%3D",
            &[],
            None,
        ),
        (
            "POST",
            "http://127.0.0.1:9000/bkt?delete",
            &[
                ("content-md5", "1B2M2Y8AsgTpgAmY7PhCfg=="),
                ("content-type", "application/xml"),
            ],
            None,
        ),
        (
            "PUT",
            "http://127.0.0.1:9000/bkt/obj?uploadId=2~x.y_z-1&partNumber=3",
            &[],
            None,
        ),
        ("GET", "http://127.0.0.1:80/bkt/obj", &[], None),
        ("GET", "https://bkt.s3.example.com:443/obj", &[], None),
        ("GET", "https://bkt.s3.example.com:8443/obj", &[], None),
        ("GET", "https://s3.example.com", &[], None),
        (
            "GET",
            "http://[::1]:7480/admin/bucket?stats=True&format=json&bucket=b",
            &[("x-amz-meta-v", "a"), ("x-amz-meta-v", "b")],
            None,
        ),
    ];
    let times = [
        UNIX_EPOCH + Duration::from_secs(1_798_761_599),
        UNIX_EPOCH + Duration::from_secs(1_798_761_600),
        SystemTime::now(),
    ];
    for token in [None, Some("FQoGZXIvYXdzEJr//////////wEaDM+token")] {
        let creds = credentials(token);
        for region in ["us-east-1", "default"] {
            for (method, uri, headers, payload) in cases {
                for time in times {
                    let r = request(method, uri, headers);
                    let expected = reference(&r, &creds, region, *payload, time);
                    assert_eq!(
                        ours(r, &creds, region, *payload, time),
                        expected,
                        "{method} {uri} {headers:?} token {token:?} region {region}"
                    );
                }
            }
        }
    }
}

#[test]
fn one_signer_follows_the_day_over_midnight() {
    // The day's key is kept; a request after midnight must not be signed with it.
    let creds = credentials(None);
    let signer = Signer::new(&creds, "us-east-1", false);
    for secs in [1_798_761_599, 1_798_761_600, 1_798_761_599] {
        let time = UNIX_EPOCH + Duration::from_secs(secs);
        let mut r = request("GET", "http://127.0.0.1:9000/bkt/obj", &[]);
        let expected = reference(&r, &creds, "us-east-1", None, time);
        signer.sign_at(&mut r, None, time).unwrap();
        let authorization = r.headers()["authorization"].to_str().unwrap();
        assert!(
            expected.contains(&("authorization".into(), authorization.into())),
            "{secs}: {authorization}"
        );
    }
}

/// Endpoint, path style, bucket, key and query of one request the fast client sends.
type Addressed<'a> = (&'a str, bool, &'a str, &'a str, &'a [(&'a str, &'a str)]);

#[test]
fn requests_addressed_from_an_endpoint_sign_as_aws_sigv4_does() {
    use crate::fast::uri::Base;
    let cases: &[Addressed] = &[
        ("http://127.0.0.1:9000", true, "bkt", "a b/c+d%é", &[]),
        (
            "http://127.0.0.1:9000/",
            true,
            "bkt",
            "",
            &[
                ("list-type", "2"),
                ("prefix", "x/y z"),
                ("max-keys", "1000"),
            ],
        ),
        ("http://127.0.0.1:9000", true, "bkt", "", &[("delete", "")]),
        (
            "https://s3.example.com:443",
            false,
            "bkt",
            "k",
            &[("partNumber", "3"), ("uploadId", "2~x.y_z-1")],
        ),
        ("https://s3.example.com:8443", false, "bkt", "k", &[]),
        ("http://[::1]:7480", true, "bkt", "obj", &[]),
        ("http://s3.example.com", false, "", "", &[]),
    ];
    let creds = credentials(Some("FQoGZXIvYXdzEJr//////////wEaDM+token"));
    let time = UNIX_EPOCH + Duration::from_secs(1_798_761_600);
    let headers = [
        ("x-amz-meta-owner", "  storage   team "),
        ("range", "bytes=0-9"),
    ];
    for (endpoint, path_style, bucket, key, query) in cases {
        let base = Base::parse(endpoint, *path_style).unwrap();
        let mut target = String::new();
        base.target_into(&mut target, bucket, key, query);
        let host = base.host(bucket);
        let scheme = endpoint.split_once("://").unwrap().0;
        let uri = format!("{scheme}://{host}{target}");
        let expected = reference(
            &request("GET", &uri, &headers),
            &creds,
            "us-east-1",
            None,
            time,
        );
        let signer = Signer::new(&creds, "us-east-1", false);
        let outgoing = super::Outgoing {
            method: "GET",
            target: &target,
            host: &host,
            headers: &headers,
        };
        let signed = signer.sign_outgoing_at(&outgoing, None, time).unwrap();
        let mut got: Vec<(String, String)> = signed
            .headers()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        got.sort();
        assert_eq!(got, expected, "{endpoint} {bucket}/{key} {query:?}");
    }
}
