//! An inventory as CSV: a header line, then one record per row, quoted by the csv
//! crate where a field holds a comma, a quote or a line break; an unknown value is an
//! empty field, the user metadata a JSON object in one field.

use std::fs::File;

use super::error::TableError;
use super::row::{MetadataObject, Row, rfc3339};

/// Bytes buffered before a write to the file.
const BUFFER: usize = 1 << 20;

pub(super) struct CsvTable {
    out: ::csv::Writer<File>,
    metadata: bool,
}

impl CsvTable {
    pub(super) fn new(file: File, metadata: bool) -> Result<CsvTable, TableError> {
        let mut out = ::csv::WriterBuilder::new()
            .buffer_capacity(BUFFER)
            .from_writer(file);
        let mut header = vec!["key", "size", "etag", "last_modified", "storage_class"];
        if metadata {
            header.push("metadata");
        }
        out.write_record(&header)?;
        Ok(CsvTable { out, metadata })
    }

    pub(super) fn push(&mut self, row: Row) -> Result<(), TableError> {
        let mut size = itoa::Buffer::new();
        self.out.write_field(&row.key)?;
        self.out.write_field(size.format(row.size))?;
        self.out.write_field(row.etag.as_deref().unwrap_or(""))?;
        self.out
            .write_field(row.last_modified_ms.map(rfc3339).unwrap_or_default())?;
        self.out
            .write_field(row.storage_class.as_deref().unwrap_or(""))?;
        if self.metadata {
            let text = match &row.metadata {
                Some(m) => serde_json::to_string(&MetadataObject(m))?,
                None => String::new(),
            };
            self.out.write_field(text)?;
        }
        self.out.write_record(None::<&[u8]>)?;
        Ok(())
    }

    pub(super) fn finish(self) -> Result<File, TableError> {
        self.out
            .into_inner()
            .map_err(|e| TableError::Io(e.into_error()))
    }
}
