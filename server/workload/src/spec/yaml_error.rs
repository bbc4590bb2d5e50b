//! The YAML library's errors in a workload author's words: what is wrong at that
//! line:column and the forms the field accepts, never serde internals such as "use
//! Option<String>". The commonest trap gets its own explanation: inside a flow map
//! `{ ... }` a comma ends the entry, so `latency: { put: lognormal:1ms,10ms }` reads as
//! `put: lognormal:1ms` plus a key `10ms` without a value.
//!
//! The error only carries a position, so the field is found in the text around it:
//! the key before the value, and the key of the map around it (on the same line for a
//! flow map, by indentation for a block one). That is enough to name the field and
//! its accepted forms; when it is not, the message still says what is wrong.

use serde_saphyr::Error;

/// `(line, column, message)` for a YAML-level error in `text`.
pub(super) fn describe(e: &Error, text: &str) -> (usize, usize, String) {
    let (line, column) = e
        .location()
        .map(|l| (l.line() as usize, l.column() as usize))
        .unwrap_or((1, 1));
    let at = offset(text, line, column);
    let message = match comma_cut(text, at) {
        Some(cut) => cut.explain(),
        None => {
            let e = e.without_snippet();
            let base = base_message(e, text, at);
            // The library's own messages (and the `expecting` texts of the raw types)
            // say what they say; the terse ones get the field's forms.
            let terse = matches!(
                e,
                Error::NullIntoString { .. }
                    | Error::InvalidCharNull { .. }
                    | Error::InvalidScalar { .. }
                    | Error::Unexpected { .. }
            );
            let (key, parent) = (key_at(text, at), parent_at(text, at));
            match forms(key.as_deref(), parent.as_deref()).filter(|_| terse) {
                Some(f) => format!("{base}; {f}"),
                None => base,
            }
        }
    };
    (line, column, message)
}

/// What is wrong, without the library's position suffix or tuning hints.
fn base_message(e: &Error, text: &str, at: usize) -> String {
    match e {
        Error::NullIntoString { .. } | Error::InvalidCharNull { .. } => match key_at(text, at) {
            Some(key) => format!("`{key}` has no value"),
            None => "a value is missing here".to_string(),
        },
        Error::InvalidScalar { ty, .. } => {
            let what = match *ty {
                "floating point" | "f32" | "f64" => "a number",
                "boolean" => "true or false",
                "char" => "one character",
                _ => "a whole number",
            };
            match scalar_at(text, at) {
                Some(found) => format!("`{found}` is not {what}"),
                None => match key_at(text, at) {
                    Some(key) => format!("`{key}` needs {what}"),
                    None => format!("{what} is needed here"),
                },
            }
        }
        Error::Unexpected { expected, .. } => match *expected {
            "mapping start" => "expected a map here: `{ key: value, ... }` or indented \
                                `key: value` lines"
                .to_string(),
            "sequence start" => "expected a list here: `[a, b]` or indented `- a` lines".into(),
            "string scalar" | "scalar" => "expected a single value here, not a list or map".into(),
            other => format!("expected {other}"),
        },
        other => {
            let m = library_message(other);
            if m.contains("flow mapping") || m.contains("flow sequence") {
                format!(
                    "{m}: inside `{{ ... }}` and `[ ... ]`, quote values that hold `{{`, `}}`, \
                     `[`, `]` or `,`, e.g. \"team-{{i%3}}\""
                )
            } else {
                m
            }
        }
    }
}

fn library_message(e: &Error) -> String {
    let options = serde_saphyr::render_options! { snippets: serde_saphyr::SnippetMode::Off };
    let mut m = e.render_with_options(options);
    if let Some(i) = m.rfind(" at line ") {
        m.truncate(i);
    }
    if let Some(i) = m.find(", set DuplicateKeyPolicy") {
        m.truncate(i);
    }
    let m = m.replace("expected one of ", "expected one of: ");
    super::suggest::with_suggestion(m.lines().next().unwrap_or("invalid YAML").trim())
}

/// A value of a flow map cut in two by a comma.
#[derive(Debug, PartialEq)]
struct CommaCut {
    /// The entry's key and the value as written, comma included.
    key: String,
    written: String,
    /// What was read: the value up to the comma, and the rest as a key.
    value: String,
    orphan: String,
    parent: Option<String>,
}

impl CommaCut {
    fn explain(&self) -> String {
        let CommaCut {
            key,
            written,
            value,
            orphan,
            parent,
        } = self;
        let mut m = format!(
            "`{key}: {written}`: inside `{{ ... }}` a comma ends an entry, so this reads as \
             `{key}: {value}` and a key `{orphan}` without a value"
        );
        // Only a log-normal latency has a comma of its own; nothing else is helped by quotes.
        if parent.as_deref() == Some("latency")
            && written.trim().parse::<keystorm_types::Delay>().is_ok()
        {
            m.push_str(&format!("; quote it: `{key}: \"{written}\"`"));
        }
        if let Some(f) = forms(Some(key), parent.as_deref()) {
            m.push_str("; ");
            m.push_str(&f);
        }
        m
    }
}

/// The forms a field accepts, found by its key and the key of the map around it.
fn forms(key: Option<&str>, parent: Option<&str>) -> Option<String> {
    const DURATIONS: [&str; 11] = [
        "duration",
        "warmup",
        "timeout",
        "stall_time",
        "poll",
        "checkpoint_every",
        "check_interval",
        "reshard_time_per_object",
        "retry_step",
        "list_time_per_shard",
        "wait_for_reshard",
    ];
    const FAULTS: [&str; 6] = [
        "slow_down",
        "internal_error",
        "reset",
        "stall",
        "key_error",
        "corrupt",
    ];
    // Fractions of index entries or listing pages, not of requests.
    const INDEX_FAULTS: [&str; 2] = ["lose_on_reshard", "list_twice"];
    let text = match (parent, key) {
        (Some("latency"), _) | (_, Some("latency")) => {
            "latency is `2ms` (fixed), `1ms..3ms` (uniform), `exp:2ms` (exponential with that \
             mean) or `lognormal:MEDIAN,P99` (log-normal), e.g. \"lognormal:2ms,20ms\", quoted \
             inside `{ ... }`"
        }
        (Some("mix"), _) | (_, Some("mix")) => {
            "a mix gives each operation a whole-number weight, e.g. \
             `{get: 70, put: 20, list: 5, delete: 5}`"
        }
        (Some("size"), _) | (_, Some("size")) => {
            "a size is `4KiB`, a range `1KiB-4KiB` or weights `{4KiB: 70, 1MiB: 30}`"
        }
        (_, Some("part_size" | "parts_above")) => "a size such as `16MiB`",
        (Some("faults"), Some(k)) if FAULTS.contains(&k) => {
            "a fault rate is a fraction of requests between 0 and 1, e.g. `0.01`"
        }
        (Some("faults"), Some(k)) if INDEX_FAULTS.contains(&k) => {
            "a fault rate is a fraction between 0 and 1, e.g. `0.01`"
        }
        (_, Some(k)) if DURATIONS.contains(&k) => {
            "a duration is a number with a unit, e.g. `30s`, `250ms`, `2m30s` or `1h`"
        }
        (Some("select"), _) | (_, Some("select")) => "select is `uniform` or `{zipf: 1.1}`",
        (Some("faults"), Some("ops")) => "`ops` is a list of operations, e.g. `[get, delete]`",
        (Some("metadata"), _) => {
            "a metadata value is a template such as \"team-{i%3}\", quoted when it holds \
             `{`, `}` or `,`"
        }
        _ => return None,
    };
    Some(text.to_string())
}

/// The byte offset of a 1-based line and column (in characters).
fn offset(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = &text[start.min(text.len())..];
    let within: usize = rest
        .chars()
        .take_while(|c| *c != '\n')
        .take(column.saturating_sub(1))
        .map(char::len_utf8)
        .sum();
    (start + within).min(text.len())
}

/// The start of the line holding `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The unmatched `{` or `[` before `at` on its line: the flow collection `at` is in.
fn flow_opener(text: &str, at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text[line_start(text, at)..at].char_indices().rev() {
        let i = i + line_start(text, at);
        match c {
            '}' | ']' => depth += 1,
            '{' | '[' if depth == 0 => return Some(i),
            '{' | '[' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The start of the flow entry holding `at` (just after its `,` or `{`), and the
/// separator's position, if `at` is in a flow map.
fn flow_entry_start(text: &str, at: usize) -> Option<(usize, usize)> {
    let opener = flow_opener(text, at)?;
    if !text[opener..].starts_with('{') {
        return None;
    }
    let mut depth = 0usize;
    for (i, c) in text[opener + 1..at].char_indices().rev() {
        let i = i + opener + 1;
        match c {
            '}' | ']' => depth += 1,
            '{' | '[' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return Some((i + 1, i)),
            _ => {}
        }
    }
    Some((opener + 1, opener))
}

/// The end of the flow entry that starts at `from`: the next `,` or closer at depth 0.
fn flow_entry_end(text: &str, from: usize) -> usize {
    let mut depth = 0usize;
    for (i, c) in text[from..].char_indices() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' if depth == 0 => return from + i,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => return from + i,
            '\n' => return from + i,
            _ => {}
        }
    }
    text.len()
}

/// `key: value` split at the first `: ` (or a final `:`).
fn split_entry(entry: &str) -> Option<(&str, &str)> {
    split_entry_at(entry).map(|(k, v, _)| (k, v))
}

/// [`split_entry`] with the byte offset of the value in `entry`.
fn split_entry_at(entry: &str) -> Option<(&str, &str, usize)> {
    let lead = entry.len() - entry.trim_start().len();
    let trimmed = entry.trim();
    if let Some(i) = trimmed.find(": ") {
        let value = &trimmed[i + 2..];
        let value_at = lead + i + 2 + (value.len() - value.trim_start().len());
        return Some((trimmed[..i].trim(), value.trim(), value_at));
    }
    trimmed
        .strip_suffix(':')
        .map(|k| (k.trim(), "", lead + trimmed.len()))
}

fn unquote(s: &str) -> &str {
    s.trim()
        .trim_start_matches("- ")
        .trim_matches(|c| c == '"' || c == '\'')
}

/// The key whose value (or missing value) is at `at`.
fn key_at(text: &str, at: usize) -> Option<String> {
    if let Some((start, _)) = flow_entry_start(text, at) {
        let end = flow_entry_end(text, start).max(at);
        return split_entry(&text[start..end.min(text.len())])
            .map(|(k, _)| unquote(k).to_string())
            .filter(|k| !k.is_empty());
    }
    let line = &text[line_start(text, at)..];
    let line = line.lines().next().unwrap_or("");
    split_entry(line.trim_start().trim_start_matches("- "))
        .map(|(k, _)| unquote(k).to_string())
        .filter(|k| !k.is_empty())
}

/// The key of the map around the entry at `at`.
fn parent_at(text: &str, at: usize) -> Option<String> {
    if let Some(opener) = flow_opener(text, at) {
        let before = text[line_start(text, opener)..opener].trim_end();
        let before = before.strip_suffix(':')?;
        let key_from = before
            .rfind(['{', ',', '['])
            .map_or(0, |i| i + 1)
            .max(before.rfind("- ").map_or(0, |i| i + 2));
        let key = unquote(&before[key_from..]);
        return (!key.is_empty()).then(|| key.to_string());
    }
    // Block style: the nearest line above that is indented less and opens a map.
    let start = line_start(text, at);
    let indent = |l: &str| l.len() - l.trim_start().len();
    let own = indent(text[start..].lines().next().unwrap_or(""));
    text[..start]
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .find(|l| indent(l) < own)
        .and_then(|l| l.trim().trim_start_matches("- ").strip_suffix(':'))
        .map(|k| unquote(k).to_string())
}

/// The plain scalar starting at `at`, if there is one (the position of a missing value
/// is its key's `:`).
fn scalar_at(text: &str, at: usize) -> Option<String> {
    let rest = &text[at..];
    if rest.starts_with(':') {
        return None;
    }
    let end = rest.find([',', '}', ']', '\n', '#']).unwrap_or(rest.len());
    let s = rest[..end].trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// A comma-cut value at `at`: `at` is on or just after a key without a value, in a
/// flow map, right after an entry `key: value` written without quotes.
fn comma_cut(text: &str, at: usize) -> Option<CommaCut> {
    let (start, separator) = flow_entry_start(text, at)?;
    if text.as_bytes().get(separator) != Some(&b',') {
        return None;
    }
    let end = flow_entry_end(text, start);
    let orphan = text[start..end].trim();
    if orphan.is_empty() || orphan.contains(": ") || orphan.ends_with(':') {
        return None;
    }
    let (prev_start, _) = flow_entry_start(text, separator)?;
    let (key, value, value_at) = split_entry_at(&text[prev_start..separator])?;
    if value.is_empty() || value.starts_with(['"', '\'', '{', '[']) {
        return None;
    }
    let written = text[prev_start + value_at..end].trim().to_string();
    Some(CommaCut {
        key: unquote(key).to_string(),
        written,
        value: value.to_string(),
        orphan: orphan.to_string(),
        parent: parent_at(text, prev_start),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, needle: &str) -> usize {
        text.find(needle).unwrap()
    }

    #[test]
    fn a_comma_in_a_flow_map_is_recognised_where_the_key_is_left_without_value() {
        let text =
            "target: { endpoint: embedded, embedded: { latency: { put: lognormal:1ms,10ms } } }\n";
        for pos in [at(text, "10ms"), at(text, "10ms") + 5] {
            let cut = comma_cut(text, pos).expect("a cut");
            assert_eq!(
                cut,
                CommaCut {
                    key: "put".into(),
                    written: "lognormal:1ms,10ms".into(),
                    value: "lognormal:1ms".into(),
                    orphan: "10ms".into(),
                    parent: Some("latency".into()),
                }
            );
            let m = cut.explain();
            assert!(m.contains("`put: \"lognormal:1ms,10ms\"`"), "{m}");
            assert!(m.contains("exp:2ms"), "{m}");
        }
    }

    #[test]
    fn quotes_are_suggested_only_where_they_give_a_valid_value() {
        let text = "latency: { put: 1ms..3ms, get }\n";
        let m = comma_cut(text, at(text, "get")).expect("a cut").explain();
        assert!(m.contains("a key `get` without a value"), "{m}");
        assert!(!m.contains("quote it"), "{m}");
        let text = "metadata: { team: a,b }\n";
        let cut = comma_cut(text, at(text, "b }")).expect("a cut");
        assert_eq!((cut.written.as_str(), cut.value.as_str()), ("a,b", "a"));
    }

    #[test]
    fn entries_that_are_whole_are_not_taken_for_cuts() {
        let text = "x: { put: 2ms, get: exp:1ms }\n";
        assert_eq!(comma_cut(text, at(text, "get")), None);
        let quoted = "x: { put: \"a,b\", c }\n";
        assert_eq!(comma_cut(quoted, at(quoted, "c }")), None);
    }

    #[test]
    fn keys_and_their_maps_are_found_in_flow_and_block_style() {
        let flow = "  - { name: mix, mix: { get: 70, put: }, concurrency: 2 }\n";
        let p = at(flow, "}, conc");
        assert_eq!(key_at(flow, p).as_deref(), Some("put"));
        assert_eq!(parent_at(flow, p).as_deref(), Some("mix"));
        let block = "phases:\n  - name: x\n    mix:\n      get: 70%\n";
        let p = at(block, "70%");
        assert_eq!(key_at(block, p).as_deref(), Some("get"));
        assert_eq!(parent_at(block, p).as_deref(), Some("mix"));
        assert_eq!(scalar_at(block, p).as_deref(), Some("70%"));
    }

    #[test]
    fn offsets_count_characters_not_bytes() {
        let text = "a: \"é\"\nbé: x\n";
        assert_eq!(&text[offset(text, 2, 5)..], "x\n");
    }
}
