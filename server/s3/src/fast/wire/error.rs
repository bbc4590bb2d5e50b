//! Why an exchange of the wire client failed: no connection, the system's error on
//! one, or an answer that is not HTTP/1.1 as the client reads it.

/// Why an exchange failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WireError {
    /// No connection could be made.
    #[error("cannot connect: {0}")]
    Connect(std::io::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The answer was not HTTP/1.1 as this client reads it.
    #[error("bad response: {0}")]
    Malformed(String),
}

impl WireError {
    /// The peer closed the connection at a point where an answer was due.
    pub(crate) fn closed(when: &str) -> WireError {
        WireError::Io(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("connection closed {when}"),
        ))
    }

    /// The underlying system error, if any.
    pub fn io(&self) -> Option<&std::io::Error> {
        match self {
            WireError::Connect(e) | WireError::Io(e) => Some(e),
            WireError::Malformed(_) => None,
        }
    }
}
