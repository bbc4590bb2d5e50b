//! `keystorm diff A B`: two listings — two buckets, two prefixes, two endpoints, or a
//! bucket and a saved key file — compared key by key, in memory that does not grow with
//! either. Both sides are fed at once (each listing in any mode, in parallel) into one
//! [`Comparer`], A as the expected side and B as the listed one, so the diff and the
//! audit share their comparison: keys only in A, only in B, in both with another size
//! or ETag, and keys a side holds more than once.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::{Comparer, Found, FoundKind};
use crate::listing::{self, ListError, ListJob, ListOutcome, ListOutputs, PageObserver};
use keystorm_s3::S3Client;
use keystorm_types::ListEntry;

/// Listed entries waiting to be spilled, per side.
const QUEUE: usize = 4096;

/// One side of a diff.
#[derive(Clone)]
pub enum DiffSource {
    /// A bucket listed by `job`; keys are compared without the job's prefix.
    Listing { client: S3Client, job: ListJob },
    /// A key file as `keystorm list --keys` writes it (JSON lines with `key`, `size`
    /// and `etag`); keys that start with `strip` are compared without it.
    KeyFile { path: PathBuf, strip: String },
}

/// Which side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    A,
    B,
}

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// A key file that cannot be read as one: bad input.
    #[error("{0}")]
    KeyFile(String),
    #[error("listing {side:?}: {source}")]
    List {
        side: Side,
        #[source]
        source: ListError,
    },
    #[error("cannot spill the comparison to {dir}: {source}")]
    Spill {
        dir: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write a difference: {0}")]
    Output(std::io::Error),
}

/// How a key differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    OnlyA,
    OnlyB,
    /// In both, with other sizes.
    Size,
    /// In both, same size, other ETags.
    Etag,
    /// Listed more than once in A.
    DoubledA,
    /// Listed more than once in B.
    DoubledB,
}

/// What one side says of a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Object {
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
}

/// One key that differs (a line of `--out`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub key: String,
    pub change: Change,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a: Option<Object>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<Object>,
    /// Times the key was listed, for a doubled key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

/// Exact counts of a diff.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DiffCounts {
    /// Distinct keys of each side.
    pub keys_a: u64,
    pub keys_b: u64,
    pub only_a: u64,
    pub only_b: u64,
    pub size_changed: u64,
    pub etag_changed: u64,
    pub doubled_a: u64,
    pub doubled_b: u64,
    /// In both, with the same size (and ETag, when compared).
    pub same: u64,
}

impl DiffCounts {
    pub fn equal(&self) -> bool {
        self.only_a == 0
            && self.only_b == 0
            && self.size_changed == 0
            && self.etag_changed == 0
            && self.doubled_a == 0
            && self.doubled_b == 0
    }

    fn count(&mut self, change: Change) {
        match change {
            Change::OnlyA => self.only_a += 1,
            Change::OnlyB => self.only_b += 1,
            Change::Size => self.size_changed += 1,
            Change::Etag => self.etag_changed += 1,
            Change::DoubledA => self.doubled_a += 1,
            Change::DoubledB => self.doubled_b += 1,
        }
    }
}

/// How each side was read.
#[derive(Debug, Clone, Serialize)]
pub struct SideOutcome {
    /// Entries read (a listing's keys, a key file's lines).
    pub entries: u64,
    pub seconds: f64,
    /// The listing, when the side is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listing: Option<ListOutcome>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffOutcome {
    pub a: SideOutcome,
    pub b: SideOutcome,
    pub counts: DiffCounts,
    pub compare_seconds: f64,
    /// A stop (Ctrl-C) cut a listing short: the counts are not a comparison.
    pub stopped: bool,
}

/// Told of every key that differs (to write it out, or to keep the first few).
pub type OnDifference = Box<dyn FnMut(&Difference) -> std::io::Result<()> + Send>;

/// What the diff compares and how.
pub struct DiffJob {
    pub a: DiffSource,
    pub b: DiffSource,
    /// Compare ETags where both sides have one (sizes are always compared).
    pub etags: bool,
    /// Where the comparison spills (a folder of its own is made inside).
    pub spill_in: PathBuf,
    /// Keys of A a partition may hold to be compared in memory.
    pub budget: u64,
}

/// Compares the two sides; `on` is told of every key that differs.
pub async fn diff(
    job: DiffJob,
    observers: [Arc<dyn PageObserver>; 2],
    mut on: OnDifference,
    stop: CancellationToken,
) -> Result<DiffOutcome, DiffError> {
    let spill = spilling(&job.spill_in);
    let holder = tempfile::Builder::new()
        .prefix("keystorm-diff-")
        .tempdir_in(&job.spill_in)
        .map_err(spill)?;
    let comparer = Comparer::create(&holder.path().join("compare"), job.budget).map_err(spill)?;
    let comparer = Arc::new(Mutex::new(comparer));
    let [observe_a, observe_b] = observers;
    let (a, b) = tokio::join!(
        feed(&job.a, Side::A, &job, &comparer, observe_a, &stop),
        feed(&job.b, Side::B, &job, &comparer, observe_b, &stop),
    );
    let (a, b) = (a?, b?);
    let stopped = stop.is_cancelled()
        || [&a, &b]
            .iter()
            .any(|s| s.listing.as_ref().is_some_and(|l| !l.complete));
    let comparer = Arc::try_unwrap(comparer)
        .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .map_err(|_| spill(std::io::Error::other("a side still holds the comparer")))?;
    if stopped {
        return Ok(DiffOutcome {
            a,
            b,
            counts: DiffCounts::default(),
            compare_seconds: 0.0,
            stopped,
        });
    }
    let started = Instant::now();
    let spill_in = job.spill_in.clone();
    let compared = tokio::task::spawn_blocking(move || {
        let mut counts = DiffCounts::default();
        // Listings of B beyond the first of a key.
        let mut repeats_b = 0u64;
        let mut failed = None;
        let sides = comparer.compare(&mut |found| {
            let d = difference(found);
            counts.count(d.change);
            if let (Change::DoubledB, Some(n)) = (d.change, d.times) {
                repeats_b += u64::from(n) - 1;
            }
            on(&d).map_err(|e| {
                failed = Some(e);
                std::io::Error::other("the output failed")
            })
        });
        match (sides, failed) {
            (_, Some(e)) => Err(DiffError::Output(e)),
            (Err(e), None) => Err(spilling(&spill_in)(e)),
            (Ok(sides), None) => {
                counts.keys_a = sides.expected;
                counts.keys_b = sides.listed - repeats_b;
                Ok(counts)
            }
        }
    })
    .await
    .map_err(|e| {
        spill(std::io::Error::other(format!(
            "the comparison stopped: {e}"
        )))
    })?;
    let mut counts = compared?;
    counts.same = counts.keys_a - counts.only_a - counts.size_changed - counts.etag_changed;
    drop(holder);
    Ok(DiffOutcome {
        a,
        b,
        counts,
        compare_seconds: started.elapsed().as_secs_f64(),
        stopped: false,
    })
}

/// The error of spilling into the folder `dir`.
fn spilling(dir: &Path) -> impl Fn(std::io::Error) -> DiffError + Copy + '_ {
    move |source| DiffError::Spill {
        dir: dir.display().to_string(),
        source,
    }
}

/// The difference a comparer found, in the diff's words (A expected, B listed).
fn difference(f: &Found<'_>) -> Difference {
    let object = |s: Option<super::Seen<'_>>| {
        s.map(|s| Object {
            size: s.size,
            etag: (!s.tag.is_empty()).then(|| String::from_utf8_lossy(s.tag).into_owned()),
        })
    };
    let (change, times) = match f.kind {
        FoundKind::Missing => (Change::OnlyA, None),
        FoundKind::Extra => (Change::OnlyB, None),
        FoundKind::SizeMismatch => (Change::Size, None),
        FoundKind::TagMismatch => (Change::Etag, None),
        FoundKind::Doubled(n) => (Change::DoubledB, Some(n)),
        FoundKind::DoubledExpected(n) => (Change::DoubledA, Some(n)),
    };
    Difference {
        key: String::from_utf8_lossy(f.key).into_owned(),
        change,
        a: object(f.expected),
        b: object(f.listed),
        times,
    }
}

/// Feeds one side into the comparer: a listing through a queue, or a key file line by
/// line.
async fn feed(
    source: &DiffSource,
    side: Side,
    job: &DiffJob,
    comparer: &Arc<Mutex<Comparer>>,
    observer: Arc<dyn PageObserver>,
    stop: &CancellationToken,
) -> Result<SideOutcome, DiffError> {
    let started = Instant::now();
    let etags = job.etags;
    match source {
        DiffSource::Listing { client, job: list } => {
            let (tx, rx) = tokio::sync::mpsc::channel::<ListEntry>(QUEUE);
            let consumer = {
                let (comparer, prefix) = (comparer.clone(), list.prefix.clone());
                tokio::task::spawn_blocking(move || consume(rx, &comparer, side, etags, &prefix))
            };
            let outputs = ListOutputs {
                entries: Some(tx),
                ..ListOutputs::default()
            };
            let listed = listing::list(client, list, observer, outputs, stop.clone()).await;
            let consumed = consumer.await.unwrap_or_else(|e| {
                Err(std::io::Error::other(format!("the consumer stopped: {e}")))
            });
            let listing = listed.map_err(|source| DiffError::List { side, source })?;
            let entries = consumed.map_err(spilling(&job.spill_in))?;
            Ok(SideOutcome {
                entries,
                seconds: listing.seconds,
                listing: Some(listing),
            })
        }
        DiffSource::KeyFile { path, strip } => {
            let (comparer, path2, strip) = (comparer.clone(), path.clone(), strip.clone());
            let spill_in = job.spill_in.clone();
            let stop = stop.clone();
            let entries = tokio::task::spawn_blocking(move || {
                let to = FileSide {
                    strip: &strip,
                    comparer: &comparer,
                    side,
                    etags,
                    stop: &stop,
                    spill_in: &spill_in,
                };
                read_key_file(&path2, &to)
            })
            .await
            .map_err(|e| DiffError::KeyFile(format!("{}: {e}", path.display())))??;
            Ok(SideOutcome {
                entries,
                seconds: started.elapsed().as_secs_f64(),
                listing: None,
            })
        }
    }
}

/// Puts one entry on its side.
fn put(
    c: &mut Comparer,
    side: Side,
    key: &str,
    size: u64,
    etag: Option<&str>,
) -> std::io::Result<()> {
    let tag = etag.map_or("", |e| e.trim().trim_matches('"'));
    match side {
        Side::A => c.expect_tagged(key, size, tag),
        Side::B => c.listed_tagged(key, size, tag),
    }
}

/// Spills every listed entry of one side until its listing ends; how many.
fn consume(
    mut rx: tokio::sync::mpsc::Receiver<ListEntry>,
    comparer: &Mutex<Comparer>,
    side: Side,
    etags: bool,
    prefix: &str,
) -> std::io::Result<u64> {
    let mut n = 0;
    let one = |c: &mut Comparer, e: &ListEntry| {
        let key = e.key.strip_prefix(prefix).unwrap_or(&e.key);
        put(c, side, key, e.size, e.etag.as_deref().filter(|_| etags))
    };
    while let Some(entry) = rx.blocking_recv() {
        let mut c = comparer.lock().unwrap_or_else(|p| p.into_inner());
        one(&mut c, &entry)?;
        n += 1;
        while let Ok(entry) = rx.try_recv() {
            one(&mut c, &entry)?;
            n += 1;
        }
    }
    Ok(n)
}

/// Where a saved listing's keys go: one side of the comparer, without `strip`.
struct FileSide<'a> {
    strip: &'a str,
    comparer: &'a Mutex<Comparer>,
    side: Side,
    etags: bool,
    stop: &'a CancellationToken,
    /// Where the comparer spills (for its errors).
    spill_in: &'a Path,
}

/// Feeds a key file (`keystorm list --keys FILE.keys`) to one side, a block at a time.
fn read_keys_file(path: &Path, to: &FileSide<'_>) -> Result<u64, DiffError> {
    let file =
        crate::keyfile::KeyFile::open(path).map_err(|e| DiffError::KeyFile(e.to_string()))?;
    let mut cursor = file
        .cursor()
        .map_err(|e| DiffError::KeyFile(e.to_string()))?;
    let spill = spilling(to.spill_in);
    let mut c = to.comparer.lock().unwrap_or_else(|p| p.into_inner());
    for i in 0..file.keys() {
        let Some(e) = cursor
            .get(i)
            .map_err(|e| DiffError::KeyFile(e.to_string()))?
        else {
            break;
        };
        let key = e.key.strip_prefix(to.strip).unwrap_or(&e.key);
        put(
            &mut c,
            to.side,
            key,
            e.size,
            e.etag.as_deref().filter(|_| to.etags),
        )
        .map_err(spill)?;
        if i % 4096 == 4095 {
            // Let the other side's feeder in, and stop when asked.
            drop(c);
            if to.stop.is_cancelled() {
                return Ok(i + 1);
            }
            c = to.comparer.lock().unwrap_or_else(|p| p.into_inner());
        }
    }
    Ok(file.keys())
}

/// A line of a key file.
#[derive(Deserialize)]
struct KeyLine {
    key: String,
    size: u64,
    #[serde(default)]
    etag: Option<String>,
}

/// Lines of a key file spilled to the comparer at a time.
const BATCH: usize = 1024;

/// Feeds a saved listing to one side: a key file, or JSON lines.
fn read_key_file(path: &Path, to: &FileSide<'_>) -> Result<u64, DiffError> {
    if crate::keyfile::KeyFile::is_one(path) {
        return read_keys_file(path, to);
    }
    let FileSide {
        strip,
        comparer,
        side,
        etags,
        stop,
        spill_in,
    } = *to;
    let bad = |what: String| DiffError::KeyFile(format!("{}: {what}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| bad(format!("cannot open it: {e}")))?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut batch: Vec<KeyLine> = Vec::with_capacity(BATCH);
    let mut n = 0u64;
    let flush = |batch: &mut Vec<KeyLine>| -> Result<(), DiffError> {
        let mut c = comparer.lock().unwrap_or_else(|p| p.into_inner());
        for l in batch.drain(..) {
            let key = l.key.strip_prefix(strip).unwrap_or(&l.key);
            put(
                &mut c,
                side,
                key,
                l.size,
                l.etag.as_deref().filter(|_| etags),
            )
            .map_err(spilling(spill_in))?;
        }
        Ok(())
    };
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| bad(format!("line {}: {e}", i + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: KeyLine = serde_json::from_str(&line).map_err(|e| {
            bad(format!(
                "line {}: not a key line (JSON with `key` and `size`, as `keystorm list --keys` writes them): {e}",
                i + 1
            ))
        })?;
        batch.push(parsed);
        n += 1;
        if batch.len() == BATCH {
            flush(&mut batch)?;
            if stop.is_cancelled() {
                return Ok(n);
            }
        }
    }
    flush(&mut batch)?;
    Ok(n)
}
