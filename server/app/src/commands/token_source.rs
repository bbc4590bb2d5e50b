//! Where a token comes from: the environment (`KEYSTORM_TOKEN`, …), a file
//! (`--token-file`, readable by its owner only, as a Kubernetes or compose secret is
//! mounted), or — discouraged — the command line, where every user of the host reads it
//! in the process list (`ps`, `/proc/PID/cmdline`). Whatever the source, the token is a
//! secret of the process from then on: nothing it prints, logs or stores shows it.

use std::path::Path;

use crate::CliError;

/// How one token is given: its flag, its environment variable and its file flag.
pub struct TokenFlags {
    pub flag: &'static str,
    pub env: &'static str,
    pub file_flag: &'static str,
}

/// The token of `--token`/`KEYSTORM_TOKEN`.
pub const TOKEN: TokenFlags = TokenFlags {
    flag: "--token",
    env: "KEYSTORM_TOKEN",
    file_flag: "--token-file",
};

/// The read-only token of `keystorm serve`.
pub const READ_TOKEN: TokenFlags = TokenFlags {
    flag: "--read-token",
    env: "KEYSTORM_READ_TOKEN",
    file_flag: "--read-token-file",
};

/// The token given by `value` (the flag or its environment variable) or `file`;
/// `None` when neither gives one. A token given on the command line draws a warning.
pub fn token(
    flags: &TokenFlags,
    value: Option<String>,
    file: Option<&Path>,
) -> Result<Option<String>, CliError> {
    let value = value.filter(|v| !v.trim().is_empty());
    let token = match (value, file) {
        (Some(_), Some(_)) => {
            return Err(CliError::bad_input(format!(
                "both {} (or {}) and {} give a token: keep one",
                flags.flag, flags.env, flags.file_flag
            )));
        }
        (Some(value), None) => {
            if on_command_line(flags.flag) {
                stderrln!(
                    "warning: {} on the command line can be read by every user of this host \
                     (ps, /proc/PID/cmdline): give it in {} or {} FILE",
                    flags.flag,
                    flags.env,
                    flags.file_flag
                );
            }
            Some(value)
        }
        (None, Some(path)) => Some(read_token_file(flags, path)?),
        (None, None) => None,
    };
    if let Some(token) = &token {
        keystorm_results::secrets::register(keystorm_results::secrets::Redactor::new([token]))
            .for_the_process();
    }
    Ok(token)
}

/// The token in the file at `path`: its first line, without surrounding blanks.
fn read_token_file(flags: &TokenFlags, path: &Path) -> Result<String, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::bad_input(format!(
            "{} {}: cannot read it ({e})",
            flags.file_flag,
            path.display()
        ))
    })?;
    let token = text.lines().next().unwrap_or_default().trim();
    if token.is_empty() {
        return Err(CliError::bad_input(format!(
            "{} {}: the file holds no token (its first line is empty)",
            flags.file_flag,
            path.display()
        )));
    }
    Ok(token.to_string())
}

/// Whether `flag` is one of the words this process was started with (`--token X` or
/// `--token=X`), rather than its environment variable.
fn on_command_line(flag: &str) -> bool {
    std::env::args_os().skip(1).any(|word| {
        let word = word.to_string_lossy();
        word == flag || word.starts_with(&format!("{flag}="))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_gives_its_first_line_and_an_empty_or_missing_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "  0123456789abcdef-file \nsecond line\n").unwrap();
        assert_eq!(
            token(&TOKEN, None, Some(&file)).unwrap().as_deref(),
            Some("0123456789abcdef-file")
        );
        std::fs::write(&file, "\n").unwrap();
        let empty = token(&TOKEN, None, Some(&file)).unwrap_err();
        assert!(
            empty.message.contains("holds no token"),
            "{}",
            empty.message
        );
        let missing = token(&TOKEN, None, Some(&dir.path().join("nope"))).unwrap_err();
        assert!(
            missing.message.contains("--token-file"),
            "{}",
            missing.message
        );
    }

    #[test]
    fn a_token_given_twice_is_refused_and_blank_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "0123456789abcdef-file\n").unwrap();
        let both = token(&READ_TOKEN, Some("x".repeat(16)), Some(&file)).unwrap_err();
        assert!(
            both.message.contains("--read-token") && both.message.contains("keep one"),
            "{}",
            both.message
        );
        assert_eq!(token(&TOKEN, Some("  ".to_string()), None).unwrap(), None);
    }
}
