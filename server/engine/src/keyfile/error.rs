//! What can be wrong with a key file, naming the file.

#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    #[error("key file {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a keystorm key file ({message})")]
    Format { path: String, message: String },
    #[error(
        "key file {path} is of format version {found}; this keystorm reads versions {oldest} \
         to {newest}"
    )]
    Version {
        path: String,
        found: u32,
        oldest: u32,
        newest: u32,
    },
}

impl KeyFileError {
    pub(super) fn io(path: &std::path::Path, source: std::io::Error) -> KeyFileError {
        KeyFileError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    pub(crate) fn format(path: &std::path::Path, message: impl Into<String>) -> KeyFileError {
        KeyFileError::Format {
            path: path.display().to_string(),
            message: message.into(),
        }
    }
}
