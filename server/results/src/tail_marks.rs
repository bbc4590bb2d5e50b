//! The latencies a phase's tail is counted from (`tail_marks: [500ms, 1s, 10s]` in a
//! workload, `keystorm show --tail-marks 100ms,1s`): one checked list, so the workload,
//! the command line and every reader of a run agree on what a mark may be. The
//! default stays 1 s and 10 s: a reshard's held writes wait seconds, not milliseconds.

use std::fmt;
use std::str::FromStr;

/// At most this many marks: a column each in tables and CSV.
pub const MAX_TAIL_MARKS: usize = 4;
/// The shortest mark: below a millisecond, most operations of a fast store are "slow".
pub const MIN_TAIL_MARK_US: u64 = 1_000;
/// The longest mark: the longest latency a histogram holds (one hour), beyond which
/// every count is zero.
pub const MAX_TAIL_MARK_US: u64 = 3_600_000_000;
/// The marks when nothing says otherwise: 1 s and 10 s.
pub const DEFAULT_TAIL_MARKS_US: [u64; 2] = [1_000_000, 10_000_000];

/// 1 to [`MAX_TAIL_MARKS`] latencies in microseconds, ascending, each from 1 ms to the
/// longest latency a histogram holds (1 h). Fixed capacity, so it copies freely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailMarks {
    us: [u64; MAX_TAIL_MARKS],
    len: u8,
}

/// Why a list of marks is refused; `index` (from 0) is the mark at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TailMarksError {
    #[error("give 1 to {MAX_TAIL_MARKS} tail marks, not {0}")]
    Count(usize),
    #[error("tail mark {shown} is under 1ms: count from 1ms up", shown = mark_words(*us))]
    TooShort { index: usize, us: u64 },
    #[error("tail mark {shown} is over 1h, the longest latency recorded", shown = mark_words(*us))]
    TooLong { index: usize, us: u64 },
    #[error(
        "tail marks go up: {shown} does not follow {before}",
        shown = mark_words(*us),
        before = mark_words(*before_us)
    )]
    NotAscending {
        index: usize,
        us: u64,
        before_us: u64,
    },
    #[error("{text:?} is not a duration ({reason}); write marks as `500ms`, `1s`, `10s`")]
    NotADuration {
        index: usize,
        text: String,
        reason: String,
    },
}

impl TailMarksError {
    /// The mark at fault, or none when the list's length is.
    pub fn index(&self) -> Option<usize> {
        match self {
            TailMarksError::Count(_) => None,
            TailMarksError::TooShort { index, .. }
            | TailMarksError::TooLong { index, .. }
            | TailMarksError::NotAscending { index, .. }
            | TailMarksError::NotADuration { index, .. } => Some(*index),
        }
    }
}

impl TailMarks {
    /// The marks `marks_us` (microseconds), checked.
    pub fn new(marks_us: &[u64]) -> Result<TailMarks, TailMarksError> {
        if marks_us.is_empty() || marks_us.len() > MAX_TAIL_MARKS {
            return Err(TailMarksError::Count(marks_us.len()));
        }
        let mut marks = TailMarks {
            us: [0; MAX_TAIL_MARKS],
            len: 0,
        };
        for (index, &us) in marks_us.iter().enumerate() {
            if us < MIN_TAIL_MARK_US {
                return Err(TailMarksError::TooShort { index, us });
            }
            if us > MAX_TAIL_MARK_US {
                return Err(TailMarksError::TooLong { index, us });
            }
            if let Some(&before_us) = marks.as_us().last()
                && us <= before_us
            {
                return Err(TailMarksError::NotAscending {
                    index,
                    us,
                    before_us,
                });
            }
            marks.us[index] = us;
            marks.len += 1;
        }
        Ok(marks)
    }

    /// The marks in microseconds, ascending.
    pub fn as_us(&self) -> &[u64] {
        &self.us[..usize::from(self.len)]
    }
}

impl Default for TailMarks {
    fn default() -> Self {
        TailMarks::new(&DEFAULT_TAIL_MARKS_US).expect("the default marks are valid")
    }
}

/// A mark as written: `500ms`, `1s`, `1.5s`.
fn parse_mark(index: usize, text: &str) -> Result<u64, TailMarksError> {
    humantime::parse_duration(text.trim())
        .map(|d| d.as_micros().min(u128::from(u64::MAX)) as u64)
        .map_err(|e| TailMarksError::NotADuration {
            index,
            text: text.trim().to_string(),
            reason: e.to_string(),
        })
}

/// `100ms,1s,10s`.
impl FromStr for TailMarks {
    type Err = TailMarksError;

    fn from_str(s: &str) -> Result<TailMarks, TailMarksError> {
        let marks = s
            .split(',')
            .enumerate()
            .map(|(index, text)| parse_mark(index, text))
            .collect::<Result<Vec<u64>, _>>()?;
        TailMarks::new(&marks)
    }
}

/// As a workload writes them: `500ms,1s,10s`.
impl fmt::Display for TailMarks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let written: Vec<String> = self.as_us().iter().map(|&us| mark_name(us)).collect();
        f.write_str(&written.join(","))
    }
}

/// In `plan.json` as written in a workload: `["500ms", "1s"]`.
impl serde::Serialize for TailMarks {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_us().iter().map(|&us| mark_name(us)))
    }
}

/// A mark in a name (a CSV column `over_1s`, a workload's `500ms`): whole seconds in
/// `s`, whole milliseconds in `ms`, else `us`, so the name is the mark exactly.
pub fn mark_name(us: u64) -> String {
    if us.is_multiple_of(1_000_000) {
        format!("{}s", us / 1_000_000)
    } else if us.is_multiple_of(1_000) {
        format!("{}ms", us / 1_000)
    } else {
        format!("{us}us")
    }
}

/// A mark in a sentence: `1 s`, `1.5 s`, `500 ms`, `2.25 ms`; exact, trailing zeros
/// dropped.
pub fn mark_words(us: u64) -> String {
    let (unit_us, unit) = if us >= 1_000_000 {
        (1_000_000, "s")
    } else if us >= 1_000 {
        (1_000, "ms")
    } else {
        (1, "µs")
    };
    let whole = us / unit_us;
    let fraction = us % unit_us;
    if fraction == 0 {
        return format!("{whole} {unit}");
    }
    let digits = unit_us.ilog10() as usize;
    let decimals = format!("{fraction:0digits$}");
    format!("{whole}.{} {unit}", decimals.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_one_to_four_ascending_from_1_ms_to_1_h() {
        assert_eq!(TailMarks::default().as_us(), [1_000_000, 10_000_000]);
        let m: TailMarks = "500ms, 1s,10s".parse().unwrap();
        assert_eq!(m.as_us(), [500_000, 1_000_000, 10_000_000]);
        assert_eq!(m.to_string(), "500ms,1s,10s");
        assert_eq!(
            TailMarks::new(&[]).unwrap_err(),
            TailMarksError::Count(0),
            "none"
        );
        assert_eq!(
            "1ms,2ms,3ms,4ms,5ms".parse::<TailMarks>().unwrap_err(),
            TailMarksError::Count(5)
        );
        let short = "1s,999us".parse::<TailMarks>().unwrap_err();
        assert_eq!(short.index(), Some(1));
        assert_eq!(
            short.to_string(),
            "tail mark 999 µs is under 1ms: count from 1ms up"
        );
        assert!(TailMarks::new(&[1_000]).is_ok(), "1 ms exactly");
        assert!(TailMarks::new(&[MAX_TAIL_MARK_US]).is_ok(), "1 h exactly");
        assert!(matches!(
            TailMarks::new(&[MAX_TAIL_MARK_US + 1]),
            Err(TailMarksError::TooLong { index: 0, .. })
        ));
        let down = "10s,1s".parse::<TailMarks>().unwrap_err();
        assert_eq!(
            down.to_string(),
            "tail marks go up: 1 s does not follow 10 s"
        );
        assert_eq!(down.index(), Some(1));
        assert!(matches!(
            "1s,1s".parse::<TailMarks>(),
            Err(TailMarksError::NotAscending { index: 1, .. })
        ));
        let word = "1s,soon".parse::<TailMarks>().unwrap_err();
        assert_eq!(word.index(), Some(1));
        assert!(
            word.to_string().starts_with("\"soon\" is not a duration"),
            "{word}"
        );
    }

    #[test]
    fn marks_are_named_and_said_exactly() {
        assert_eq!(mark_name(1_000_000), "1s");
        assert_eq!(mark_name(500_000), "500ms");
        assert_eq!(mark_name(1_500_000), "1500ms");
        assert_eq!(mark_name(1_500), "1500us");
        assert_eq!(mark_words(1_000_000), "1 s");
        assert_eq!(mark_words(10_000_000), "10 s");
        assert_eq!(mark_words(1_500_000), "1.5 s");
        assert_eq!(mark_words(500_000), "500 ms");
        assert_eq!(mark_words(2_250), "2.25 ms");
        assert_eq!(mark_words(999), "999 µs");
    }
}
