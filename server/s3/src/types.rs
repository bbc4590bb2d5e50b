//! What the S3 calls take and give back, the same for both clients.

/// Result of a GET: bytes streamed (and discarded) and time to the first body byte.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GetOutcome {
    pub bytes: u64,
    pub ttfb: std::time::Duration,
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

/// One listed object.
#[derive(Debug, Clone, PartialEq)]
pub struct ListEntry {
    pub key: String,
    pub size: u64,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
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
