//! Which header values are text: what a signature can cover and what is read back as a
//! string. One rule for both sides of the wire.

/// Whether a header value is text: visible ASCII, spaces and tabs. Only text can be put
/// in a canonical request (another value goes unsigned) or is read as a string.
pub(crate) fn is_text(value: &[u8]) -> bool {
    value
        .iter()
        .all(|&b| b == b'\t' || (b' '..=b'~').contains(&b))
}
