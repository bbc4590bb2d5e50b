//! Is the local file the object? Same size, and the same ETag computed locally: the MD5
//! of the bytes for a single PUT, or for a multipart object (`"…-N"`) the MD5 of the N
//! parts' MD5s, trying the part sizes that give N parts (keystorm's own first, then the
//! sizes common tools use). Reading the file is the price of knowing for sure.

use std::io::Read;
use std::path::Path;

use md5::{Digest, Md5};

/// Part sizes other tools commonly upload with, tried after keystorm's own.
const COMMON_PART_SIZES: [u64; 8] = [
    5 << 20,
    8 << 20,
    15 << 20,
    16 << 20,
    32 << 20,
    64 << 20,
    100 << 20,
    128 << 20,
];

/// `(N, hex)` of a multipart ETag `"hex-N"`, or `(0, hex)` for a plain one.
fn parse(etag: &str) -> Option<(u64, String)> {
    let e = etag.trim().trim_matches('"');
    match e.split_once('-') {
        Some((hex, n)) => Some((n.parse().ok()?, hex.to_ascii_lowercase())),
        None if !e.is_empty() => Some((0, e.to_ascii_lowercase())),
        None => None,
    }
}

/// The ETag S3 gives `path` uploaded in one PUT (`part_size: None`) or in parts.
pub fn file_etag(path: &Path, part_size: Option<u64>) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let Some(part_size) = part_size else {
        let mut h = Md5::new();
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                return Ok(format!("\"{}\"", hex::encode(h.finalize())));
            }
            h.update(&buf[..n]);
        }
    };
    let mut parts = Md5::new();
    let mut count = 0u64;
    let mut part = Md5::new();
    let mut in_part = 0u64;
    loop {
        let want = buf.len().min((part_size - in_part) as usize);
        let n = file.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        part.update(&buf[..n]);
        in_part += n as u64;
        if in_part == part_size {
            parts.update(std::mem::take(&mut part).finalize());
            count += 1;
            in_part = 0;
        }
    }
    if in_part > 0 || count == 0 {
        parts.update(part.finalize());
        count += 1;
    }
    Ok(format!("\"{}-{count}\"", hex::encode(parts.finalize())))
}

/// Whether `path` holds exactly the object of `size` and `etag`; `own_part_size` is
/// the part size keystorm uploads with.
pub fn matches(path: &Path, size: u64, etag: &str, own_part_size: u64) -> std::io::Result<bool> {
    let meta = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => m,
        Ok(_) => return Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    if meta.len() != size {
        return Ok(false);
    }
    let Some((n, _)) = parse(etag) else {
        return Ok(false);
    };
    let want = |local: String| parse(&local) == parse(etag);
    if n == 0 {
        return Ok(want(file_etag(path, None)?));
    }
    let mut tried = Vec::new();
    for ps in std::iter::once(own_part_size).chain(COMMON_PART_SIZES) {
        if ps == 0 || size.div_ceil(ps).max(1) != n || tried.contains(&ps) {
            continue;
        }
        tried.push(ps);
        if want(file_etag(path, Some(ps))?) {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_and_multipart_etags_match_what_s3_computes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..(11u32 << 20) + 5).map(|i| (i % 253) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        let whole = format!("\"{}\"", hex::encode(Md5::digest(&data)));
        assert_eq!(file_etag(&p, None).unwrap(), whole);
        let mut parts = Md5::new();
        for chunk in data.chunks(5 << 20) {
            parts.update(Md5::digest(chunk));
        }
        let multi = format!("\"{}-3\"", hex::encode(parts.finalize()));
        assert_eq!(file_etag(&p, Some(5 << 20)).unwrap(), multi);

        let size = data.len() as u64;
        assert!(matches(&p, size, &whole, 16 << 20).unwrap());
        // Found through the common 5 MiB part size, though keystorm's own is 16 MiB.
        assert!(matches(&p, size, &multi, 16 << 20).unwrap());
        assert!(!matches(&p, size - 1, &whole, 16 << 20).unwrap());
        assert!(!matches(&p, size, "\"00ff\"", 16 << 20).unwrap());
        assert!(!matches(&dir.path().join("missing"), size, &whole, 16 << 20).unwrap());
    }
}
