//! An inventory as Parquet, through arrow-rs's file writer: rows are buffered column by
//! column and written a row group at a time (64Ki rows, or fewer when their bytes pass
//! 32 MiB), Snappy-compressed. The schema:
//!
//! ```text
//! message keystorm_inventory {
//!   required binary key (STRING);
//!   required int64 size;
//!   optional binary etag (STRING);
//!   optional int64 last_modified (TIMESTAMP(MILLIS,true));
//!   optional binary storage_class (STRING);
//!   optional group metadata (MAP) {          -- with --head only
//!     repeated group key_value {
//!       required binary key (STRING);
//!       required binary value (STRING);
//!     }
//!   }
//! }
//! ```
//!
//! The metadata is a map because its names are only known once every object was
//! HEADed, and a file written as it streams must fix its columns at the start.

use std::borrow::Cow;
use std::fs::File;
use std::sync::Arc;

use ::parquet::basic::Compression;
use ::parquet::data_type::{ByteArray, ByteArrayType, DataType, Int64Type};
use ::parquet::errors::ParquetError;
use ::parquet::file::properties::WriterProperties;
use ::parquet::file::writer::{SerializedFileWriter, SerializedRowGroupWriter};
use ::parquet::schema::parser::parse_message_type;
use ::parquet::schema::types::ColumnPath;
use bytes::Bytes;

use super::error::TableError;
use super::row::Row;

/// Rows per row group.
const GROUP_ROWS: usize = 64 * 1024;
/// Bytes of keys, ETags and metadata buffered before a row group is written early.
const GROUP_BYTES: usize = 32 << 20;

const COLUMNS: &str = "
  required binary key (STRING);
  required int64 size;
  optional binary etag (STRING);
  optional int64 last_modified (TIMESTAMP(MILLIS,true));
  optional binary storage_class (STRING);";

const METADATA: &str = "
  optional group metadata (MAP) {
    repeated group key_value {
      required binary key (STRING);
      required binary value (STRING);
    }
  }";

pub(super) struct ParquetTable {
    out: SerializedFileWriter<File>,
    metadata: bool,
    group: Group,
}

/// One row group's columns, with their definition (and repetition) levels.
#[derive(Default)]
struct Group {
    rows: usize,
    bytes: usize,
    keys: Vec<ByteArray>,
    sizes: Vec<i64>,
    etags: Vec<ByteArray>,
    etag_levels: Vec<i16>,
    times: Vec<i64>,
    time_levels: Vec<i16>,
    classes: Vec<ByteArray>,
    class_levels: Vec<i16>,
    names: Vec<ByteArray>,
    values: Vec<ByteArray>,
    /// 0: no metadata (not HEADed), 1: an empty map, 2: an entry.
    meta_def: Vec<i16>,
    /// 0: a row's first entry (or its empty or missing map), 1: its next ones.
    meta_rep: Vec<i16>,
}

impl ParquetTable {
    pub(super) fn new(file: File, metadata: bool) -> Result<ParquetTable, TableError> {
        let schema = format!(
            "message keystorm_inventory {{{COLUMNS}{}\n}}",
            if metadata { METADATA } else { "" }
        );
        let schema = Arc::new(parse_message_type(&schema)?);
        // Keys and ETags are (nearly) all different: a dictionary would only be dropped.
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_column_dictionary_enabled(ColumnPath::from("key"), false)
            .set_column_dictionary_enabled(ColumnPath::from("etag"), false)
            .set_created_by(format!("keystorm {}", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(ParquetTable {
            out: SerializedFileWriter::new(file, schema, Arc::new(props))?,
            metadata,
            group: Group::default(),
        })
    }

    pub(super) fn push(&mut self, row: Row) -> Result<(), TableError> {
        self.group.push(row, self.metadata);
        if self.group.rows >= GROUP_ROWS || self.group.bytes >= GROUP_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ParquetError> {
        if self.group.rows == 0 {
            return Ok(());
        }
        let g = std::mem::take(&mut self.group);
        let mut w = self.out.next_row_group()?;
        column::<ByteArrayType>(&mut w, &g.keys, None, None)?;
        column::<Int64Type>(&mut w, &g.sizes, None, None)?;
        column::<ByteArrayType>(&mut w, &g.etags, Some(&g.etag_levels), None)?;
        column::<Int64Type>(&mut w, &g.times, Some(&g.time_levels), None)?;
        column::<ByteArrayType>(&mut w, &g.classes, Some(&g.class_levels), None)?;
        if self.metadata {
            column::<ByteArrayType>(&mut w, &g.names, Some(&g.meta_def), Some(&g.meta_rep))?;
            column::<ByteArrayType>(&mut w, &g.values, Some(&g.meta_def), Some(&g.meta_rep))?;
        }
        w.close()?;
        Ok(())
    }

    pub(super) fn finish(mut self) -> Result<File, TableError> {
        self.flush()?;
        Ok(self.out.into_inner()?)
    }
}

/// Writes the next column of the row group.
fn column<T: DataType>(
    w: &mut SerializedRowGroupWriter<'_, File>,
    values: &[T::T],
    def: Option<&[i16]>,
    rep: Option<&[i16]>,
) -> Result<(), ParquetError> {
    let mut c = w
        .next_column()?
        .ok_or_else(|| ParquetError::General("the schema has fewer columns than a row".into()))?;
    c.typed::<T>().write_batch(values, def, rep)?;
    c.close()
}

impl Group {
    fn push(&mut self, row: Row, metadata: bool) {
        self.rows += 1;
        self.bytes += row.key.len();
        self.keys.push(ByteArray::from(row.key.into_bytes()));
        self.sizes.push(i64::try_from(row.size).unwrap_or(i64::MAX));
        optional(
            &mut self.etags,
            &mut self.etag_levels,
            row.etag.map(|e| {
                self.bytes += e.len();
                ByteArray::from(e.into_bytes())
            }),
        );
        optional(
            &mut self.times,
            &mut self.time_levels,
            row.last_modified_ms.and_then(|t| i64::try_from(t).ok()),
        );
        optional(
            &mut self.classes,
            &mut self.class_levels,
            row.storage_class.map(|c| match c {
                Cow::Borrowed(s) => ByteArray::from(Bytes::from_static(s.as_bytes())),
                Cow::Owned(s) => ByteArray::from(s.into_bytes()),
            }),
        );
        if !metadata {
            return;
        }
        match row.metadata {
            None => {
                self.meta_def.push(0);
                self.meta_rep.push(0);
            }
            Some(m) if m.is_empty() => {
                self.meta_def.push(1);
                self.meta_rep.push(0);
            }
            Some(m) => {
                for (i, (name, value)) in m.into_iter().enumerate() {
                    self.bytes += name.len() + value.len();
                    self.names.push(ByteArray::from(name.into_bytes()));
                    self.values.push(ByteArray::from(value.into_bytes()));
                    self.meta_def.push(2);
                    self.meta_rep.push(i16::from(i > 0));
                }
            }
        }
    }
}

/// A nullable value: the value when there is one, and its definition level.
fn optional<T>(values: &mut Vec<T>, levels: &mut Vec<i16>, value: Option<T>) {
    match value {
        Some(v) => {
            values.push(v);
            levels.push(1);
        }
        None => levels.push(0),
    }
}
