//! One key as a key file holds it.

/// One key of a key file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyEntry {
    pub key: String,
    pub size: u64,
    /// The ETag without quotes.
    pub etag: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub last_modified_ms: Option<u64>,
}
