//! What must be there against what was listed, exactly: keys missing from the listing,
//! keys listed more than once, entries listed that were never expected, keys listed
//! with another size or tag (ETag). Both sides are spilled by key hash
//! ([`super::spill`]) and compared one partition at a time; every key found is handed
//! to the caller ([`Comparer::compare`]), or counted with the first examples of each
//! finding for an audit ([`Comparer::finish`]).

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::spill::{Cut, Part, Spill, read_records};
pub(crate) use keystorm_results::{AuditCounts, AuditExample, AuditFinding};

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
    /// Counts the expected keys written, then those compared, for the step's progress.
    meter: Option<std::sync::Arc<crate::step_meter::StepMeter>>,
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
            meter: None,
        })
    }

    /// The same comparer, counting the keys it is given and compares into `meter`.
    pub fn metered(self, meter: std::sync::Arc<crate::step_meter::StepMeter>) -> Comparer {
        Comparer {
            meter: Some(meter),
            ..self
        }
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
            meter: None,
        }))
    }

    /// A key that must be there, with its size.
    pub fn expect(&mut self, key: &str, size: u64) -> io::Result<()> {
        if let Some(m) = &self.meter {
            m.add(1);
        }
        self.expected.push(key.as_bytes(), size, b"")
    }

    /// An entry the listing returned.
    pub fn listed(&mut self, key: &str, size: u64) -> io::Result<()> {
        self.listed.push(key.as_bytes(), size, b"")
    }

    /// A key on the expected side with a tag (an ETag) to compare too; an empty tag
    /// matches any.
    pub fn expect_tagged(&mut self, key: &str, size: u64, tag: &str) -> io::Result<()> {
        self.expected.push(key.as_bytes(), size, tag.as_bytes())
    }

    /// An entry on the listed side with a tag.
    pub fn listed_tagged(&mut self, key: &str, size: u64, tag: &str) -> io::Result<()> {
        self.listed.push(key.as_bytes(), size, tag.as_bytes())
    }

    /// Flushes the listed side and says how much of it there is, for a checkpoint.
    pub fn listed_cut(&mut self) -> io::Result<ListedCut> {
        let parts: Cut = self.listed.cut()?;
        Ok(ListedCut { parts })
    }

    /// Compares the two sides, handing every key found to `on` (partition by
    /// partition, in no order of keys); returns how many keys each side held. The
    /// comparer's folder is removed.
    pub fn compare(self, on: &mut dyn FnMut(&Found<'_>) -> io::Result<()>) -> io::Result<Sides> {
        let mut sides = Sides::default();
        let expected = self.expected.finish()?;
        let listed = self.listed.finish()?;
        for (e, l) in expected.iter().zip(&listed) {
            compare_part(&self.dir, e, l, self.budget, 1, &mut sides, on)?;
            // How far the comparison has got: the expected keys of the partitions done.
            if let Some(m) = &self.meter {
                m.add(e.records);
            }
        }
        std::fs::remove_dir_all(&self.dir)?;
        Ok(sides)
    }

    /// Compares the two sides as an audit: exact counts and the first examples of each
    /// finding, by finding then key. The comparer's folder is removed.
    pub fn finish(self) -> io::Result<(AuditCounts, Vec<AuditExample>)> {
        let mut out = Outcome::default();
        let sides = self.compare(&mut |f| {
            out.add(f);
            Ok(())
        })?;
        out.counts.expected = sides.expected;
        out.counts.listed = sides.listed;
        out.examples
            .sort_by(|a, b| (a.finding as u8, &a.key).cmp(&(b.finding as u8, &b.key)));
        Ok((out.counts, out.examples))
    }
}

/// Keys each side held: distinct expected keys, and every entry listed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sides {
    pub expected: u64,
    pub listed: u64,
}

/// What one side says of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen<'a> {
    pub size: u64,
    /// The ETag, or empty.
    pub tag: &'a [u8],
}

/// How a key differs between the two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundKind {
    /// Expected, never listed.
    Missing,
    /// Listed this many times (more than once).
    Doubled(u32),
    /// Listed, never expected.
    Extra,
    /// On both sides with other sizes.
    SizeMismatch,
    /// On both sides, same size, both tags given and different.
    TagMismatch,
    /// On the expected side this many times (more than once): a listing given as the
    /// expected side repeated it.
    DoubledExpected(u32),
}

/// One key found different.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found<'a> {
    pub kind: FoundKind,
    pub key: &'a [u8],
    pub expected: Option<Seen<'a>>,
    pub listed: Option<Seen<'a>>,
}

#[derive(Default)]
struct Outcome {
    counts: AuditCounts,
    examples: Vec<AuditExample>,
}

impl Outcome {
    /// Counts a key found, and keeps it as an example while there are few of its kind
    /// (its count so far says how many are kept).
    fn add(&mut self, f: &Found<'_>) {
        let c = &mut self.counts;
        let (finding, count) = match f.kind {
            FoundKind::Missing => (AuditFinding::Missing, &mut c.missing),
            FoundKind::Doubled(_) => (AuditFinding::Doubled, &mut c.doubled),
            FoundKind::Extra => (AuditFinding::Extra, &mut c.extra),
            FoundKind::SizeMismatch => (AuditFinding::SizeMismatch, &mut c.size_mismatch),
            // Computed keys carry no tags and are each expected once.
            FoundKind::TagMismatch | FoundKind::DoubledExpected(_) => return,
        };
        *count += 1;
        if *count > EXAMPLES_PER_KIND as u64 {
            return;
        }
        let size = |s: Option<Seen<'_>>| s.map_or(0, |s| s.size);
        let detail = match f.kind {
            FoundKind::Missing => format!("written, {} bytes, not listed", size(f.expected)),
            FoundKind::Doubled(n) => format!("listed {n} times"),
            FoundKind::Extra => format!("listed, {} bytes, not a live key", size(f.listed)),
            _ => format!(
                "listed {} bytes, written {}",
                size(f.listed),
                size(f.expected)
            ),
        };
        self.examples.push(AuditExample {
            finding,
            key: String::from_utf8_lossy(f.key).into_owned(),
            detail,
        });
    }
}

/// A key as a partition holds it (an expected one, or one listed but not expected).
struct Slot {
    size: u64,
    tag: Box<[u8]>,
    /// Times on the expected side, and listed.
    expected: u32,
    seen: u32,
}

impl Slot {
    /// The slot of `key` in `map`, made with this size and tag if it is new.
    fn of<'m>(
        map: &'m mut HashMap<Box<[u8]>, Slot>,
        key: &[u8],
        size: u64,
        tag: &[u8],
    ) -> &'m mut Slot {
        map.entry(key.into()).or_insert_with(|| Slot {
            size,
            tag: tag.into(),
            expected: 0,
            seen: 0,
        })
    }

    /// The key found `kind`, seen on the expected side or on the listed one.
    fn found<'a>(&'a self, kind: FoundKind, key: &'a [u8], expected: bool) -> Found<'a> {
        let seen = Some(Seen {
            size: self.size,
            tag: &self.tag,
        });
        Found {
            kind,
            key,
            expected: if expected { seen } else { None },
            listed: if expected { None } else { seen },
        }
    }
}

/// Compares one partition of each side, splitting it first when either side holds
/// more records than the budget; its files are removed once compared.
fn compare_part(
    dir: &Path,
    expected: &Part,
    listed: &Part,
    budget: u64,
    depth: u32,
    sides: &mut Sides,
    on: &mut dyn FnMut(&Found<'_>) -> io::Result<()>,
) -> io::Result<()> {
    if expected.records.max(listed.records) > budget && depth <= MAX_DEPTH {
        let sub = tempfile::Builder::new().prefix("split-").tempdir_in(dir)?;
        let salt = u64::from(depth);
        let mut e = Spill::create(sub.path(), "expected", salt, PARTS)?;
        read_records(&expected.path, |k, s, t| e.push(k, s, t))?;
        let mut l = Spill::create(sub.path(), "listed", salt, PARTS)?;
        read_records(&listed.path, |k, s, t| l.push(k, s, t))?;
        remove(expected, listed);
        for (e, l) in e.finish()?.iter().zip(&l.finish()?) {
            compare_part(sub.path(), e, l, budget, depth + 1, sides, on)?;
        }
        return Ok(());
    }
    let mut slots: HashMap<Box<[u8]>, Slot> = HashMap::with_capacity(expected.records as usize);
    read_records(&expected.path, |k, size, tag| {
        Slot::of(&mut slots, k, size, tag).expected += 1;
        Ok(())
    })?;
    sides.expected += slots.len() as u64;
    // Keys listed that were not expected, each once however often it was listed.
    let mut extras: HashMap<Box<[u8]>, Slot> = HashMap::new();
    read_records(&listed.path, |k, size, tag| {
        sides.listed += 1;
        let Some(slot) = slots.get_mut(k) else {
            Slot::of(&mut extras, k, size, tag).seen += 1;
            return Ok(());
        };
        slot.seen += 1;
        if slot.seen > 1 {
            return Ok(());
        }
        let expected = Some(Seen {
            size: slot.size,
            tag: &slot.tag,
        });
        let kind = if size != slot.size {
            FoundKind::SizeMismatch
        } else if !tag.is_empty() && !slot.tag.is_empty() && *tag != *slot.tag {
            FoundKind::TagMismatch
        } else {
            return Ok(());
        };
        on(&Found {
            kind,
            key: k,
            expected,
            listed: Some(Seen { size, tag }),
        })
    })?;
    for (k, extra) in &extras {
        let mut found = |kind| on(&extra.found(kind, k, false));
        found(FoundKind::Extra)?;
        if extra.seen > 1 {
            found(FoundKind::Doubled(extra.seen))?;
        }
    }
    for (k, slot) in &slots {
        let mut found = |kind| on(&slot.found(kind, k, true));
        if slot.expected > 1 {
            found(FoundKind::DoubledExpected(slot.expected))?;
        }
        match slot.seen {
            0 => found(FoundKind::Missing)?,
            1 => {}
            n => found(FoundKind::Doubled(n))?,
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
        // A key never written, listed twice: extra once, and doubled.
        listed.push(("q/stranger-0".to_string(), 1));
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
                listed: 10_000 - 37 + 12 + 2 + 5 + 1,
                missing: 37,
                doubled: 14,
                extra: 5,
                size_mismatch: 4,
            }
        );
        assert!(!counts.clean());
        let of = |f: AuditFinding| examples.iter().filter(|e| e.finding == f).count();
        assert_eq!(of(AuditFinding::Missing), EXAMPLES_PER_KIND);
        assert_eq!(of(AuditFinding::Doubled), 14);
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
