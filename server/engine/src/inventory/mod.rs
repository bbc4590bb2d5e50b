//! Inventories: a bucket's listing as a table for the tools that read tables (DuckDB,
//! pandas, Spark, a spreadsheet) rather than for keystorm, which reads key files.
//!
//! One row per listed object: key, size, ETag (without quotes), last-modified, storage
//! class, and with a HEAD scan the object's user metadata. Three formats, picked by the
//! file's extension or by name ([`Format`]): Parquet (arrow-rs's writer, a row group at
//! a time), CSV (the csv crate's quoting) and JSON lines. Rows are written as they
//! arrive, in the order the listing returns them (a parallel listing's is not key
//! order), through a bounded buffer, so memory does not grow with the key count. The
//! file appears under its name only once complete (`PATH.partial` while written; a
//! writer dropped unfinished removes it).

mod convert;
mod csv;
mod error;
mod feed;
mod format;
mod jsonl;
mod listed;
mod parquet;
mod row;
#[cfg(test)]
mod tests;
mod writer;

pub use convert::{ConvertError, convert};
pub use error::{InventoryError, TableError};
pub use feed::Feed;
pub use format::Format;
pub use listed::{ListedError, list_into};
pub use row::Row;
pub use writer::{InventoryWriter, Written};
