//! An HTTP/1.1 response read off a wire connection: the head parsed in place
//! (`httparse`), then the body as slices of the connection's buffer, framed by
//! `Content-Length`, chunks, or the close. The connection goes back to the idle set
//! once the body is read to its end and both sides keep it alive; a response dropped
//! before that closes it, so no half-read answer can reach the next request.

use std::mem::MaybeUninit;

use http::StatusCode;

use super::conn::{Conn, Fields};
use super::error::WireError;
use super::idle::Idle;

/// A response head bigger than this is refused (S3 heads are a few KiB even with
/// much metadata).
const MAX_HEAD: usize = 256 * 1024;
/// The most headers a head may have.
const MAX_HEADERS: usize = 256;
/// A chunk-size or trailer line longer than this is refused.
const MAX_LINE: usize = 8 * 1024;

/// How much of the body is left, and how it is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// `n` more bytes of a body of known length.
    Length(u64),
    /// Chunked: the next chunk's size line is due.
    ChunkSize,
    /// Chunked: `n` more bytes of the current chunk.
    ChunkData(u64),
    /// Chunked: the line break after a chunk's data is due.
    ChunkEnd,
    /// Chunked: trailer lines until an empty one.
    Trailers,
    /// Everything until the peer closes.
    UntilClose,
    /// The body has been read to its end.
    Done,
}

pub(crate) struct Response<'w> {
    idle: &'w Idle,
    conn: Option<Conn>,
    status: StatusCode,
    framing: Framing,
    keep_alive: bool,
}

impl<'w> Response<'w> {
    /// Reads the head of the answer to the request just written on `conn` (skipping
    /// interim 1xx answers); `head_request`: the answer has no body whatever it says.
    pub async fn read(
        idle: &'w Idle,
        mut conn: Conn,
        head_request: bool,
    ) -> Result<Response<'w>, WireError> {
        loop {
            let (buffered, fields) = conn.buffered_and_fields();
            if let Some(parsed) = parse_head(buffered, fields)? {
                conn.take(parsed.len);
                if parsed.status.is_informational()
                    && parsed.status != StatusCode::SWITCHING_PROTOCOLS
                {
                    continue;
                }
                let no_body = head_request
                    || parsed.status == StatusCode::NO_CONTENT
                    || parsed.status == StatusCode::NOT_MODIFIED;
                let framing = if no_body {
                    Framing::Done
                } else {
                    framing_of(&conn.fields)?
                };
                let keep_alive = parsed.keep_alive && framing != Framing::UntilClose;
                return Ok(Response {
                    idle,
                    conn: Some(conn),
                    status: parsed.status,
                    framing,
                    keep_alive,
                });
            }
            if conn.buffered().len() > MAX_HEAD {
                return Err(WireError::Malformed(format!(
                    "response head longer than {MAX_HEAD} bytes"
                )));
            }
            if conn.fill().await? == 0 {
                return Err(WireError::closed("before an answer"));
            }
        }
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The head's header fields.
    pub fn headers(&self) -> &Fields {
        // Only `Drop` takes the connection.
        &self
            .conn
            .as_ref()
            .expect("a response holds its connection until dropped")
            .fields
    }

    fn conn(&mut self) -> &mut Conn {
        // Only `Drop` takes the connection.
        self.conn
            .as_mut()
            .expect("a response holds its connection until dropped")
    }

    /// The next slice of the body; `None` at its end.
    pub async fn chunk(&mut self) -> Result<Option<&[u8]>, WireError> {
        loop {
            match self.framing {
                Framing::Done => return Ok(None),
                Framing::Length(left) | Framing::ChunkData(left) => {
                    let chunked = matches!(self.framing, Framing::ChunkData(_));
                    if left == 0 {
                        self.framing = if chunked {
                            Framing::ChunkEnd
                        } else {
                            Framing::Done
                        };
                        continue;
                    }
                    if self.conn().buffered().is_empty() && self.conn().fill().await? == 0 {
                        return Err(WireError::closed(&format!(
                            "{left} bytes before the body's end"
                        )));
                    }
                    let n = (self.conn().buffered().len() as u64).min(left);
                    let rest = left - n;
                    self.framing = match (chunked, rest) {
                        (true, _) => Framing::ChunkData(rest),
                        (false, 0) => Framing::Done,
                        (false, _) => Framing::Length(rest),
                    };
                    return Ok(Some(self.conn().take(n as usize)));
                }
                Framing::ChunkSize => {
                    let len = self.line().await?;
                    let size = chunk_size(&self.conn().buffered()[..len])?;
                    self.conn().take(len + 1);
                    self.framing = if size == 0 {
                        Framing::Trailers
                    } else {
                        Framing::ChunkData(size)
                    };
                }
                Framing::ChunkEnd => {
                    let len = self.line().await?;
                    let empty = trim_cr(&self.conn().buffered()[..len]).is_empty();
                    self.conn().take(len + 1);
                    if !empty {
                        return Err(WireError::Malformed("chunk longer than its size".into()));
                    }
                    self.framing = Framing::ChunkSize;
                }
                Framing::Trailers => {
                    let len = self.line().await?;
                    let empty = trim_cr(&self.conn().buffered()[..len]).is_empty();
                    self.conn().take(len + 1);
                    if empty {
                        self.framing = Framing::Done;
                    }
                }
                Framing::UntilClose => {
                    if self.conn().buffered().is_empty() && self.conn().fill().await? == 0 {
                        self.framing = Framing::Done;
                        continue;
                    }
                    let n = self.conn().buffered().len();
                    return Ok(Some(self.conn().take(n)));
                }
            }
        }
    }

    /// Reads until a whole line is buffered; its length without the `\n`.
    async fn line(&mut self) -> Result<usize, WireError> {
        loop {
            if let Some(at) = memchr::memchr(b'\n', self.conn().buffered()) {
                return Ok(at);
            }
            if self.conn().buffered().len() > MAX_LINE {
                return Err(WireError::Malformed(format!(
                    "chunk line longer than {MAX_LINE} bytes"
                )));
            }
            if self.conn().fill().await? == 0 {
                return Err(WireError::closed("inside a chunked body"));
            }
        }
    }

    /// The whole body, up to `limit` bytes (more is an error).
    pub async fn body(&mut self, limit: usize) -> Result<Vec<u8>, WireError> {
        // The length the server states is room made ahead, so it is not believed past
        // a mebibyte: more grows as it comes.
        let mut all = match self.framing {
            Framing::Length(n) => Vec::with_capacity((n as usize).min(limit).min(1 << 20)),
            _ => Vec::new(),
        };
        while let Some(chunk) = self.chunk().await? {
            if all.len() + chunk.len() > limit {
                return Err(WireError::Malformed(format!(
                    "response body longer than {limit} bytes"
                )));
            }
            all.extend_from_slice(chunk);
        }
        Ok(all)
    }
}

impl Drop for Response<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take()
            && self.framing == Framing::Done
            && self.keep_alive
        {
            self.idle.check_in(conn);
        }
    }
}

/// A parsed response head; its fields are in the [`Fields`] it was parsed into.
struct Head {
    /// Its length in bytes, blank line included.
    len: usize,
    status: StatusCode,
    /// HTTP/1.1 without `Connection: close`, or HTTP/1.0 with `keep-alive`.
    keep_alive: bool,
}

/// The head at the start of `bytes`, `None` while incomplete; its header fields are
/// copied into `fields`.
fn parse_head(bytes: &[u8], fields: &mut Fields) -> Result<Option<Head>, WireError> {
    // Left uninitialised: writing 256 empty slots per response was a measurable
    // share of a small request's client time.
    let mut slots = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
    let mut parsed = httparse::Response::new(&mut []);
    let parse = httparse::ParserConfig::default().parse_response_with_uninit_headers(
        &mut parsed,
        bytes,
        &mut slots,
    );
    let len = match parse {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(WireError::Malformed(format!("response head: {e}"))),
    };
    let status = parsed
        .code
        .and_then(|c| StatusCode::from_u16(c).ok())
        .ok_or_else(|| WireError::Malformed("response status".into()))?;
    let mut keep_alive = parsed.version == Some(1);
    fields.clear();
    for h in parsed.headers.iter() {
        if h.name.eq_ignore_ascii_case("connection") {
            let v = h.value.to_ascii_lowercase();
            if v.windows(5).any(|w| w == b"close") {
                keep_alive = false;
            } else if v.windows(10).any(|w| w == b"keep-alive") {
                keep_alive = true;
            }
        }
        fields.push(h.name, h.value);
    }
    Ok(Some(Head {
        len,
        status,
        keep_alive,
    }))
}

/// How the body of a response with header `fields` is framed.
fn framing_of(fields: &Fields) -> Result<Framing, WireError> {
    if let Some(te) = fields.get_bytes("transfer-encoding") {
        let te = te.to_ascii_lowercase();
        return if te.ends_with(b"chunked") {
            Ok(Framing::ChunkSize)
        } else {
            Ok(Framing::UntilClose)
        };
    }
    let mut lengths = fields.get_all("content-length");
    match (lengths.next(), lengths.next()) {
        (None, _) => Ok(Framing::UntilClose),
        (Some(one), None) => std::str::from_utf8(one)
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .map(Framing::Length)
            .ok_or_else(|| {
                WireError::Malformed(format!("content-length {:?}", String::from_utf8_lossy(one)))
            }),
        (Some(_), Some(_)) => Err(WireError::Malformed("two content-length headers".into())),
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The size on a chunk's line (hex digits, then maybe `;extensions`).
fn chunk_size(line: &[u8]) -> Result<u64, WireError> {
    let line = trim_cr(line);
    let digits = line.split(|b| *b == b';').next().unwrap_or_default();
    let digits = std::str::from_utf8(digits).unwrap_or_default().trim();
    u64::from_str_radix(digits, 16)
        .ok()
        .filter(|_| !digits.is_empty() && digits.len() <= 15)
        .ok_or_else(|| {
            WireError::Malformed(format!("chunk size {:?}", String::from_utf8_lossy(line)))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(head: &[u8]) -> Result<Option<(Head, Fields)>, WireError> {
        let mut fields = Fields::default();
        Ok(parse_head(head, &mut fields)?.map(|h| (h, fields)))
    }

    #[test]
    fn heads_give_status_headers_and_framing() {
        let head =
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"x\"\r\nX-Amz-Meta-A: 1\r\n\r\nhello";
        let (h, fields) = parse(head).unwrap().unwrap();
        assert_eq!(h.len, head.len() - 5);
        assert_eq!(h.status, StatusCode::OK);
        assert!(h.keep_alive);
        assert_eq!(fields.get("etag"), Some("\"x\""));
        assert_eq!(
            fields.iter().collect::<Vec<_>>(),
            [
                ("content-length", "5"),
                ("etag", "\"x\""),
                ("x-amz-meta-a", "1")
            ]
        );
        assert_eq!(framing_of(&fields).unwrap(), Framing::Length(5));
        assert!(parse(&head[..20]).unwrap().is_none());

        let (closing, fields) = parse(
            b"HTTP/1.1 503 Slow Down\r\nConnection: Close\r\nTransfer-Encoding: chunked\r\n\r\n",
        )
        .unwrap()
        .unwrap();
        assert!(!closing.keep_alive);
        assert_eq!(framing_of(&fields).unwrap(), Framing::ChunkSize);
        let (old, fields) = parse(b"HTTP/1.0 200 OK\r\n\r\n").unwrap().unwrap();
        assert!(!old.keep_alive);
        assert_eq!(framing_of(&fields).unwrap(), Framing::UntilClose);
        let (_, fields) =
            parse(b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\nContent-Length: 1\r\n\r\n")
                .unwrap()
                .unwrap();
        assert_eq!(
            framing_of(&fields).unwrap_err().to_string(),
            "bad response: two content-length headers"
        );
    }

    #[test]
    fn bad_heads_and_lengths_are_refused_in_words() {
        let e = parse(b"HTTQ/1.1 200 OK\r\n\r\n").err().unwrap();
        assert!(
            e.to_string().starts_with("bad response: response head"),
            "{e}"
        );
        let (_, fields) = parse(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n")
            .unwrap()
            .unwrap();
        assert_eq!(
            framing_of(&fields).unwrap_err().to_string(),
            "bad response: content-length \"x\""
        );
    }

    #[test]
    fn chunk_sizes_are_hex_with_extensions() {
        assert_eq!(chunk_size(b"1f\r").unwrap(), 31);
        assert_eq!(chunk_size(b"0;name=v").unwrap(), 0);
        assert!(chunk_size(b"").is_err());
        assert!(chunk_size(b"zz").is_err());
        assert!(chunk_size(b"ffffffffffffffffff").is_err());
    }
}
