//! Writing S3's XML response documents (no XML library needed to write them).

use std::fmt::Write;

/// Escapes text for XML element content.
pub fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"', '\'']) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// ISO 8601 with milliseconds, as S3 writes LastModified in listings.
pub fn iso8601(ms: u64) -> String {
    iso8601_buf(ms).as_str().to_string()
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` on the stack: listings write one per object.
pub struct Iso8601(pub [u8; 24]);

impl Iso8601 {
    pub fn as_str(&self) -> &str {
        // Only ASCII digits and separators are ever written.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// Formats milliseconds since the Unix epoch (years up to 9999) without a calendar
/// library: days to a civil date by H. Hinnant's `civil_from_days`.
pub fn iso8601_buf(ms: u64) -> Iso8601 {
    let ms = ms.min(253_402_300_799_999); // 9999-12-31T23:59:59.999Z
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let sod = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut b = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut v: u64| {
        for i in (at..at + width).rev() {
            b[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, year as u64);
    put(5, 2, month as u64);
    put(8, 2, day as u64);
    put(11, 2, sod / 3600);
    put(14, 2, sod / 60 % 60);
    put(17, 2, sod % 60);
    put(20, 3, ms % 1000);
    Iso8601(b)
}

/// `<Tag>escaped text</Tag>`
pub fn element(out: &mut String, tag: &str, text: &str) {
    let _ = write!(out, "<{tag}>{}</{tag}>", escape(text));
}

pub const HEADER: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
pub const NS: &str = "http://s3.amazonaws.com/doc/2006-03-01/";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(escape("a&b<c>"), "a&amp;b&lt;c&gt;");
        assert_eq!(escape("plain"), "plain");
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn dates_match_a_calendar_library() {
        let mut ms: u64 = 1;
        // Leap days, century boundaries, every millisecond digit and the far future.
        for step in [
            86_399_999_u64,
            951_782_400_000,
            4_102_444_800_123,
            7_777_777,
            31_556_952_001,
        ] {
            for _ in 0..400 {
                ms = ms.wrapping_add(step) % 253_402_300_799_999;
                let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
                assert_eq!(
                    iso8601(ms),
                    humantime::format_rfc3339_millis(t).to_string(),
                    "{ms}"
                );
            }
        }
        for day in [951_782_400_000_u64, 951_868_800_000, 4_107_542_400_000] {
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(day);
            assert_eq!(
                iso8601(day),
                humantime::format_rfc3339_millis(t).to_string()
            );
        }
    }
}
