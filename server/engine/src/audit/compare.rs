//! What must be there against what was listed, counted exactly: keys missing from the
//! listing, keys listed more than once, entries listed that were never expected, and
//! keys listed with another size — with the first examples of each. Both sides are
//! spilled by key hash ([`super::spill`]) and compared one partition at a time.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::spill::{Cut, Part, Spill, read_records};
pub use keystorm_results::{AuditCounts, AuditExample, AuditFinding};

/// Partitions of each side, at each split level.
const PARTS: usize = 64;
/// Split levels at most: 64^4 partitions hold any bucket within any budget.
const MAX_DEPTH: u32 = 4;
/// Examples kept of each kind of finding.
pub const EXAMPLES_PER_KIND: usize = 25;

/// A comparison being fed: the expected keys and the listed entries, in any order and
/// interleaved, then [`Comparer::finish`]. Its files live in a folder of its own, which
/// `finish` removes; a comparer dropped before (a stopped phase) leaves them for
/// [`Comparer::resume`].
pub struct Comparer {
    dir: PathBuf,
    expected: Spill,
    listed: Spill,
    /// Expected keys a partition may hold to be compared in memory.
    budget: u64,
}

/// How much of the listed side a checkpoint accounts for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedCut {
    /// Bytes and records of each partition.
    parts: Vec<(u64, u64)>,
}

impl ListedCut {
    /// Entries listed up to the cut.
    pub fn entries(&self) -> u64 {
        self.parts.iter().map(|(_, records)| records).sum()
    }
}

/// An expected key as a partition holds it.
struct Slot {
    size: u64,
    seen: u32,
}

impl Comparer {
    /// A comparison spilling into the folder `dir` (made, or emptied of an earlier
    /// comparison's files), comparing at most `budget` expected keys in memory at once.
    pub fn create(dir: &Path, budget: u64) -> io::Result<Comparer> {
        match std::fs::remove_dir_all(dir) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        std::fs::create_dir_all(dir)?;
        Ok(Comparer {
            expected: Spill::create(dir, "expected", 0, PARTS)?,
            listed: Spill::create(dir, "listed", 0, PARTS)?,
            dir: dir.to_path_buf(),
            budget: budget.max(1),
        })
    }

    /// The comparison in `dir` continued from `cut`: the listed side holds what the cut
    /// accounts for (what was spilled after it is dropped), the expected side starts
    /// empty. `None` when the folder does not hold the cut.
    pub fn resume(dir: &Path, budget: u64, cut: &ListedCut) -> io::Result<Option<Comparer>> {
        if cut.parts.len() != PARTS {
            return Ok(None);
        }
        let Some(listed) = Spill::reopen(dir, "listed", 0, &cut.parts)? else {
            return Ok(None);
        };
        Ok(Some(Comparer {
            expected: Spill::create(dir, "expected", 0, PARTS)?,
            listed,
            dir: dir.to_path_buf(),
            budget: budget.max(1),
        }))
    }

    /// A key that must be there, with its size.
    pub fn expect(&mut self, key: &str, size: u64) -> io::Result<()> {
        self.expected.push(key.as_bytes(), size)
    }

    /// An entry the listing returned.
    pub fn listed(&mut self, key: &str, size: u64) -> io::Result<()> {
        self.listed.push(key.as_bytes(), size)
    }

    /// Flushes the listed side and says how much of it there is, for a checkpoint.
    pub fn listed_cut(&mut self) -> io::Result<ListedCut> {
        let parts: Cut = self.listed.cut()?;
        Ok(ListedCut { parts })
    }

    /// Compares the two sides: exact counts and the first examples of each finding.
    /// The comparer's folder is removed.
    pub fn finish(self) -> io::Result<(AuditCounts, Vec<AuditExample>)> {
        let mut out = Outcome::default();
        let expected = self.expected.finish()?;
        let listed = self.listed.finish()?;
        for (e, l) in expected.iter().zip(&listed) {
            compare_part(&self.dir, e, l, self.budget, 1, &mut out)?;
        }
        std::fs::remove_dir_all(&self.dir)?;
        // By finding, then by key: the order a reader looks for them in.
        out.examples
            .sort_by(|a, b| (a.finding as u8, &a.key).cmp(&(b.finding as u8, &b.key)));
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
        let mut c = Comparer::create(&parent.path().join("c"), budget).unwrap();
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
        let mut c = Comparer::create(&parent.path().join("c"), 1000).unwrap();
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

    #[test]
    fn a_resumed_comparison_counts_what_its_cut_held_and_what_came_after() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("c");
        let mut c = Comparer::create(&dir, 100).unwrap();
        for i in 0..3000 {
            c.listed(&format!("k{i}"), 5).unwrap();
        }
        let cut = c.listed_cut().unwrap();
        assert_eq!(cut.entries(), 3000);
        // Listed after the cut, then stopped: a resume lists these again.
        for i in 3000..3500 {
            c.listed(&format!("k{i}"), 5).unwrap();
        }
        drop(c);
        let mut c = Comparer::resume(&dir, 100, &cut).unwrap().unwrap();
        for i in 3000..5000 {
            c.listed(&format!("k{i}"), 5).unwrap();
        }
        for i in 0..5000 {
            c.expect(&format!("k{i}"), 5).unwrap();
        }
        let (counts, _) = c.finish().unwrap();
        assert!(counts.clean(), "{counts:?}");
        assert_eq!((counts.expected, counts.listed), (5000, 5000));
        assert!(!dir.exists());
        assert!(Comparer::resume(&dir, 100, &cut).unwrap().is_none());
    }
}
