//! No error of the workspace's code is a bare `String`: a `Result<_, String>` hides what
//! failed from the caller (who can only print it) and lets messages drift apart, where
//! an error type names each failure once. The one exception is clap's value parsers,
//! which clap wants to return `Result<_, String>`: a function named as a
//! `value_parser = name` (or `path::name`) somewhere in its crate may.

mod rust_text;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rust_text::{code_only, rust_files};

/// A `Result<_, String>` in a file's code.
#[derive(Debug, PartialEq)]
struct StringError {
    line: usize,
    /// The function it is the return type of, if it is one's.
    function: Option<String>,
    /// The type as written, on one line.
    written: String,
}

/// Every `Result<_, String>` in `code` (text from [`code_only`]), however its generic
/// arguments nest and however it is split over lines.
fn string_errors(code: &str) -> Vec<StringError> {
    let chars: Vec<char> = code.chars().collect();
    let word: Vec<char> = "Result".chars().collect();
    let mut found = Vec::new();
    for at in 0..chars.len() {
        if !chars[at..].starts_with(&word)
            || ident_char_at(&chars, at.wrapping_sub(1))
            || ident_char_at(&chars, at + word.len())
        {
            continue;
        }
        let open = skip_blanks(&chars, at + word.len());
        if chars.get(open) != Some(&'<') {
            continue;
        }
        let (arguments, close) = generic_arguments(&chars, open);
        let is_string = |a: &str| a == "String" || a.ends_with("::String");
        if arguments.len() == 2 && is_string(&arguments[1]) {
            let written: String = chars[at..close].iter().collect();
            found.push(StringError {
                line: chars[..at].iter().filter(|c| **c == '\n').count() + 1,
                function: returned_by(&chars, at),
                written: written.split_whitespace().collect::<Vec<_>>().join(" "),
            });
        }
    }
    found
}

/// The generic arguments of the list opening at `open` (`<`), each without blanks (a
/// trailing comma adds none), and the index just past its `>`.
fn generic_arguments(chars: &[char], open: usize) -> (Vec<String>, usize) {
    let mut arguments = vec![String::new()];
    let mut depth = 0usize;
    let mut i = open + 1;
    while i < chars.len() {
        let c = chars[i];
        let arrow = c == '>' && chars[i - 1] == '-';
        match c {
            '<' | '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            '>' if !arrow && depth == 0 => break,
            '>' if !arrow => depth -= 1,
            ',' if depth == 0 => {
                arguments.push(String::new());
                i += 1;
                continue;
            }
            _ => {}
        }
        if !c.is_whitespace() {
            arguments.last_mut().unwrap().push(c);
        }
        i += 1;
    }
    if arguments.len() > 1 && arguments.last().is_some_and(String::is_empty) {
        arguments.pop();
    }
    (arguments, (i + 1).min(chars.len()))
}

/// The name of the function whose return type starts at `at` (after its path, if
/// any): `fn name<…>(…) -> ` before it.
fn returned_by(chars: &[char], at: usize) -> Option<String> {
    let mut i = at;
    // Over a path such as `std::result::`.
    while i >= 2 && chars[i - 1] == ':' && chars[i - 2] == ':' {
        i = ident_start(chars, i - 2);
    }
    i = blanks_before(chars, i);
    if i < 2 || chars[i - 2..i] != ['-', '>'] {
        return None;
    }
    i = blanks_before(chars, i - 2);
    if i == 0 || chars[i - 1] != ')' {
        return None;
    }
    i = blanks_before(chars, opening_before(chars, i - 1, '(', ')')?);
    if i > 0 && chars[i - 1] == '>' {
        i = blanks_before(chars, opening_before(chars, i - 1, '<', '>')?);
    }
    let name_start = ident_start(chars, i);
    let keyword_end = blanks_before(chars, name_start);
    let keyword: String = chars[ident_start(chars, keyword_end)..keyword_end]
        .iter()
        .collect();
    (name_start < i && keyword == "fn").then(|| chars[name_start..i].iter().collect())
}

/// Where the bracket closed at `close` opens (a `->` inside is no bracket).
fn opening_before(chars: &[char], close: usize, open: char, shut: char) -> Option<usize> {
    let mut depth = 0usize;
    for i in (0..=close).rev() {
        let arrow = chars[i] == '>' && i > 0 && chars[i - 1] == '-';
        if chars[i] == shut && !arrow {
            depth += 1;
        } else if chars[i] == open {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The names given as `value_parser = name` or `value_parser = path::name` in `code`
/// (not a call, and not the `value_parser!` macro).
fn value_parsers(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("value_parser") {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = code[at + "value_parser".len()..].trim_start();
        let Some(rest) = rest.strip_prefix('=').filter(|r| !r.starts_with('=')) else {
            continue;
        };
        let rest = rest.trim_start();
        let path_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let follows = rest[path_len..].trim_start().chars().next();
        if matches!(follows, Some(',') | Some(')')) {
            let name = rest[..path_len].rsplit("::").next().unwrap_or_default();
            names.insert(name.to_string());
        }
    }
    names
}

fn ident_char_at(chars: &[char], i: usize) -> bool {
    chars
        .get(i)
        .is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// Where the identifier ending just before `end` starts (`end` if there is none).
fn ident_start(chars: &[char], end: usize) -> usize {
    let mut i = end;
    while i > 0 && ident_char_at(chars, i - 1) {
        i -= 1;
    }
    i
}

fn skip_blanks(chars: &[char], mut i: usize) -> usize {
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    i
}

fn blanks_before(chars: &[char], mut i: usize) -> usize {
    while i > 0 && chars[i - 1].is_whitespace() {
        i -= 1;
    }
    i
}

#[test]
fn no_code_of_the_workspace_returns_a_string_error_but_clap_value_parsers() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut crates: Vec<PathBuf> = std::fs::read_dir(&server)
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    crates.sort();
    assert!(crates.len() >= 7, "only {crates:?} read");
    let mut offending = Vec::new();
    for src in &crates {
        let code: Vec<(PathBuf, String)> = rust_files(src)
            .into_iter()
            .map(|file| {
                let text = std::fs::read_to_string(&file).unwrap();
                (file, code_only(&text))
            })
            .collect();
        let parsers: BTreeSet<String> = code.iter().flat_map(|(_, c)| value_parsers(c)).collect();
        for (file, code) in &code {
            for found in string_errors(code) {
                if found.function.is_some_and(|f| parsers.contains(&f)) {
                    continue;
                }
                let shown = file.strip_prefix(&server).unwrap_or(file).display();
                offending.push(format!("server/{shown}:{}: {}", found.line, found.written));
            }
        }
    }
    assert!(
        offending.is_empty(),
        "errors that are a bare String (give them an error type; only clap value parsers \
         return Result<_, String>):\n{}",
        offending.join("\n")
    );
}

#[test]
fn the_reader_finds_string_errors_nested_split_over_lines_and_behind_paths() {
    let code = code_only(
        "// fn commented() -> Result<(), String> {}\n\
         fn a() -> Result<Vec<(u16, Option<u8>)>, String> {}\n\
         fn b<T: Into<u8>>(\n    x: T,\n) -> std::result::Result<\n    (T, String),\n    String,\n> {}\n\
         type Alias = Result<u8, std::string::String>;\n\
         fn c() -> Result<String, Error> { let s = \"Result<(), String>\"; }\n\
         fn d() -> io::Result<String> {}\n\
         fn e(f: impl Fn(u8) -> Result<u8, String>) -> ApiResult<String> {}\n",
    );
    let at = |line, function: Option<&str>, written: &str| StringError {
        line,
        function: function.map(str::to_string),
        written: written.to_string(),
    };
    assert_eq!(
        string_errors(&code),
        [
            at(2, Some("a"), "Result<Vec<(u16, Option<u8>)>, String>"),
            at(5, Some("b"), "Result< (T, String), String, >"),
            at(9, None, "Result<u8, std::string::String>"),
            at(12, None, "Result<u8, String>"),
        ]
    );
}

#[test]
fn clap_value_parsers_are_named_by_their_last_path_part_and_macros_are_not() {
    let code = code_only(
        "#[arg(long, value_parser = parse_size)]\n\
         #[arg(value_parser = values::parse_duration, default_value = \"1s\")]\n\
         #[arg(value_parser = clap::value_parser!(u64).range(1..))]\n\
         #[arg(value_parser = PossibleValuesParser::new([\"a\"]))]\n\
         // #[arg(value_parser = commented)]\n",
    );
    let names: Vec<String> = value_parsers(&code).into_iter().collect();
    assert_eq!(names, ["parse_duration", "parse_size"]);
}
