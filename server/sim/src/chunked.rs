//! `aws-chunked` request bodies (what SDKs send with streaming signatures or trailing
//! checksums): `<hex size>[;chunk-signature=...]\r\n<data>\r\n` ... `0\r\n<trailers>\r\n`.

/// Decodes an aws-chunked body into its payload.
pub fn decode(body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    loop {
        let line_end = find_crlf(rest).ok_or("aws-chunked body: missing chunk header")?;
        let header = std::str::from_utf8(&rest[..line_end])
            .map_err(|_| "aws-chunked body: bad chunk header")?;
        let size_text = header.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("aws-chunked body: bad chunk size {size_text:?}"))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if rest.len() < size + 2 {
            return Err("aws-chunked body: truncated chunk".to_string());
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size..];
        if !rest.starts_with(b"\r\n") {
            return Err("aws-chunked body: chunk not followed by CRLF".to_string());
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
