//! The error of validation (a message at a line and column) and the checks of single
//! values that every section of the workload shares.

use std::time::Duration;

use serde_saphyr::{Location, Spanned};

use crate::spec::raw::RawDuration;

/// A validation error at a position.
#[derive(Debug)]
pub struct Located {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

pub(in crate::spec) type R<T> = Result<T, Located>;

pub(in crate::spec) fn at<T>(loc: &Location, message: impl Into<String>) -> R<T> {
    Err(Located {
        line: loc.line() as usize,
        column: loc.column() as usize,
        message: message.into(),
    })
}

pub(in crate::spec) fn loc_of<T>(s: &Spanned<T>) -> &Location {
    &s.referenced
}

/// A name as written, trimmed: not empty, and every character shows (no control or
/// invisible formatting character), since names are shown in tables, charts and
/// terminals. `what` is how the message calls it (`` `name` ``, `` phase `name` ``).
pub(in crate::spec) fn shown_name(n: &Spanned<String>, what: &str) -> R<String> {
    let name = n.value.trim();
    if name.is_empty() {
        return at(loc_of(n), format!("{what} must not be empty"));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| keystorm_types::text::is_invisible(c))
    {
        return at(
            loc_of(n),
            format!(
                "{what} holds an invisible or control character (U+{:04X}): names are shown \
                 in tables, charts and terminals, so every character must show",
                u32::from(c)
            ),
        );
    }
    Ok(name.to_string())
}

pub(in crate::spec) fn positive(v: &Spanned<i64>, what: &str) -> R<u64> {
    if v.value <= 0 {
        return at(
            loc_of(v),
            format!("`{what}` must be a positive number, not {}", v.value),
        );
    }
    Ok(v.value as u64)
}

pub(in crate::spec) fn non_negative(v: &Spanned<i64>, what: &str) -> R<u64> {
    if v.value < 0 {
        return at(
            loc_of(v),
            format!("`{what}` must not be negative ({})", v.value),
        );
    }
    Ok(v.value as u64)
}

pub(in crate::spec) fn in_range(v: &Spanned<i64>, what: &str, lo: i64, hi: i64) -> R<i64> {
    if v.value < lo || v.value > hi {
        return at(
            loc_of(v),
            format!("`{what}` must be between {lo} and {hi}, not {}", v.value),
        );
    }
    Ok(v.value)
}

pub(in crate::spec) fn duration(v: &Spanned<RawDuration>, what: &str) -> R<Duration> {
    match &v.value {
        RawDuration::Number(n) => at(
            loc_of(v),
            format!("`{what}: {n}` needs a unit, e.g. `{n}s`, `2m`, `1h30m`"),
        ),
        RawDuration::Text(t) => humantime::parse_duration(t.trim()).map_err(|e| Located {
            line: v.referenced.line() as usize,
            column: v.referenced.column() as usize,
            message: format!(
                "`{what}: {t}` is not a duration ({e}); write e.g. `30s`, `5m`, `1h30m`"
            ),
        }),
    }
}
