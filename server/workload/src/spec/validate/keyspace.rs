//! The `keyspace` section: how keys are named, seeded and how many exist already.

use serde_saphyr::Spanned;

use super::values::{R, at, in_range, loc_of, non_negative};
use crate::plan::*;
use crate::spec::raw::*;

pub(super) fn keyspace(raw: Option<Spanned<RawKeyspace>>) -> R<KeyspacePlan> {
    let Some(raw) = raw else {
        return Ok(KeyspacePlan {
            seed: 1,
            prefix: String::new(),
            layout: KeyLayout::Random,
            key_length: 16,
            existing: 0,
            shard: Default::default(),
        });
    };
    let loc = *loc_of(&raw);
    let k = raw.value;
    let layout_name = k
        .layout
        .as_ref()
        .map(|l| l.value.as_str())
        .unwrap_or("random");
    let tree_only = |v: &Option<Spanned<i64>>, what: &str| -> R<()> {
        match v {
            Some(v) if layout_name != "tree" => at(
                loc_of(v),
                format!("`{what}` only applies to `layout: tree`"),
            ),
            _ => Ok(()),
        }
    };
    tree_only(&k.fanout, "fanout")?;
    tree_only(&k.depth, "depth")?;
    let (layout, min_len, default_len) = match layout_name {
        "random" => (KeyLayout::Random, 12, 16),
        "sequential" => (KeyLayout::Sequential, 1, 12),
        "tree" => {
            let fanout = match &k.fanout {
                Some(f) => in_range(f, "fanout", 2, 1_000_000)? as u32,
                None => 16,
            };
            let depth = match &k.depth {
                Some(d) => in_range(d, "depth", 1, 32)? as u32,
                None => 3,
            };
            (KeyLayout::Tree { fanout, depth }, 12, 16)
        }
        other => {
            let l = k.layout.as_ref().map(loc_of).copied().unwrap_or(loc);
            return at(
                &l,
                format!("unknown layout {other:?}; use `random`, `sequential` or `tree`"),
            );
        }
    };
    let key_length = match &k.key_length {
        Some(v) => in_range(v, "key_length", min_len, 512)? as usize,
        None => default_len,
    };
    let prefix = match &k.prefix {
        Some(p) => {
            if p.value.starts_with('/') {
                return at(loc_of(p), "`prefix` must not start with `/`");
            }
            if p.value.len() > 512 {
                return at(loc_of(p), "`prefix` is longer than 512 bytes");
            }
            p.value.clone()
        }
        None => String::new(),
    };
    Ok(KeyspacePlan {
        seed: match &k.seed {
            Some(s) => non_negative(s, "seed")?,
            None => 1,
        },
        prefix,
        layout,
        key_length,
        existing: match &k.existing {
            Some(e) => non_negative(e, "existing")?,
            None => 0,
        },
        shard: Default::default(),
    })
}
