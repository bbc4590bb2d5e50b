//! What must be there against what was listed, counted exactly: keys missing from the
//! listing, keys listed more than once, entries listed that were never expected, and
//! keys listed with another size — with the first examples of each. Both sides are
//! spilled by key hash ([`super::spill`]) and compared one partition at a time.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::spill::{Part, Spill, read_records};

/// Partitions of each side, at each split level.
const PARTS: usize = 64;
/// Split levels at most: 64^4 partitions hold any bucket within any budget.
const MAX_DEPTH: u32 = 4;
/// Examples kept of each kind of finding.
pub const EXAMPLES_PER_KIND: usize = 25;

/// Exact counts of a comparison.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditCounts {
    /// Keys that must be there.
    pub expected: u64,
    /// Entries the listing returned.
    pub listed: u64,
    /// Expected keys the listing did not return.
    pub missing: u64,
    /// Expected keys the listing returned more than once.
    pub doubled: u64,
    /// Entries listed that were not expected.
    pub extra: u64,
    /// Expected keys listed with another size.
    pub size_mismatch: u64,
}

impl AuditCounts {
    /// Whether the listing is exactly what was expected.
    pub fn clean(&self) -> bool {
        self.missing == 0 && self.doubled == 0 && self.extra == 0 && self.size_mismatch == 0
    }
}

/// What is wrong with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AuditFinding {
    Missing,
    Doubled,
    Extra,
    SizeMismatch,
}

/// One key found wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditExample {
    pub finding: AuditFinding,
    pub key: String,
    /// `listed 3 times`, `listed 1,024 bytes, written 2,048`.
    pub detail: String,
}

/// A comparison being fed: the expected keys and the listed entries, in any order and
/// interleaved, then [`Comparer::finish`].
pub struct Comparer {
    /// Removed with everything in it when the comparer is dropped.
    dir: tempfile::TempDir,
    expected: Spill,
    listed: Spill,
    /// Expected keys a partition may hold to be compared in memory.
    budget: u64,
}

/// An expected key as a partition holds it.
struct Slot {
    size: u64,
    seen: u32,
}

impl Comparer {
    /// A comparison spilling under `parent` (in a folder of its own), comparing at most
    /// `budget` expected keys in memory at once.
    pub fn new(parent: &Path, budget: u64) -> io::Result<Comparer> {
        let dir = tempfile::Builder::new()
            .prefix("audit-")
            .tempdir_in(parent)?;
        Ok(Comparer {
            expected: Spill::create(dir.path(), "expected", 0, PARTS)?,
            listed: Spill::create(dir.path(), "listed", 0, PARTS)?,
            dir,
            budget: budget.max(1),
        })
    }

    /// A key that must be there, with its size.
    pub fn expect(&mut self, key: &str, size: u64) -> io::Result<()> {
        self.expected.push(key.as_bytes(), size)
    }

    /// An entry the listing returned.
    pub fn listed(&mut self, key: &str, size: u64) -> io::Result<()> {
        self.listed.push(key.as_bytes(), size)
    }

    /// Compares the two sides: exact counts and the first examples of each finding.
    pub fn finish(self) -> io::Result<(AuditCounts, Vec<AuditExample>)> {
        let mut out = Outcome::default();
        let expected = self.expected.finish()?;
        let listed = self.listed.finish()?;
        for (e, l) in expected.iter().zip(&listed) {
            compare_part(self.dir.path(), e, l, self.budget, 1, &mut out)?;
        }
        Ok((out.counts, out.examples))
    }
}

#[derive(Default)]
struct Outcome {
    counts: AuditCounts,
    examples: Vec<AuditExample>,
}

impl Outcome {
    fn example(&mut self, finding: AuditFinding, key: &[u8], detail: String) {
        if self
            .examples
            .iter()
            .filter(|e| e.finding == finding)
            .count()
            < EXAMPLES_PER_KIND
        {
            self.examples.push(AuditExample {
                finding,
                key: String::from_utf8_lossy(key).into_owned(),
                detail,
            });
        }
    }
}

/// Compares one partition of each side, splitting it first when its expected keys are
/// more than the budget; its files are removed once compared.
fn compare_part(
    dir: &Path,
    expected: &Part,
    listed: &Part,
    budget: u64,
    depth: u32,
    out: &mut Outcome,
) -> io::Result<()> {
    if expected.records > budget && depth <= MAX_DEPTH {
        let sub = tempfile::Builder::new().prefix("split-").tempdir_in(dir)?;
        let salt = u64::from(depth);
        let mut e = Spill::create(sub.path(), "expected", salt, PARTS)?;
        read_records(&expected.path, |k, s| e.push(k, s))?;
        let mut l = Spill::create(sub.path(), "listed", salt, PARTS)?;
        read_records(&listed.path, |k, s| l.push(k, s))?;
        remove(expected, listed);
        for (e, l) in e.finish()?.iter().zip(&l.finish()?) {
            compare_part(sub.path(), e, l, budget, depth + 1, out)?;
        }
        return Ok(());
    }
    let mut slots: HashMap<Box<[u8]>, Slot> = HashMap::with_capacity(expected.records as usize);
    read_records(&expected.path, |k, size| {
        slots.entry(k.into()).or_insert(Slot { size, seen: 0 });
        Ok(())
    })?;
    out.counts.expected += slots.len() as u64;
    read_records(&listed.path, |k, size| {
        out.counts.listed += 1;
        match slots.get_mut(k) {
            None => {
                out.counts.extra += 1;
                out.example(
                    AuditFinding::Extra,
                    k,
                    format!("listed, {size} bytes, never written"),
                );
            }
            Some(slot) => {
                slot.seen += 1;
                if slot.seen == 1 && size != slot.size {
                    out.counts.size_mismatch += 1;
                    let detail = format!("listed {size} bytes, written {}", slot.size);
                    out.example(AuditFinding::SizeMismatch, k, detail);
                }
            }
        }
        Ok(())
    })?;
    for (k, slot) in &slots {
        match slot.seen {
            0 => {
                out.counts.missing += 1;
                out.example(
                    AuditFinding::Missing,
                    k,
                    format!("written, {} bytes, not listed", slot.size),
                );
            }
            1 => {}
            n => {
                out.counts.doubled += 1;
                out.example(AuditFinding::Doubled, k, format!("listed {n} times"));
            }
        }
    }
    remove(expected, listed);
    Ok(())
}

fn remove(expected: &Part, listed: &Part) {
    let _ = std::fs::remove_file(&expected.path);
    let _ = std::fs::remove_file(&listed.path);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10,000 keys expected; the listing misses 37, lists 12 twice and one three
    /// times, has 5 keys never written and 4 with another size, all shuffled.
    fn compare(budget: u64) -> (AuditCounts, Vec<AuditExample>, tempfile::TempDir) {
        let parent = tempfile::tempdir().unwrap();
        let mut c = Comparer::new(parent.path(), budget).unwrap();
        let key = |i: u64| format!("p/{:08x}", crate::keyspace::mix64(3, i));
        let mut listed: Vec<(String, u64)> = Vec::new();
        for i in 0..10_000u64 {
            c.expect(&key(i), i % 97).unwrap();
            match i {
                0..37 => {}
                37..49 => listed.extend([(key(i), i % 97), (key(i), i % 97)]),
                49 => listed.extend([(key(i), i % 97), (key(i), i % 97), (key(i), i % 97)]),
                50..54 => listed.push((key(i), i % 97 + 1)),
                _ => listed.push((key(i), i % 97)),
            }
        }
        for n in 0..5 {
            listed.push((format!("q/stranger-{n}"), 1));
        }
        let mut rng = fastrand::Rng::with_seed(9);
        rng.shuffle(&mut listed);
        for (k, s) in &listed {
            c.listed(k, *s).unwrap();
        }
        let (counts, examples) = c.finish().unwrap();
        (counts, examples, parent)
    }

    #[test]
    fn every_missing_doubled_extra_and_resized_key_is_counted_exactly() {
        let (counts, examples, parent) = compare(100);
        assert_eq!(
            counts,
            AuditCounts {
                expected: 10_000,
                listed: 10_000 - 37 + 12 + 2 + 5,
                missing: 37,
                doubled: 13,
                extra: 5,
                size_mismatch: 4,
            }
        );
        assert!(!counts.clean());
        let of = |f: AuditFinding| examples.iter().filter(|e| e.finding == f).count();
        assert_eq!(of(AuditFinding::Missing), EXAMPLES_PER_KIND);
        assert_eq!(of(AuditFinding::Doubled), 13);
        assert_eq!(of(AuditFinding::Extra), 5);
        assert_eq!(of(AuditFinding::SizeMismatch), 4);
        assert!(examples.iter().any(|e| e.detail == "listed 3 times"));
        assert!(
            examples
                .iter()
                .filter(|e| e.finding == AuditFinding::Extra)
                .all(|e| e.key.starts_with("q/stranger-"))
        );
        // What was spilled is gone once compared.
        let left: Vec<_> = std::fs::read_dir(parent.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn splitting_partitions_to_fit_the_budget_changes_no_count() {
        // 10,000 keys in 64 partitions are ~156 each: a budget of 100 splits every one,
        // a budget of 5 splits twice, a large one never.
        let (split, _, _) = compare(100);
        let (twice, _, _) = compare(5);
        let (whole, _, _) = compare(1_000_000);
        assert_eq!(split, whole);
        assert_eq!(twice, whole);
    }

    #[test]
    fn a_listing_that_is_exactly_what_was_written_is_clean() {
        let parent = tempfile::tempdir().unwrap();
        let mut c = Comparer::new(parent.path(), 1000).unwrap();
        for i in 0..2000 {
            c.expect(&format!("k{i}"), 7).unwrap();
        }
        for i in (0..2000).rev() {
            c.listed(&format!("k{i}"), 7).unwrap();
        }
        let (counts, examples) = c.finish().unwrap();
        assert!(counts.clean(), "{counts:?}");
        assert_eq!((counts.expected, counts.listed), (2000, 2000));
        assert!(examples.is_empty());
    }
}
