//! An inventory as JSON lines: one object per row, `null` for what is unknown, the
//! user metadata as an object.

use std::fs::File;
use std::io::{BufWriter, Write};

use serde::Serialize;

use super::error::TableError;
use super::row::{MetadataObject, Row, rfc3339};

/// Bytes buffered before a write to the file.
const BUFFER: usize = 1 << 20;

pub(super) struct JsonlTable {
    out: BufWriter<File>,
    metadata: bool,
}

#[derive(Serialize)]
struct Line<'a> {
    key: &'a str,
    size: u64,
    etag: Option<&'a str>,
    last_modified: Option<String>,
    storage_class: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<Option<MetadataObject<'a>>>,
}

impl JsonlTable {
    pub(super) fn new(file: File, metadata: bool) -> JsonlTable {
        JsonlTable {
            out: BufWriter::with_capacity(BUFFER, file),
            metadata,
        }
    }

    pub(super) fn push(&mut self, row: Row) -> Result<(), TableError> {
        let line = Line {
            key: &row.key,
            size: row.size,
            etag: row.etag.as_deref(),
            last_modified: row.last_modified_ms.map(rfc3339),
            storage_class: row.storage_class.as_deref(),
            metadata: self
                .metadata
                .then(|| row.metadata.as_deref().map(MetadataObject)),
        };
        serde_json::to_writer(&mut self.out, &line)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    pub(super) fn finish(self) -> Result<File, TableError> {
        self.out
            .into_inner()
            .map_err(|e| TableError::Io(e.into_error()))
    }
}
