//! `aws-chunked` request bodies (what SDKs send with streaming signatures or trailing
//! checksums): `<hex size>[;chunk-signature=...]\r\n<data>\r\n` ... `0\r\n<trailers>\r\n`.

/// Why a body is not valid aws-chunked encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChunkedError {
    #[error("aws-chunked body: missing chunk header")]
    MissingHeader,
    #[error("aws-chunked body: bad chunk header")]
    BadHeader,
    #[error("aws-chunked body: bad chunk size {0:?}")]
    BadSize(String),
    #[error("aws-chunked body: truncated chunk")]
    Truncated,
    #[error("aws-chunked body: chunk not followed by CRLF")]
    NoLineEnd,
}

/// Decodes an aws-chunked body into its payload.
pub fn decode(body: &[u8]) -> Result<Vec<u8>, ChunkedError> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    loop {
        let line_end = find_crlf(rest).ok_or(ChunkedError::MissingHeader)?;
        let header = std::str::from_utf8(&rest[..line_end]).map_err(|_| ChunkedError::BadHeader)?;
        let size_text = header.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| ChunkedError::BadSize(size_text.to_string()))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if rest.len() < size + 2 {
            return Err(ChunkedError::Truncated);
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size..];
        if !rest.starts_with(b"\r\n") {
            return Err(ChunkedError::NoLineEnd);
        }
        rest = &rest[2..];
    }
}

fn find_crlf(b: &[u8]) -> Option<usize> {
    b.windows(2).position(|w| w == b"\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_signed_and_unsigned_chunks_with_trailers() {
        let body = b"5;chunk-signature=abc\r\nhello\r\n6\r\n world\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n";
        assert_eq!(decode(body).unwrap(), b"hello world");
        assert!(decode(b"zz\r\n").is_err());
        assert!(decode(b"5\r\nhel").is_err());
    }
}
