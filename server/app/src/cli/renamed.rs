//! Flags renamed so that the command line says what the workload says: `--listers`,
//! `--head-workers`, `--in-flight` and `--parts-in-flight` rather than the several
//! meanings `--concurrency` had. The old names still work for one release: they are
//! read as the new ones, with a warning naming the new one.

use std::ffi::OsString;

/// (command, old flag, new flag).
const RENAMED: [(&str, &str, &str); 8] = [
    ("list", "--concurrency", "--listers"),
    ("list", "--head-concurrency", "--head-workers"),
    ("diff", "--concurrency", "--listers"),
    ("download", "--concurrency", "--in-flight"),
    ("download", "--part-concurrency", "--parts-in-flight"),
    ("download", "--list-concurrency", "--listers"),
    ("upload", "--concurrency", "--in-flight"),
    ("upload", "--part-concurrency", "--parts-in-flight"),
];

/// The command line with old flag names replaced by the new ones (`--old V` and
/// `--old=V` alike, up to a `--` that ends the options), and a warning for each.
pub fn renamed_flags(words: Vec<OsString>) -> (Vec<OsString>, Vec<String>) {
    // The command is the first word after the program that is not an option.
    let command = words
        .iter()
        .skip(1)
        .filter_map(|w| w.to_str())
        .find(|w| !w.starts_with('-'))
        .map(str::to_string);
    let Some(command) = command else {
        return (words, Vec::new());
    };
    let mut warnings = Vec::new();
    let mut out = Vec::with_capacity(words.len());
    let mut options_ended = false;
    for word in words {
        let text = word.to_str().unwrap_or_default();
        options_ended |= text == "--";
        let renamed = RENAMED
            .iter()
            .filter(|(c, _, _)| *c == command && !options_ended)
            .find_map(|(_, old, new)| {
                let rest = text.strip_prefix(old)?;
                (rest.is_empty() || rest.starts_with('=')).then_some((*old, *new, rest))
            });
        match renamed {
            Some((old, new, rest)) => {
                warnings.push(format!(
                    "`keystorm {command} {old}` is now `{new}`; the old name works until the next release"
                ));
                out.push(OsString::from(format!("{new}{rest}")));
            }
            None => out.push(word),
        }
    }
    (out, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn each_old_flag_becomes_its_new_one_with_a_warning() {
        for (command, old, new) in RENAMED {
            for (given, expected) in [
                (
                    format!("keystorm -v {command} {old} 8 b"),
                    format!("keystorm -v {command} {new} 8 b"),
                ),
                (
                    format!("keystorm {command} b {old}=8"),
                    format!("keystorm {command} b {new}=8"),
                ),
            ] {
                let (out, warnings) = renamed_flags(words(&given));
                assert_eq!(out, words(&expected), "{given}");
                assert_eq!(warnings.len(), 1, "{given}");
                assert!(
                    warnings[0].contains(old) && warnings[0].contains(new),
                    "{warnings:?}"
                );
            }
        }
    }

    #[test]
    fn other_commands_flags_and_words_after_a_double_dash_are_left_alone() {
        for line in [
            "keystorm run w.yaml --concurrency 8",
            "keystorm list b --concurrency-x 8",
            "keystorm list b -- --concurrency",
            "keystorm",
        ] {
            let (out, warnings) = renamed_flags(words(line));
            assert_eq!(out, words(line), "{line}");
            assert!(warnings.is_empty(), "{line}: {warnings:?}");
        }
    }
}
