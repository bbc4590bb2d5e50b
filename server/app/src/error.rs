//! An error of a command, with the exit code it deserves; printed as one line on
//! stderr by the entry point.

use keystorm_console::exit;

/// An error with the exit code it deserves.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    pub fn bad_input(message: impl Into<String>) -> CliError {
        CliError {
            code: exit::BAD_INPUT,
            message: message.into(),
        }
    }

    pub fn failed(message: impl Into<String>) -> CliError {
        CliError {
            code: exit::FAILED,
            message: message.into(),
        }
    }
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        CliError::failed(format!("{e:#}"))
    }
}
