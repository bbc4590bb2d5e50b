//! The `objects` section: size distribution, content and metadata of written objects.

use serde_saphyr::Spanned;

use super::values::{Located, R, at, loc_of};
use crate::plan::*;
use crate::size::{UNITS_HELP, parse_size};
use crate::spec::raw::*;
use crate::spec::template::parse_template;

const MAX_OBJECT_SIZE: u64 = 5 << 30;

pub(super) fn objects(raw: Option<Spanned<RawObjects>>) -> R<ObjectsPlan> {
    let Some(raw) = raw else {
        return Ok(ObjectsPlan {
            size: SizeDist::Fixed { bytes: 1024 },
            content: Content::Random,
            metadata: Vec::new(),
        });
    };
    let o = raw.value;
    let size = match &o.size {
        Some(s) => size_dist(s)?,
        None => SizeDist::Fixed { bytes: 1024 },
    };
    let content = match &o.content {
        None => Content::Random,
        Some(c) => match c.value.as_str() {
            "random" => Content::Random,
            "zero" => Content::Zero,
            other => {
                return at(
                    loc_of(c),
                    format!("unknown content {other:?}; use `random` or `zero`"),
                );
            }
        },
    };
    let mut metadata = Vec::new();
    for (name, template) in o.metadata.unwrap_or_default() {
        let valid = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        if !valid {
            return at(
                loc_of(&template),
                format!("metadata name {name:?}: use lowercase letters, digits, `-` and `_`"),
            );
        }
        let t = parse_template(&template.value).map_err(|m| Located {
            line: template.referenced.line() as usize,
            column: template.referenced.column() as usize,
            message: m.to_string(),
        })?;
        metadata.push((name, t));
    }
    Ok(ObjectsPlan {
        size,
        content,
        metadata,
    })
}

fn size_dist(s: &Spanned<RawSize>) -> R<SizeDist> {
    let loc = loc_of(s);
    let one = |text: &str| -> R<u64> {
        let n = parse_size(text).map_err(|m| Located {
            line: loc.line() as usize,
            column: loc.column() as usize,
            message: format!("`size`: {m}"),
        })?;
        if n > MAX_OBJECT_SIZE {
            return at(
                loc,
                format!("`size`: {text} is larger than the 5 GiB S3 single-PUT limit"),
            );
        }
        Ok(n)
    };
    match &s.value {
        RawSize::Bytes(n) => Ok(SizeDist::Fixed {
            bytes: one(&n.to_string())?,
        }),
        RawSize::Text(t) => {
            // `1KiB-4KiB`: a range (no size text contains `-` otherwise).
            match t.split_once('-') {
                Some((lo, hi)) => {
                    let (min, max) = (one(lo)?, one(hi)?);
                    if min > max {
                        return at(
                            loc,
                            format!("`size: {t}`: the range's minimum is above its maximum"),
                        );
                    }
                    Ok(if min == max {
                        SizeDist::Fixed { bytes: min }
                    } else {
                        SizeDist::Uniform { min, max }
                    })
                }
                None => Ok(SizeDist::Fixed { bytes: one(t)? }),
            }
        }
        RawSize::Weighted(map) => {
            if map.is_empty() {
                return at(
                    loc,
                    format!("`size` map is empty; e.g. {{4KiB: 70, 1MiB: 30}} ({UNITS_HELP})"),
                );
            }
            let mut choices = Vec::new();
            for (text, weight) in map {
                if *weight <= 0 {
                    return at(
                        loc,
                        format!("`size` weight for {text} must be positive, not {weight}"),
                    );
                }
                let w = u32::try_from(*weight).map_err(|_| Located {
                    line: loc.line() as usize,
                    column: loc.column() as usize,
                    message: format!("`size` weight {weight} is too large"),
                })?;
                choices.push((one(text)?, w));
            }
            choices.sort();
            Ok(SizeDist::Weighted { choices })
        }
    }
}
