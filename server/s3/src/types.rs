//! What the S3 calls take and give back, the same for both clients.

use keystorm_types::ListEntry;

/// Result of a GET: bytes streamed (and discarded) and time to the first body byte.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GetOutcome {
    pub bytes: u64,
    pub ttfb: std::time::Duration,
    /// The MD5 the ETag states, when it is one (a single-part upload's ETag: 32 hex
    /// digits; a multipart upload's `<hex>-<parts>` is not an MD5 of the body).
    pub md5: Option<[u8; 16]>,
}

/// The MD5 an ETag states (`"<32 hex digits>"`, quotes optional), if it is one.
pub fn md5_of_etag(etag: &str) -> Option<[u8; 16]> {
    let hex = etag.trim().trim_matches('"').as_bytes();
    if hex.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, pair) in hex.chunks_exact(2).enumerate() {
        let digit = |c: u8| (c as char).to_digit(16);
        out[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Some(out)
}

/// Result of a HEAD: what a storage engineer asks a HEAD for.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadOutcome {
    pub size: u64,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// User metadata, names without the `x-amz-meta-` prefix, lower-case.
    pub metadata: Vec<(String, String)>,
}

/// One ListObjects request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListRequest {
    pub prefix: Option<String>,
    pub delimiter: Option<String>,
    pub max_keys: Option<u32>,
    pub continuation_token: Option<String>,
    pub start_after: Option<String>,
    /// Only keys and sizes are wanted: a client may leave ETags and dates out of the
    /// entries (the fast client does, to spend less CPU per key).
    pub keys_and_sizes_only: bool,
}

/// One page of a ListObjectsV2 response.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListPage {
    pub entries: Vec<ListEntry>,
    pub common_prefixes: Vec<String>,
    pub is_truncated: bool,
    pub next_continuation_token: Option<String>,
}

/// Result of DeleteObjects: how many keys were deleted and the keys that failed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeleteManyOutcome {
    pub deleted: u64,
    pub errors: Vec<(String, String)>,
}

#[cfg(test)]
mod tests {
    use super::md5_of_etag;

    #[test]
    fn an_etag_states_an_md5_only_when_it_is_one() {
        let md5 = md5_of_etag("\"d41d8cd98f00b204e9800998ecf8427e\"").unwrap();
        assert_eq!(md5[0], 0xd4);
        assert_eq!(md5[15], 0x7e);
        assert_eq!(md5_of_etag("D41D8CD98F00B204E9800998ECF8427E"), Some(md5));
        // A multipart ETag, a short one and one with a stray character are not MD5s.
        assert_eq!(md5_of_etag("\"d41d8cd98f00b204e9800998ecf8427e-2\""), None);
        assert_eq!(md5_of_etag("\"abc\""), None);
        assert_eq!(md5_of_etag("\"d41d8cd98f00b204e9800998ecf8427g\""), None);
    }
}
