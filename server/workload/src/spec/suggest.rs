//! "Did you mean": the accepted name closest to a mistyped one. A workload's maps list
//! up to 25 fields; a typo should point at the one meant, not leave the author to read
//! the list.

/// Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`.
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows of the optimal-string-alignment table: two back, one back, this one.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
    }
    last[b.len()]
}

/// The name among `accepted` closest to `given`, if it is close enough to be the one
/// meant: a third of its letters wrong at most (one for short names), or the same
/// name in another case or with `-` for `_`.
pub(super) fn closest<'a>(
    given: &str,
    accepted: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let normal = |s: &str| s.to_ascii_lowercase().replace('-', "_");
    let given_normal = normal(given);
    let limit = (given.chars().count() / 3).max(1);
    accepted
        .into_iter()
        .map(|name| (distance(&given_normal, &normal(name)), name))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, name)| name)
}

/// The library's "unknown field `x`, expected one of: `a`, `b`" (or "unknown variant"),
/// with the closest accepted name put first; other messages as they are.
pub(super) fn with_suggestion(message: &str) -> String {
    let Some((head, list)) = message.split_once(", expected one of: ") else {
        return message.to_string();
    };
    let Some(given) = head
        .strip_prefix("unknown field `")
        .or_else(|| head.strip_prefix("unknown variant `"))
        .and_then(|rest| rest.strip_suffix('`'))
    else {
        return message.to_string();
    };
    let accepted = list.split(", ").map(|n| n.trim_matches('`'));
    match closest(given, accepted) {
        Some(name) => format!("{head}: did you mean `{name}`? (expected one of: {list})"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_are_counted() {
        assert_eq!(distance("concurency", "concurrency"), 1);
        assert_eq!(distance("oprations", "operations"), 1);
        assert_eq!(distance("endpiont", "endpoint"), 1);
        assert_eq!(distance("abc", "xyz"), 3);
        assert_eq!(distance("", "ab"), 2);
    }

    #[test]
    fn the_closest_name_is_suggested_only_when_close() {
        let fields = ["name", "op", "concurrency", "operations", "until_objects"];
        assert_eq!(closest("concurency", fields), Some("concurrency"));
        assert_eq!(closest("Concurrency", fields), Some("concurrency"));
        assert_eq!(closest("until-objects", fields), Some("until_objects"));
        assert_eq!(closest("colour", fields), None);
        assert_eq!(closest("xx", fields), None);
    }

    #[test]
    fn library_messages_get_the_suggestion_first() {
        assert_eq!(
            with_suggestion("unknown field `concurency`, expected one of: `name`, `concurrency`"),
            "unknown field `concurency`: did you mean `concurrency`? (expected one of: `name`, `concurrency`)"
        );
        assert_eq!(
            with_suggestion("unknown variant `gett`, expected one of: `put`, `get`"),
            "unknown variant `gett`: did you mean `get`? (expected one of: `put`, `get`)"
        );
        let far = "unknown field `colour`, expected one of: `name`, `op`";
        assert_eq!(with_suggestion(far), far);
        assert_eq!(with_suggestion("duplicate key"), "duplicate key");
    }
}
