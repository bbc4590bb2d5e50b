//! A request as the signer reads it and the wire writes it, borrowed from its parts:
//! no URI to parse back, no header map to fill.

/// A request as it is signed and sent: its method, its target (path and query, encoded
/// as they go on the wire), the `host` it names and its own headers (lower-case names).
pub struct Outgoing<'a> {
    pub method: &'a str,
    pub target: &'a str,
    pub host: &'a str,
    pub headers: &'a [(&'a str, &'a str)],
}
