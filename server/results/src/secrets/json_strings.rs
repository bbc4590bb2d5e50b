//! Where the string values of a JSON text are, so a secret is replaced inside them
//! only: never in a number, a key or the punctuation, and never across an escape
//! sequence, so that what is written stays the JSON it was.

/// The byte ranges of the contents of `json`'s string values (keys left out), in order.
pub(super) fn value_strings(json: &str) -> Vec<(usize, usize)> {
    let bytes = json.as_bytes();
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut j = start;
        while j < bytes.len() && bytes[j] != b'"' {
            j += if bytes[j] == b'\\' { 2 } else { 1 };
        }
        let end = j.min(bytes.len());
        let mut k = end + 1;
        while k < bytes.len() && bytes[k].is_ascii_whitespace() {
            k += 1;
        }
        if bytes.get(k) != Some(&b':') {
            ranges.push((start, end));
        }
        i = end + 1;
    }
    ranges
}

/// Whether `start..end` lies inside one of `ranges` (sorted) without cutting an escape
/// sequence (`\"`, `\\`, `\n`, `\u00e9`) at either end.
pub(super) fn inside(json: &str, ranges: &[(usize, usize)], start: usize, end: usize) -> bool {
    let at = ranges.partition_point(|&(s, _)| s <= start);
    let Some(&(s, e)) = at.checked_sub(1).and_then(|i| ranges.get(i)) else {
        return false;
    };
    s <= start && end <= e && on_boundary(json, s, start) && on_boundary(json, s, end)
}

/// Whether `at` (inside the string starting at `from`) is between two characters of
/// the string's text, not inside an escape sequence.
fn on_boundary(json: &str, from: usize, at: usize) -> bool {
    let bytes = json.as_bytes();
    let mut i = from;
    while i < at {
        i += match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'u') => 6,
            b'\\' => 2,
            _ => 1,
        };
    }
    i == at
}
