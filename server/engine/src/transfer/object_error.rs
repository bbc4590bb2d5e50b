//! Why one object of a download, or one file of an upload, did not move. The transfer
//! counts it (keeping the first messages) and goes on with the others.

use std::path::PathBuf;

use keystorm_types::OpError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum ObjectError {
    #[error("cannot create {}: {source}", path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot rename into {}: {source}", path.display())]
    Rename {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open: {0}")]
    Open(std::io::Error),
    #[error("cannot read: {0}")]
    Read(std::io::Error),
    #[error("cannot read part {number}: {source}")]
    ReadPart { number: u32, source: std::io::Error },
    /// Writing or sizing the local file.
    #[error("{0}")]
    Local(std::io::Error),
    #[error(transparent)]
    Request(#[from] OpError),
    #[error("got {got} bytes of {size}")]
    Short { got: u64, size: u64 },
    #[error("range {first}-{last}: got {got} bytes")]
    ShortRange { first: u64, last: u64, got: u64 },
    #[error("range {first}-{last}: {source}")]
    Range {
        first: u64,
        last: u64,
        source: OpError,
    },
    #[error("part {number}: {source}")]
    Part { number: u32, source: OpError },
    /// A task of the transfer ended without an answer (it panicked or was cancelled).
    #[error("{what} stopped: {source}")]
    Task {
        what: &'static str,
        source: tokio::task::JoinError,
    },
}
