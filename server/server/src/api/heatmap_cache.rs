//! The heatmaps the server answered lately, kept so that a live page asking again every
//! few seconds costs what the run's log gained since, not the whole log: each one's
//! builder takes up where it stopped. A log replaced (a fleet run's merge put in place)
//! or rewritten (a file of the same name written anew) is noticed by its identity, its
//! length and the bytes before where the builder stopped, and read afresh. A few
//! heatmaps at most are kept (the least recently asked for goes), each the size of its
//! grid.

use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use keystorm_results::{HeatmapBuilder, HeatmapGrid, HeatmapLines};
use keystorm_types::OpKind;

use super::heatmap_filter::HeatmapFilter;

/// Heatmaps kept: a few viewers of a few runs. Each holds up to its column count × 71
/// counts: 0.7 MB at the 1,200 columns the run pages ask for, 4 MB at the API's
/// default 7,200, 11 MB at its most, 20,000.
const CAPACITY: usize = 8;

/// Bytes before the builder's stopping point compared to tell a log rewritten in place
/// from the log it read: the end of its last line, a compressed histogram's base64.
const FINGERPRINT: u64 = 64;

/// Which heatmap: one per run, operation, part of the run and column count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeatmapKey {
    pub run: String,
    pub op: OpKind,
    pub filter: HeatmapFilter,
    pub columns: u32,
}

/// The heatmaps kept, most recently asked for last.
#[derive(Default)]
pub struct HeatmapCache {
    entries: Mutex<Vec<(HeatmapKey, Arc<Mutex<CachedHeatmap>>)>>,
}

impl HeatmapCache {
    /// The heatmap `key` names, kept or new; the least recently asked for goes when
    /// there are too many. The list's lock is held only for this: reading the log
    /// happens under the heatmap's own lock, so two viewers of one heatmap read it once
    /// between them and viewers of others do not wait.
    pub fn entry(&self, key: HeatmapKey) -> Arc<Mutex<CachedHeatmap>> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let entry = match entries.iter().position(|(k, _)| *k == key) {
            Some(at) => entries.remove(at),
            None => {
                let heat = CachedHeatmap::new(key.columns as usize);
                (key, Arc::new(Mutex::new(heat)))
            }
        };
        let heat = entry.1.clone();
        entries.push(entry);
        if entries.len() > CAPACITY {
            entries.remove(0);
        }
        heat
    }

    /// Drops the heatmaps of `run` (a deleted run's).
    pub fn forget(&self, run: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|(k, _)| k.run != run);
    }
}

/// A heatmap and the log it read.
pub struct CachedHeatmap {
    builder: HeatmapBuilder,
    /// The log the builder read, as it was where the builder stopped; `None` before the
    /// first read or after one that failed.
    log: Option<LogMark>,
}

impl CachedHeatmap {
    fn new(columns: usize) -> CachedHeatmap {
        CachedHeatmap {
            builder: HeatmapBuilder::new(columns),
            log: None,
        }
    }

    /// Locks the heatmap; one left half-updated by a panic is started again.
    pub fn lock(heat: &Mutex<CachedHeatmap>) -> MutexGuard<'_, CachedHeatmap> {
        heat.lock().unwrap_or_else(|poisoned| {
            heat.clear_poison();
            let mut heat = poisoned.into_inner();
            heat.restart();
            heat
        })
    }

    fn restart(&mut self) {
        *self = CachedHeatmap::new(self.builder.max_columns());
    }

    /// The heatmap of the log at `path` as it is now, of the lines `wanted` accepts:
    /// what was read before plus what the log gained since, or all of it again if the
    /// log is not the one read before.
    pub fn refresh(
        &mut self,
        path: &Path,
        wanted: impl HeatmapLines,
    ) -> std::io::Result<Option<HeatmapGrid>> {
        let file = File::open(path)?;
        // Identity and contents from the file open here, which is the one read next.
        if !self
            .log
            .as_ref()
            .is_some_and(|mark| mark.still(&file, self.builder.consumed()))
        {
            self.restart();
        }
        self.log = None;
        self.builder.feed_file(file.try_clone()?, wanted)?;
        self.log = Some(LogMark::of(&file, self.builder.consumed())?);
        Ok(self.builder.grid())
    }
}

/// Which file a builder read, and the bytes just before where it stopped.
struct LogMark {
    dev: u64,
    ino: u64,
    tail: Vec<u8>,
}

impl LogMark {
    fn of(file: &File, consumed: u64) -> std::io::Result<LogMark> {
        let meta = file.metadata()?;
        Ok(LogMark {
            dev: meta.dev(),
            ino: meta.ino(),
            tail: tail(file, consumed)?,
        })
    }

    /// Whether `file` is the log marked and still holds what was read of it: the same
    /// file, no shorter, the same bytes before `consumed` (a file written anew under
    /// the same identity — a reused inode — differs there).
    fn still(&self, file: &File, consumed: u64) -> bool {
        let Ok(meta) = file.metadata() else {
            return false;
        };
        meta.dev() == self.dev
            && meta.ino() == self.ino
            && meta.len() >= consumed
            && tail(file, consumed).is_ok_and(|t| t == self.tail)
    }
}

/// Up to [`FINGERPRINT`] bytes of `file` before `end`.
fn tail(file: &File, end: u64) -> std::io::Result<Vec<u8>> {
    let start = end.saturating_sub(FINGERPRINT);
    let mut bytes = vec![0; (end - start) as usize];
    file.read_exact_at(&mut bytes, start)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::Histogram;
    use keystorm_results::{HlogWriter, heatmap};

    fn lines(from: u64, to: u64, us: u64) -> Vec<u8> {
        let mut writer = HlogWriter::default();
        let mut out = Vec::new();
        for second in from..to {
            let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
            h.record_n(us + second, 10 + second).unwrap();
            for op in ["put", "get"] {
                writer
                    .write(&mut out, &format!("round.1.w.{op}"), second as f64, 1.0, &h)
                    .unwrap();
            }
        }
        out
    }

    fn log(seconds: u64, us: u64) -> Vec<u8> {
        let mut out = Vec::new();
        HlogWriter::header(&mut out, 1000.0).unwrap();
        out.extend(lines(0, seconds, us));
        out
    }

    fn append(path: &Path, bytes: &[u8]) {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        file.write_all(bytes).unwrap();
    }

    fn key(run: &str) -> HeatmapKey {
        HeatmapKey {
            run: run.to_string(),
            op: OpKind::Put,
            filter: HeatmapFilter::default(),
            columns: 8,
        }
    }

    fn is_put(tag: &str) -> bool {
        HeatmapFilter::default().accepts(tag, OpKind::Put)
    }

    fn answer(cache: &HeatmapCache, path: &Path) -> Option<HeatmapGrid> {
        let heat = cache.entry(key("r"));
        let mut heat = CachedHeatmap::lock(&heat);
        heat.refresh(path, is_put).unwrap()
    }

    fn fresh(path: &Path) -> Option<HeatmapGrid> {
        heatmap(path, is_put, 8).unwrap()
    }

    #[test]
    fn a_growing_log_answers_from_where_it_stopped_as_a_fresh_read_would() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.hlog");
        std::fs::write(&path, log(5, 100)).unwrap();
        let cache = HeatmapCache::default();
        assert_eq!(answer(&cache, &path), fresh(&path));
        let consumed = |cache: &HeatmapCache| {
            let heat = cache.entry(key("r"));
            CachedHeatmap::lock(&heat).builder.consumed()
        };
        let first = consumed(&cache);
        // As a running run does: a few seconds more, and more again, past the columns.
        append(&path, &lines(5, 9, 100));
        assert_eq!(answer(&cache, &path), fresh(&path));
        assert!(consumed(&cache) > first);
        append(&path, &lines(9, 40, 100));
        let grid = answer(&cache, &path);
        assert_eq!(grid, fresh(&path));
        assert_eq!(grid.clone().unwrap().merged, 8);
        // What was read is not read again: a line already counted, changed in place far
        // before where the reading stopped, still counts as it was read.
        let text = std::fs::read(&path).unwrap();
        let at = text.windows(4).position(|w| w == b"put,").unwrap();
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .write_at(b"pux,", at as u64)
            .unwrap();
        let total =
            |g: &Option<HeatmapGrid>| g.as_ref().unwrap().counts.iter().flatten().sum::<u64>();
        assert_eq!(total(&answer(&cache, &path)), total(&grid));
        assert_eq!(total(&fresh(&path)), total(&grid) - 10);
    }

    #[test]
    fn a_log_replaced_or_rewritten_is_read_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.hlog");
        std::fs::write(&path, log(5, 100)).unwrap();
        let cache = HeatmapCache::default();
        let before = answer(&cache, &path);
        assert_eq!(before, fresh(&path));
        // Replaced: a longer log put in its place (a new file, so a new inode).
        let other = dir.path().join("merged.hlog");
        std::fs::write(&other, log(12, 5_000)).unwrap();
        std::fs::rename(&other, &path).unwrap();
        let replaced = answer(&cache, &path);
        assert_eq!(replaced, fresh(&path));
        assert_ne!(replaced, before);
        // Rewritten in place, same file, as long or longer: told by its bytes.
        std::fs::write(&path, log(13, 20_000)).unwrap();
        let rewritten = answer(&cache, &path);
        assert_eq!(rewritten, fresh(&path));
        assert_ne!(rewritten, replaced);
        // Cut shorter.
        std::fs::write(&path, log(2, 300)).unwrap();
        assert_eq!(answer(&cache, &path), fresh(&path));
        // Gone: an error, and the next answer reads the log anew.
        std::fs::remove_file(&path).unwrap();
        let heat = cache.entry(key("r"));
        assert!(CachedHeatmap::lock(&heat).refresh(&path, is_put).is_err());
        std::fs::write(&path, log(3, 100)).unwrap();
        assert_eq!(answer(&cache, &path), fresh(&path));
    }

    #[test]
    fn the_least_recently_asked_for_goes_beyond_a_few() {
        let cache = HeatmapCache::default();
        let first = cache.entry(key("0"));
        let others: Vec<_> = (1..CAPACITY)
            .map(|i| cache.entry(key(&i.to_string())))
            .collect();
        // Asked for again: kept, and now the most recent.
        assert!(Arc::ptr_eq(&first, &cache.entry(key("0"))));
        cache.entry(key("new"));
        assert!(Arc::ptr_eq(&first, &cache.entry(key("0"))));
        // "1" was the least recent: a new one now.
        assert!(!Arc::ptr_eq(&others[0], &cache.entry(key("1"))));
        assert_eq!(cache.entries.lock().unwrap().len(), CAPACITY);
        let columns = HeatmapKey {
            columns: 9,
            ..key("0")
        };
        assert!(!Arc::ptr_eq(&first, &cache.entry(columns)));
    }

    #[test]
    fn a_deleted_runs_heatmaps_go_and_no_others() {
        let cache = HeatmapCache::default();
        let kept = cache.entry(key("stays"));
        cache.entry(key("deleted"));
        cache.entry(HeatmapKey {
            columns: 3,
            ..key("deleted")
        });
        cache.forget("deleted");
        let runs: Vec<String> = cache
            .entries
            .lock()
            .unwrap()
            .iter()
            .map(|(k, _)| k.run.clone())
            .collect();
        assert_eq!(runs, ["stays"]);
        assert!(Arc::ptr_eq(&kept, &cache.entry(key("stays"))));
    }
}
