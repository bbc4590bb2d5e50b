//! What a label of a run may be, one rule for every way one is given (`keystorm run
//! --label`, the API's `labels` when starting a run or editing one): a key of 1-64
//! letters, digits, `-`, `_` or `.`, a value of at most 256 characters that all show
//! ([`crate::text::printable`]), since labels are shown in tables, charts and file names
//! of exports.

/// Longest label key, in characters.
pub const LABEL_KEY_MAX_CHARS: usize = 64;
/// Longest label value, in characters.
pub const LABEL_VALUE_MAX_CHARS: usize = 256;
/// Label keys as a JSON Schema pattern.
pub const LABEL_KEY_PATTERN: &str = r"^[A-Za-z0-9._-]{1,64}$";

/// Why a label is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LabelError {
    #[error("label key {0:?}: 1-64 letters, digits, '-', '_' or '.'")]
    Key(String),
    #[error(
        "label {0}: the value must be at most 256 characters that all show (no control or \
         invisible formatting characters)"
    )]
    Value(String),
}

/// Refuses a label out of its rule.
pub fn check_label(key: &str, value: &str) -> Result<(), LabelError> {
    let key_ok = (1..=LABEL_KEY_MAX_CHARS).contains(&key.len())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !key_ok {
        return Err(LabelError::Key(key.to_string()));
    }
    if value.chars().count() > LABEL_VALUE_MAX_CHARS || !crate::text::printable(value) {
        return Err(LabelError::Value(key.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_plain_and_values_show() {
        assert_eq!(check_label("index", "dynamic 211 shards"), Ok(()));
        assert_eq!(check_label("a.b-c_d", ""), Ok(()));
        for key in ["", "with space", "é", &"k".repeat(65)] {
            assert_eq!(check_label(key, "v"), Err(LabelError::Key(key.to_string())));
        }
        for value in [
            "a\nb",
            "admin\u{202E}txt",
            "zero\u{200B}width",
            &"v".repeat(257),
        ] {
            assert_eq!(
                check_label("k", value),
                Err(LabelError::Value("k".to_string()))
            );
        }
    }
}
