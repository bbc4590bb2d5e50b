//! Why a listing did not finish.

use super::checkpoint::CheckpointError;

#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error("listing stopped: a page of {range} failed ({attempts} attempt{}): {message}", if *attempts == 1 { "" } else { "s" })]
    Page {
        range: String,
        attempts: u32,
        message: String,
    },
    #[error("cannot write the key file: {0}")]
    KeyFile(std::io::Error),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
}
