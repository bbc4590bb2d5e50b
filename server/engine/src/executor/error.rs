//! How a run fails before it has a results folder to record the failure in, or when that
//! folder itself fails.

use keystorm_results::ResultsError;

/// Failures before any result folder exists, or of the result folder itself.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Setup(String),
    /// What the caller asked cannot be (a resume with other settings than the run's).
    #[error("{0}")]
    BadInput(String),
    #[error(transparent)]
    Results(#[from] ResultsError),
}
