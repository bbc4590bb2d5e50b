//! The `x-amz-date` stamp (`20261129T231552Z`) and its date (`20261129`), written
//! from the clock without a calendar library: SigV4 needs only UTC seconds.

use std::time::{SystemTime, UNIX_EPOCH};

/// A UTC time to the second, as SigV4 writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmzDate {
    /// `YYYYMMDDTHHMMSSZ` in ASCII.
    stamp: [u8; 16],
}

impl AmzDate {
    pub fn new(time: SystemTime) -> AmzDate {
        // Times before 1970 do not occur on a signing client; they sign as 1970.
        let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let (year, month, day) = civil_from_days((secs / 86_400) as i64);
        let of_day = secs % 86_400;
        let mut stamp = *b"00000000T000000Z";
        put_digits(&mut stamp[0..4], year as u64);
        put_digits(&mut stamp[4..6], month as u64);
        put_digits(&mut stamp[6..8], day as u64);
        put_digits(&mut stamp[9..11], of_day / 3600);
        put_digits(&mut stamp[11..13], of_day / 60 % 60);
        put_digits(&mut stamp[13..15], of_day % 60);
        AmzDate { stamp }
    }

    /// `YYYYMMDDTHHMMSSZ`.
    pub fn stamp(&self) -> &str {
        // Only ASCII digits, `T` and `Z` are ever written.
        std::str::from_utf8(&self.stamp).unwrap_or_default()
    }

    /// `YYYYMMDD`, the credential scope's date.
    pub fn date(&self) -> &str {
        &self.stamp()[..8]
    }
}

/// Writes `value` as decimal digits filling `out` (zero-padded, high digits dropped).
fn put_digits(out: &mut [u8], mut value: u64) {
    for byte in out.iter_mut().rev() {
        *byte = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

/// Year, month (1–12) and day (1–31) of the proleptic Gregorian calendar for a count
/// of days since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64) -> AmzDate {
        AmzDate::new(UNIX_EPOCH + Duration::from_secs(secs))
    }

    #[test]
    fn stamps_known_instants() {
        assert_eq!(at(0).stamp(), "19700101T000000Z");
        assert_eq!(at(951_782_400).stamp(), "20000229T000000Z");
        assert_eq!(at(1_440_938_160).stamp(), "20150830T123600Z");
        assert_eq!(at(1_798_761_599).stamp(), "20261231T235959Z");
        assert_eq!(at(4_107_542_400).stamp(), "21000301T000000Z");
        assert_eq!(at(1_440_938_160).date(), "20150830");
    }

    #[test]
    fn every_day_of_four_centuries_follows_the_last() {
        // Day by day from 1970 to 2370: the date only ever moves to the next day.
        let mut last = (1969, 12, 31);
        for days in 0..146_097 {
            let now = civil_from_days(days);
            let next_day = (last.0, last.1, last.2 + 1);
            let next_month = (last.0, last.1 + 1, 1);
            let next_year = (last.0 + 1, 1, 1);
            assert!(
                now == next_day || now == next_month || now == next_year,
                "{last:?} then {now:?}"
            );
            last = now;
        }
        assert_eq!(last, (2369, 12, 31));
    }
}
