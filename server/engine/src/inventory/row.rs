//! One row of an inventory, made from a listed entry, a key file's entry, or a listed
//! entry and what a HEAD of it returned.

use std::borrow::Cow;

use crate::keyfile::{KeyEntry, entry_of};
use keystorm_types::ListEntry;

/// One object of an inventory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub key: String,
    pub size: u64,
    /// The ETag without quotes.
    pub etag: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub last_modified_ms: Option<u64>,
    pub storage_class: Option<Cow<'static, str>>,
    /// User metadata (names without `x-amz-meta-`), when the object was HEADed.
    pub metadata: Option<Vec<(String, String)>>,
}

impl Row {
    /// The row with the user metadata a HEAD of the object returned.
    pub fn with_metadata(self, metadata: Vec<(String, String)>) -> Row {
        Row {
            metadata: Some(metadata),
            ..self
        }
    }
}

/// The last-modified time as RFC 3339 text, to the millisecond, in UTC.
pub(super) fn rfc3339(ms: u64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    humantime::format_rfc3339_millis(t).to_string()
}

/// User metadata as one JSON object, names in the order given.
pub(super) struct MetadataObject<'a>(pub &'a [(String, String)]);

impl serde::Serialize for MetadataObject<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl From<ListEntry> for Row {
    fn from(mut e: ListEntry) -> Row {
        let storage_class = e.storage_class.take();
        Row {
            storage_class,
            ..Row::from(entry_of(e))
        }
    }
}

impl From<KeyEntry> for Row {
    fn from(e: KeyEntry) -> Row {
        Row {
            key: e.key,
            size: e.size,
            etag: e.etag,
            last_modified_ms: e.last_modified_ms,
            storage_class: None,
            metadata: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_entry_keeps_its_class_and_loses_its_quotes() {
        let row = Row::from(ListEntry {
            key: "a,b".into(),
            size: 3,
            etag: Some("\"ab\"".into()),
            last_modified: Some("2026-11-27T02:49:53.560Z".into()),
            storage_class: Some(Cow::Borrowed("GLACIER")),
        });
        assert_eq!(row.etag.as_deref(), Some("ab"));
        assert_eq!(row.last_modified_ms, Some(1_795_747_793_560));
        assert_eq!(row.storage_class.as_deref(), Some("GLACIER"));
        assert_eq!(row.metadata, None);
        let row = row.with_metadata(vec![("owner".into(), "x\"y".into())]);
        assert_eq!(
            serde_json::to_string(&MetadataObject(row.metadata.as_deref().unwrap())).unwrap(),
            r#"{"owner":"x\"y"}"#
        );
        assert_eq!(rfc3339(1_795_747_793_560), "2026-11-27T02:49:53.560Z");
    }
}
