//! Flags renamed so that the command line says what the workload says: `--listers`,
//! `--head-workers`, `--in-flight` and `--parts-in-flight` rather than the several
//! meanings `--concurrency` had. While old names are taken
//! (`keystorm_types::old_names`), they are read as the new ones, with a warning naming
//! the new one; after that clap refuses them as unknown.

use std::ffi::OsString;

use keystorm_types::old_names::{Place, RENAMED, works_until};

/// (command, old flag, new flag) of every renamed flag still taken.
fn renamed() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    RENAMED.iter().filter_map(|r| match r.place {
        Place::Flag(command) => Some((command, r.old_if_taken()?, r.new)),
        _ => None,
    })
}

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
        let renamed = renamed()
            .filter(|(c, _, _)| *c == command && !options_ended)
            .find_map(|(_, old, new)| {
                let rest = text.strip_prefix(old)?;
                (rest.is_empty() || rest.starts_with('=')).then_some((old, new, rest))
            });
        match renamed {
            Some((old, new, rest)) => {
                warnings.push(format!(
                    "`keystorm {command} {old}` is now `{new}`; {}",
                    works_until()
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
        let flags: Vec<_> = renamed().collect();
        assert_eq!(flags.len(), 8, "{flags:?}");
        for (command, old, new) in flags {
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
