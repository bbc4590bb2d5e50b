//! What can go wrong reading or writing a run folder.

use std::path::PathBuf;

/// A result file that cannot be read or written, or a run that is not there.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a keystorm result file: {message}")]
    Format { path: PathBuf, message: String },
    #[error("no run {0:?} in the results folder")]
    NoSuchRun(String),
}
