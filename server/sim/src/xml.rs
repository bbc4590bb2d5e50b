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
    Dates::default().format(ms).as_str().to_string()
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` on the stack: listings write one per object.
pub struct Iso8601(pub [u8; 24]);

impl Iso8601 {
    pub fn as_str(&self) -> &str {
        // Only ASCII digits and separators are ever written.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// Formats the dates of one listing: the calendar date is worked out once per day met
/// (the objects of a page were mostly written on the same day), the time of day for
/// each date.
#[derive(Default)]
pub struct Dates {
    /// The last day formatted and its `YYYY-MM-DD`.
    day: Option<(u64, [u8; 10])>,
}

impl Dates {
    /// Milliseconds since the Unix epoch (years up to 9999).
    pub fn format(&mut self, ms: u64) -> Iso8601 {
        let ms = ms.min(253_402_300_799_999); // 9999-12-31T23:59:59.999Z
        let secs = ms / 1000;
        let days = secs / 86_400;
        let date = match self.day {
            Some((day, date)) if day == days => date,
            _ => {
                let date = civil_date(days);
                self.day = Some((days, date));
                date
            }
        };
        let mut b = *b"0000-00-00T00:00:00.000Z";
        b[..10].copy_from_slice(&date);
        let sod = secs % 86_400;
        put_digits(&mut b[11..13], sod / 3600);
        put_digits(&mut b[14..16], sod / 60 % 60);
        put_digits(&mut b[17..19], sod % 60);
        put_digits(&mut b[20..23], ms % 1000);
        Iso8601(b)
    }
}

/// `YYYY-MM-DD` of a day since the epoch, without a calendar library: H. Hinnant's
/// `civil_from_days`.
fn civil_date(days: u64) -> [u8; 10] {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut b = *b"0000-00-00";
    put_digits(&mut b[0..4], year as u64);
    put_digits(&mut b[5..7], month as u64);
    put_digits(&mut b[8..10], day as u64);
    b
}

/// `v` in decimal, zero-padded to the width of `out`.
fn put_digits(out: &mut [u8], mut v: u64) {
    for d in out.iter_mut().rev() {
        *d = b'0' + (v % 10) as u8;
        v /= 10;
    }
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
        // One formatter for all, as a listing uses it: days met again, days changed.
        let mut shared = Dates::default();
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
                for ms in [ms, ms / 86_400_000 * 86_400_000 + ms % 997] {
                    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
                    let expected = humantime::format_rfc3339_millis(t).to_string();
                    assert_eq!(iso8601(ms), expected, "{ms}");
                    assert_eq!(shared.format(ms).as_str(), expected, "{ms}");
                }
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
