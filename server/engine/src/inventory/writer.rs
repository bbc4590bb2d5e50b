//! An inventory being written: rows in, a table of the chosen format out, written to
//! `PATH.partial` and renamed to `PATH` once finished; dropped unfinished, it removes
//! the partial file, so a failed or stopped listing leaves no inventory.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::csv::CsvTable;
use super::error::{InventoryError, TableError};
use super::format::Format;
use super::jsonl::JsonlTable;
use super::parquet::ParquetTable;
use super::row::Row;

/// An inventory being written.
pub struct InventoryWriter {
    path: PathBuf,
    partial: PathBuf,
    format: Format,
    /// `None` once finished (or failed while finishing).
    table: Option<Table>,
    rows: u64,
}

/// What was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub format: Format,
    pub rows: u64,
    pub bytes: u64,
}

enum Table {
    Parquet(Box<ParquetTable>),
    Csv(Box<CsvTable>),
    Jsonl(JsonlTable),
}

impl InventoryWriter {
    /// An inventory to be written at `path`; `metadata`: rows carry the objects' user
    /// metadata (a HEAD scan's), which makes a column of its own.
    pub fn create(
        path: &Path,
        format: Format,
        metadata: bool,
    ) -> Result<InventoryWriter, InventoryError> {
        let partial = partial_path(path);
        let file = File::create(&partial).map_err(|e| InventoryError::write(path, e))?;
        let made = match format {
            Format::Parquet => ParquetTable::new(file, metadata).map(|t| Table::Parquet(t.into())),
            Format::Csv => CsvTable::new(file, metadata).map(|t| Table::Csv(t.into())),
            Format::Jsonl => Ok(Table::Jsonl(JsonlTable::new(file, metadata))),
        };
        let table = match made {
            Ok(t) => t,
            Err(e) => {
                let _ = std::fs::remove_file(&partial);
                return Err(InventoryError::write(path, e));
            }
        };
        Ok(InventoryWriter {
            path: path.to_path_buf(),
            partial,
            format,
            table: Some(table),
            rows: 0,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn format(&self) -> Format {
        self.format
    }

    pub fn push(&mut self, row: Row) -> Result<(), InventoryError> {
        let pushed = match &mut self.table {
            Some(Table::Parquet(t)) => t.push(row),
            Some(Table::Csv(t)) => t.push(row),
            Some(Table::Jsonl(t)) => t.push(row),
            None => return Ok(()),
        };
        pushed.map_err(|e| InventoryError::write(&self.path, e))?;
        self.rows += 1;
        Ok(())
    }

    /// Writes what is buffered and the file's footer, and puts the file in place.
    pub fn finish(mut self) -> Result<Written, InventoryError> {
        let Some(table) = self.table.take() else {
            return Err(InventoryError::Stopped {
                path: self.path.display().to_string(),
                message: "already finished".into(),
            });
        };
        let file = match table {
            Table::Parquet(t) => t.finish(),
            Table::Csv(t) => t.finish(),
            Table::Jsonl(t) => t.finish(),
        };
        let written = file.and_then(|f| {
            f.sync_all()?;
            Ok(f.metadata()?.len())
        });
        let bytes = written.map_err(|e: TableError| InventoryError::write(&self.path, e))?;
        std::fs::rename(&self.partial, &self.path)
            .map_err(|e| InventoryError::write(&self.path, e))?;
        Ok(Written {
            format: self.format,
            rows: self.rows,
            bytes,
        })
    }
}

impl Drop for InventoryWriter {
    fn drop(&mut self) {
        // Unfinished, or failed while finishing: the partial file is no inventory (once
        // finished, it was renamed and is gone).
        let _ = std::fs::remove_file(&self.partial);
    }
}

/// Where the file is written until it is complete.
fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}
