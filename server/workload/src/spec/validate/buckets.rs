//! The `buckets` section: one name, a list, or a counted family, each name checked
//! against the S3 rules.

use std::collections::HashSet;

use serde_saphyr::Spanned;

use super::values::{R, at, in_range, loc_of};
use crate::plan::*;
use crate::spec::raw::*;

fn bucket_name(n: &Spanned<String>) -> R<String> {
    let s = n.value.as_str();
    let ok_chars = s
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    let ends_ok = s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && s.bytes().last().is_some_and(|b| b.is_ascii_alphanumeric());
    if !(3..=63).contains(&s.len()) || !ok_chars || !ends_ok || s.contains("..") {
        return at(
            loc_of(n),
            format!(
                "bad bucket name {s:?}: 3-63 characters of lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit"
            ),
        );
    }
    Ok(s.to_string())
}

pub(super) fn buckets(raw: Spanned<RawBuckets>) -> R<BucketsPlan> {
    let loc = *loc_of(&raw);
    let b = raw.value;
    let forms = [
        b.names.is_some(),
        b.name.is_some(),
        b.prefix.is_some() || b.count.is_some(),
    ]
    .iter()
    .filter(|x| **x)
    .count();
    if forms != 1 {
        return at(
            &loc,
            "`buckets` takes exactly one of `names: [...]`, `name: ...`, or `prefix` with `count`",
        );
    }
    let mut names = Vec::new();
    if let Some(list) = &b.names {
        if list.is_empty() {
            return at(&loc, "`buckets.names` is empty");
        }
        for n in list {
            names.push((bucket_name(n)?, *loc_of(n)));
        }
    } else if let Some(n) = &b.name {
        names.push((bucket_name(n)?, *loc_of(n)));
    } else {
        let (Some(prefix), Some(count)) = (&b.prefix, &b.count) else {
            return at(&loc, "`buckets.prefix` and `buckets.count` go together");
        };
        let count = in_range(count, "buckets.count", 1, 1000)?;
        for i in 0..count {
            let spanned = Spanned {
                value: format!("{}{i}", prefix.value),
                referenced: prefix.referenced,
                defined: prefix.defined,
            };
            names.push((bucket_name(&spanned)?, *loc_of(prefix)));
        }
    }
    let mut seen = HashSet::new();
    for (n, l) in &names {
        if !seen.insert(n.clone()) {
            return at(l, format!("bucket {n:?} is listed twice"));
        }
    }
    Ok(BucketsPlan {
        names: names.into_iter().map(|(n, _)| n).collect(),
        create: b.create.unwrap_or(true),
        index: crate::spec::rgw::bucket_index(&b.index)?,
    })
}
