//! What can go wrong writing an inventory, naming the file.

/// Why a table could not be written (whatever its file).
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Parquet(#[from] ::parquet::errors::ParquetError),
    #[error(transparent)]
    Csv(#[from] ::csv::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    #[error("cannot write the inventory {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: TableError,
    },
    #[error("the inventory writer of {path} stopped: {message}")]
    Stopped { path: String, message: String },
}

impl InventoryError {
    pub(super) fn write(path: &std::path::Path, source: impl Into<TableError>) -> InventoryError {
        InventoryError::Write {
            path: path.display().to_string(),
            source: source.into(),
        }
    }
}
