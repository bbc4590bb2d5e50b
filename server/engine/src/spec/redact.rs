//! Keeps inline secret keys out of everything keystorm shows or stores: the workload
//! copy in a run's results, the API's workload text, logs.
//!
//! The secret is located by the YAML parser (so an `env: { secret_key: VAR }` variable
//! name is left alone); text that does not parse as YAML is redacted line by line.

use serde::Deserialize;
use serde_saphyr::Spanned;

/// What replaces a secret.
pub const REDACTED: &str = "<redacted>";

#[derive(Deserialize)]
struct Doc {
    target: Option<Target>,
}

#[derive(Deserialize)]
struct Target {
    credentials: Option<Credentials>,
}

#[derive(Deserialize)]
struct Credentials {
    secret_key: Option<Spanned<String>>,
}

/// `text` with the value of an inline `target.credentials.secret_key` replaced by
/// [`REDACTED`]; everything else byte for byte as it was.
pub fn redact_secrets(text: &str) -> String {
    if !text.contains("secret_key") {
        return text.to_string();
    }
    match serde_saphyr::from_str::<Doc>(text) {
        Ok(doc) => match doc
            .target
            .and_then(|t| t.credentials)
            .and_then(|c| c.secret_key)
        {
            Some(secret) => redact_at(
                text,
                secret.referenced.line() as usize,
                secret.referenced.column() as usize,
                &secret.value,
            ),
            None => text.to_string(),
        },
        Err(_) => redact_every_secret_key_line(text),
    }
}

/// Replaces the scalar starting at 1-based `line`:`column` (quoted or plain).
fn redact_at(text: &str, line: usize, column: usize, value: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (n, l) in text.split_inclusive('\n').enumerate() {
        if n + 1 != line {
            out.push_str(l);
            continue;
        }
        let start = l
            .char_indices()
            .nth(column.saturating_sub(1))
            .map(|(i, _)| i)
            .unwrap_or(l.len());
        let (head, rest) = l.split_at(start);
        out.push_str(head);
        out.push_str(&replace_scalar(rest, value));
    }
    out
}

/// `rest` begins with a scalar; replace it and keep what follows.
fn replace_scalar(rest: &str, value: &str) -> String {
    let first = rest.chars().next();
    let end = match first {
        Some(q @ ('"' | '\'')) => {
            let mut escaped = false;
            rest.char_indices()
                .skip(1)
                .find(|&(_, c)| {
                    let close = c == q && !escaped;
                    escaped = q == '"' && c == '\\' && !escaped;
                    close
                })
                .map(|(i, _)| i + 1)
        }
        _ if !value.is_empty() && rest.starts_with(value) => Some(value.len()),
        _ => None,
    };
    match end {
        Some(end) => match first {
            Some(q @ ('"' | '\'')) => format!("{q}{REDACTED}{q}{}", &rest[end..]),
            _ => format!("{REDACTED}{}", &rest[end..]),
        },
        // A multi-line or unusual scalar: drop the rest of the line.
        None => format!("{REDACTED}{}", if rest.ends_with('\n') { "\n" } else { "" }),
    }
}

/// Fallback for text that is not valid YAML: the value after every `secret_key:`.
fn redact_every_secret_key_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for l in text.split_inclusive('\n') {
        match l.find("secret_key") {
            Some(i) => {
                let after = &l[i + "secret_key".len()..];
                match after.trim_start().strip_prefix(':') {
                    Some(value) => {
                        let value = value.trim_start();
                        let cut = l.len() - value.len();
                        let token_end = value.find([',', '}', '#', '\n']).unwrap_or(value.len());
                        out.push_str(&l[..cut]);
                        out.push_str(REDACTED);
                        out.push_str(&value[token_end..]);
                    }
                    None => out.push_str(l),
                }
            }
            None => out.push_str(l),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_style_plain_secret_is_replaced_and_nothing_else_changes() {
        let text = "name: x\ntarget:\n  credentials:\n    access_key: AKID\n    secret_key: s3cr3t/abc # inline\nbuckets: { names: [b1] }\n";
        let out = redact_secrets(text);
        assert_eq!(out, text.replace("s3cr3t/abc", REDACTED));
    }

    #[test]
    fn flow_and_quoted_secrets_are_replaced() {
        let text =
            "target: { credentials: { access_key: AKID, secret_key: \"q\\\"uote\" } }\nname: y\n";
        let out = redact_secrets(text);
        assert_eq!(
            out,
            "target: { credentials: { access_key: AKID, secret_key: \"<redacted>\" } }\nname: y\n"
        );
        let text = "target: { credentials: { access_key: AKID, secret_key: 'it''s' } }\n";
        assert!(!redact_secrets(text).contains("it''s"));
        let text = "target: { credentials: { access_key: AKID, secret_key: plain } }\n";
        assert_eq!(
            redact_secrets(text),
            "target: { credentials: { access_key: AKID, secret_key: <redacted> } }\n"
        );
    }

    #[test]
    fn env_variable_names_are_not_secrets() {
        let text = "target:\n  credentials:\n    env: { access_key: K, secret_key: LAB_SECRET }\n";
        assert_eq!(redact_secrets(text), text);
    }

    #[test]
    fn broken_yaml_is_still_redacted() {
        let text = "target:\n  credentials:\n    secret_key: hunter2, oops: [\n";
        let out = redact_secrets(text);
        assert!(!out.contains("hunter2"), "{out}");
    }
}
