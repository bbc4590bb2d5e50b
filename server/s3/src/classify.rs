//! Turning failures into error classes: HTTP status (503 = SlowDown), timeout,
//! connection, other — the same labels and words whichever client failed.

use keystorm_types::{ErrorClass, OpError};

/// A transport failure in words a reader knows: the innermost cause — the system's
/// reason ("Connection refused (os error 111)", "failed to lookup address
/// information: ...") or the TLS library's — after "cannot connect" when the connection
/// was never made. The HTTP libraries' wrapping ("client error (Connect)", "dispatch
/// failure", their debug dumps) says nothing more to the reader, and is left out.
pub fn plain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut connecting = false;
    let mut innermost = e;
    let mut source = Some(e);
    while let Some(err) = source {
        // hyper-util's connector error, under either client.
        connecting |= err.to_string() == "tcp connect error";
        innermost = err;
        source = err.source();
    }
    let cause = innermost.to_string();
    if connecting {
        format!("cannot connect: {cause}")
    } else {
        cause
    }
}

/// `outer: inner: innermost`
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.last().is_some_and(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

/// An HTTP error status, with S3's error code when the body had one.
pub fn status(status: u16, code: Option<&str>, what: &str) -> OpError {
    let class = ErrorClass::from_status(status);
    match code {
        Some(code) if !code.is_empty() => {
            OpError::new(class, format!("{what}: HTTP {status} {code}"))
        }
        _ => OpError::new(class, format!("{what}: HTTP {status}")),
    }
}

/// `err` with S3's `<Message>` added, when the error document had one: what the target
/// says went wrong (e.g. which budget is full and how to raise it) reaches the user.
pub fn with_message(mut err: OpError, message: Option<&str>) -> OpError {
    if let Some(m) = message.map(str::trim).filter(|m| !m.is_empty()) {
        err.message = format!("{}: {m}", err.message);
    }
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_follow_the_status_and_code() {
        let e = with_message(
            status(507, Some("InsufficientStorage"), "PUT"),
            Some("full"),
        );
        assert_eq!(e.class, ErrorClass::Http(507));
        assert_eq!(e.message, "PUT: HTTP 507 InsufficientStorage: full");
        let e = with_message(status(503, None, "GET"), Some("  "));
        assert_eq!(
            (e.class, e.message.as_str()),
            (ErrorClass::SlowDown, "GET: HTTP 503")
        );
    }
}
