//! The forms a secret value takes in text: as it is, trimmed, line by line when it has
//! several, and as JSON, YAML single quotes and URLs escape it.

/// Secrets shorter than this (in characters) are replaced only where they stand as a
/// word of their own (no letter or digit right before or after them): a two-letter key
/// replaced inside every word would leave no text readable, and inside a word it is
/// not recognisable as the key. Longer ones are replaced wherever they appear.
pub const WHOLE_WORD_BELOW: usize = 8;

/// Every form of `secret` worth looking for, none empty.
pub(super) fn forms_of(secret: &str) -> Vec<String> {
    let trimmed = secret.trim();
    if trimmed.is_empty() {
        return Vec::new();
    }
    let mut bases = vec![trimmed.to_string()];
    if trimmed.contains(['\n', '\r']) {
        bases.extend(
            trimmed
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        );
    }
    let mut forms = Vec::with_capacity(bases.len() * 2);
    for base in bases {
        let json = json_escaped(&base);
        let quoted = base.replace('\'', "''");
        let url = percent_encoded(&base);
        forms.push(base);
        forms.extend([json, quoted, url]);
    }
    forms.sort();
    forms.dedup();
    forms
}

/// `text` as it appears inside a JSON string (and, for what keystorm writes, inside a
/// Rust `{:?}`: quotes, backslashes and control characters escaped).
fn json_escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(text)
        .to_string()
}

/// `text` percent-encoded as in a URL's query (a session token in a presigned URL).
fn percent_encoded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Whether a match of a short secret at `start..end` of `text` stands alone.
pub(super) fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}
