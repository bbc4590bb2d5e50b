//! Rust source read as text by the workspace's checks of its own code: the `.rs` files
//! under a folder, and their text with comments, string and character literals blanked
//! out, so that what a check finds there is code. Every newline is kept, so a place
//! found has its file's line number.

use std::path::{Path, PathBuf};

/// `text` with each comment blanked to a space and each string or character literal to
/// `""` or a space, but for the newlines they spanned.
pub fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let start = i;
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = block_comment_end(&chars, i);
            out.push(' ');
        } else if let Some(end) = raw_string_end(&chars, i) {
            i = end;
            out.push_str("\"\"");
        } else if c == '"' {
            i = string_end(&chars, i);
            out.push_str("\"\"");
        } else if let Some(end) = char_literal_end(&chars, i) {
            i = end;
            out.push(' ');
        } else {
            out.push(c);
            i += 1;
            continue;
        }
        let spanned = &chars[start..i.min(chars.len())];
        out.extend(spanned.iter().filter(|c| **c == '\n'));
    }
    out
}

/// Just past the block comment opening at `at` (comments nest).
fn block_comment_end(chars: &[char], at: usize) -> usize {
    let mut depth = 0;
    let mut i = at;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                break;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// Just past the raw string (`r"…"`, `r#"…"#`) opening at `at`, if one does.
fn raw_string_end(chars: &[char], at: usize) -> Option<usize> {
    let after_ident = at > 0 && (chars[at - 1].is_alphanumeric() || chars[at - 1] == '_');
    if chars[at] != 'r' || after_ident {
        return None;
    }
    let mut j = at + 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(j)
}

/// Just past the string literal opening at `at`.
fn string_end(chars: &[char], at: usize) -> usize {
    let mut i = at + 1;
    while i < chars.len() && chars[i] != '"' {
        if chars[i] == '\\' {
            i += 1;
        }
        i += 1;
    }
    i + 1
}

/// Just past the character literal (`'a'`, `'\n'`, `'\''`, `'\u{..}'`) opening at
/// `at`, if one does rather than a lifetime (`'a`).
fn char_literal_end(chars: &[char], at: usize) -> Option<usize> {
    if chars[at] != '\'' {
        return None;
    }
    if chars.get(at + 1) == Some(&'\\') {
        // Past the escaped character, which may itself be a quote.
        let mut j = at + 3;
        while j < chars.len() && chars[j] != '\'' {
            j += 1;
        }
        return Some(j + 1);
    }
    (chars.get(at + 2) == Some(&'\'')).then_some(at + 3)
}

/// The `.rs` files under `dir`, at any depth.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}
