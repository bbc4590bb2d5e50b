//! The vocabulary shared by every layer: which S3 operation ran and how it failed.
//!
//! Error classes are fixed labels so that counts from different runs, clients and
//! (later) agents can be added up without translation.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One S3 operation a phase can issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Put,
    Get,
    Head,
    List,
    Delete,
}

impl OpKind {
    pub const ALL: [OpKind; 5] = [
        OpKind::Put,
        OpKind::Get,
        OpKind::Head,
        OpKind::List,
        OpKind::Delete,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Put => "put",
            OpKind::Get => "get",
            OpKind::Head => "head",
            OpKind::List => "list",
            OpKind::Delete => "delete",
        }
    }

    /// Index into fixed-size per-operation arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn parse(s: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a request failed, as counted in results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorClass {
    /// HTTP 503 with code SlowDown (or any 503): the target asks the client to back off.
    SlowDown,
    /// Any other HTTP error status.
    Http(u16),
    /// The request did not complete within the configured timeout.
    Timeout,
    /// Connect failure, reset, broken pipe, TLS failure.
    Connection,
    /// Anything else (bad response body, client-side failure).
    Other,
    /// A GET answered, but its body (or its MD5 ETag) is not what was written
    /// (found by a phase's `verify`).
    Corrupt,
    /// A key keystorm wrote and still counts as live answered 404.
    Missing,
}

impl ErrorClass {
    /// Stable label used in result files: `slowdown`, `http_404`, `timeout`, `connection`,
    /// `other`, `corrupt`, `missing`.
    pub fn label(self) -> String {
        match self {
            ErrorClass::SlowDown => "slowdown".to_string(),
            ErrorClass::Http(s) => format!("http_{s}"),
            ErrorClass::Timeout => "timeout".to_string(),
            ErrorClass::Connection => "connection".to_string(),
            ErrorClass::Other => "other".to_string(),
            ErrorClass::Corrupt => "corrupt".to_string(),
            ErrorClass::Missing => "missing".to_string(),
        }
    }

    /// The class a [`label`](Self::label) names (an unknown label is `Other`).
    pub fn from_label(label: &str) -> ErrorClass {
        match label {
            "slowdown" => ErrorClass::SlowDown,
            "timeout" => ErrorClass::Timeout,
            "connection" => ErrorClass::Connection,
            "corrupt" => ErrorClass::Corrupt,
            "missing" => ErrorClass::Missing,
            other => other
                .strip_prefix("http_")
                .and_then(|s| s.parse().ok())
                .map(ErrorClass::Http)
                .unwrap_or(ErrorClass::Other),
        }
    }

    /// Class of an HTTP error status (503 always counts as SlowDown).
    pub fn from_status(status: u16) -> ErrorClass {
        if status == 503 {
            ErrorClass::SlowDown
        } else {
            ErrorClass::Http(status)
        }
    }
}

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// A failed S3 request: its class for counting and a message for humans.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{class}: {message}")]
pub struct OpError {
    pub class: ErrorClass,
    pub message: String,
}

impl OpError {
    pub fn new(class: ErrorClass, message: impl Into<String>) -> Self {
        OpError {
            class,
            message: message.into(),
        }
    }
}
