//! From an HTTP request to the S3 operation it names: bucket and key from the path
//! (path style) or the Host header (virtual-host style), and the decoded query.

use http::{HeaderMap, Method};
use percent_encoding::percent_decode_str;

/// The S3 operations the target answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    ListBuckets,
    CreateBucket,
    HeadBucket,
    DeleteBucket,
    ListObjectsV2,
    ListObjectsV1,
    GetBucketLocation,
    DeleteObjects,
    PutObject,
    GetObject,
    HeadObject,
    DeleteObject,
    CreateMultipartUpload,
    UploadPart,
    CompleteMultipartUpload,
    AbortMultipartUpload,
    Unsupported,
}

impl Op {
    /// How many operations there are (for per-operation counters).
    pub const COUNT: usize = Op::Unsupported as usize + 1;

    /// Every operation, in the order of their numbers.
    pub const ALL: [Op; Op::COUNT] = [
        Op::ListBuckets,
        Op::CreateBucket,
        Op::HeadBucket,
        Op::DeleteBucket,
        Op::ListObjectsV2,
        Op::ListObjectsV1,
        Op::GetBucketLocation,
        Op::DeleteObjects,
        Op::PutObject,
        Op::GetObject,
        Op::HeadObject,
        Op::DeleteObject,
        Op::CreateMultipartUpload,
        Op::UploadPart,
        Op::CompleteMultipartUpload,
        Op::AbortMultipartUpload,
        Op::Unsupported,
    ];

    /// S3's name of the operation (`PutObject`); `Unsupported` for what the target
    /// does not answer.
    pub fn name(self) -> &'static str {
        match self {
            Op::ListBuckets => "ListBuckets",
            Op::CreateBucket => "CreateBucket",
            Op::HeadBucket => "HeadBucket",
            Op::DeleteBucket => "DeleteBucket",
            Op::ListObjectsV2 => "ListObjectsV2",
            Op::ListObjectsV1 => "ListObjectsV1",
            Op::GetBucketLocation => "GetBucketLocation",
            Op::DeleteObjects => "DeleteObjects",
            Op::PutObject => "PutObject",
            Op::GetObject => "GetObject",
            Op::HeadObject => "HeadObject",
            Op::DeleteObject => "DeleteObject",
            Op::CreateMultipartUpload => "CreateMultipartUpload",
            Op::UploadPart => "UploadPart",
            Op::CompleteMultipartUpload => "CompleteMultipartUpload",
            Op::AbortMultipartUpload => "AbortMultipartUpload",
            Op::Unsupported => "Unsupported",
        }
    }
}

// `ALL` lists the operations by number, so `Op::ALL[op as usize] == op`.
const _: () = {
    let mut i = 0;
    while i < Op::COUNT {
        assert!(Op::ALL[i] as usize == i);
        i += 1;
    }
};

#[derive(Debug)]
pub struct Parsed {
    pub op: Op,
    pub bucket: String,
    pub key: String,
    /// Decoded query parameters in order.
    pub query: Vec<(String, String)>,
}

impl Parsed {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// `/bucket/key` for error documents.
    pub fn resource(&self) -> String {
        match (self.bucket.is_empty(), self.key.is_empty()) {
            (true, _) => "/".to_string(),
            (false, true) => format!("/{}", self.bucket),
            (false, false) => format!("/{}/{}", self.bucket, self.key),
        }
    }
}

fn decode(s: &str) -> String {
    percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// Query strings decode `+` as a space, paths do not.
fn decode_query(s: &str) -> String {
    decode(&s.replace('+', " "))
}

pub fn parse_query(q: Option<&str>) -> Vec<(String, String)> {
    q.unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode_query(k), decode_query(v)),
            None => (decode_query(p), String::new()),
        })
        .collect()
}

/// The bucket named by a virtual-host style Host header, if any.
fn host_bucket(headers: &HeaderMap) -> Option<String> {
    let host = headers.get(http::header::HOST)?.to_str().ok()?;
    let name = host.rsplit_once(':').map_or(host, |(h, _)| h);
    if name.parse::<std::net::IpAddr>().is_ok() || name.starts_with('[') || name == "localhost" {
        return None;
    }
    let (first, rest) = name.split_once('.')?;
    // `bucket.localhost` or `bucket.s3.example` — but not a bare domain name.
    (!rest.is_empty() && !first.is_empty() && (rest == "localhost" || rest.contains('.')))
        .then(|| first.to_string())
}

pub fn parse(method: &Method, path: &str, query: Option<&str>, headers: &HeaderMap) -> Parsed {
    let query = parse_query(query);
    let trimmed = path.strip_prefix('/').unwrap_or(path);
    let (bucket, key) = match host_bucket(headers) {
        Some(b) => (b, decode(trimmed)),
        None => match trimmed.split_once('/') {
            Some((b, k)) => (decode(b), decode(k)),
            None => (decode(trimmed), String::new()),
        },
    };
    let has = |n: &str| query.iter().any(|(k, _)| k == n);
    let op = match (method, bucket.is_empty(), key.is_empty()) {
        (&Method::GET, true, _) => Op::ListBuckets,
        (_, true, _) => Op::Unsupported,
        (&Method::PUT, false, true) if query.is_empty() => Op::CreateBucket,
        (&Method::HEAD, false, true) => Op::HeadBucket,
        (&Method::DELETE, false, true) if query.is_empty() => Op::DeleteBucket,
        (&Method::GET, false, true) if has("list-type") => Op::ListObjectsV2,
        (&Method::GET, false, true) if has("location") => Op::GetBucketLocation,
        (&Method::GET, false, true)
            if query.iter().all(|(k, _)| {
                matches!(
                    k.as_str(),
                    "prefix" | "delimiter" | "marker" | "max-keys" | "encoding-type"
                )
            }) =>
        {
            Op::ListObjectsV1
        }
        (&Method::POST, false, true) if has("delete") => Op::DeleteObjects,
        (&Method::POST, false, false) if has("uploads") => Op::CreateMultipartUpload,
        (&Method::PUT, false, false) if has("partNumber") && has("uploadId") => Op::UploadPart,
        (&Method::POST, false, false) if has("uploadId") => Op::CompleteMultipartUpload,
        (&Method::DELETE, false, false) if has("uploadId") => Op::AbortMultipartUpload,
        (&Method::PUT, false, false) if query.is_empty() || has("x-id") => Op::PutObject,
        (&Method::GET, false, false)
            if query
                .iter()
                .all(|(k, _)| k == "x-id" || k.starts_with("response-")) =>
        {
            Op::GetObject
        }
        (&Method::HEAD, false, false) => Op::HeadObject,
        (&Method::DELETE, false, false) if query.is_empty() || has("x-id") => Op::DeleteObject,
        _ => Op::Unsupported,
    };
    Parsed {
        op,
        bucket,
        key,
        query,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(m: Method, path: &str, q: Option<&str>) -> Parsed {
        parse(&m, path, q, &HeaderMap::new())
    }

    #[test]
    fn routes_path_style_requests() {
        assert_eq!(p(Method::GET, "/", None).op, Op::ListBuckets);
        assert_eq!(p(Method::PUT, "/b", None).op, Op::CreateBucket);
        assert_eq!(
            p(Method::GET, "/b", Some("list-type=2&prefix=a")).op,
            Op::ListObjectsV2
        );
        assert_eq!(p(Method::GET, "/b", Some("marker=x")).op, Op::ListObjectsV1);
        assert_eq!(p(Method::POST, "/b", Some("delete")).op, Op::DeleteObjects);
        let put = p(Method::PUT, "/b/dir/a%20b%2Bc", None);
        assert_eq!(
            (put.op, put.bucket.as_str(), put.key.as_str()),
            (Op::PutObject, "b", "dir/a b+c")
        );
        assert_eq!(p(Method::GET, "/b/k", Some("acl")).op, Op::Unsupported);
        assert_eq!(
            p(Method::POST, "/b/k", Some("uploads")).op,
            Op::CreateMultipartUpload
        );
        assert_eq!(
            p(Method::PUT, "/b/k", Some("partNumber=2&uploadId=u1")).op,
            Op::UploadPart
        );
        assert_eq!(
            p(Method::POST, "/b/k", Some("uploadId=u1")).op,
            Op::CompleteMultipartUpload
        );
        assert_eq!(
            p(Method::DELETE, "/b/k", Some("uploadId=u1")).op,
            Op::AbortMultipartUpload
        );
    }

    #[test]
    fn routes_virtual_host_requests() {
        let mut h = HeaderMap::new();
        h.insert(http::header::HOST, "bkt.localhost:9000".parse().unwrap());
        let r = parse(&Method::GET, "/some/key", None, &h);
        assert_eq!(
            (r.op, r.bucket.as_str(), r.key.as_str()),
            (Op::GetObject, "bkt", "some/key")
        );
        h.insert(http::header::HOST, "127.0.0.1:9000".parse().unwrap());
        assert_eq!(parse(&Method::GET, "/b/k", None, &h).bucket, "b");
    }

    #[test]
    fn query_values_decode_plus_and_percent() {
        let q = parse_query(Some("prefix=a+b%2Fc&delimiter=%2F&list-type=2"));
        assert_eq!(q[0], ("prefix".to_string(), "a b/c".to_string()));
        assert_eq!(q[1].1, "/");
    }
}
