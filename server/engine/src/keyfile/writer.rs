//! Writing a key file from keys in any order: a bounded buffer sorted into runs on disk,
//! the runs merged (a few dozen at a time, in passes when there are more) into
//! front-coded blocks (LZ4-compressed where that saves enough), then the index (kept in a file of its own until the blocks
//! are written) and the footer. Memory is the buffer and one read-ahead per run merged,
//! whatever the key count. The file appears under its name
//! only once complete (written beside it, then renamed); a key listed twice is kept
//! once.
//!
//! A resumable writer keeps its runs in a folder beside the file (`FILE.keys.runs/`)
//! rather than a temporary one: a listing's checkpoint saves the buffer as a run and
//! records how many runs there are ([`KeysCut`]), and a resume after a crash takes
//! those runs and drops whatever came after them. Merge passes of a resumable writer
//! leave their input runs in place until the file is complete, so a crash while
//! merging still finds the runs of the cut.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use super::entry::KeyEntry;
use super::error::KeyFileError;
use super::format::{ENTRIES_PER_BLOCK, MAGIC, VERSION, block_bytes, put_entry};
use super::runs::{Run, RunBuffer, write_sorted};

/// Bytes of keys buffered before they are sorted into a run.
const RUN_BYTES: usize = 8 << 20;
/// Runs merged at once (each with its read-ahead); more are merged in passes.
const FAN_IN: usize = 64;

/// A key file being written.
pub struct KeyFileWriter {
    path: PathBuf,
    /// Holds the runs; removed with them.
    spill: Spill,
    buffer: RunBuffer,
    runs: Vec<PathBuf>,
    /// Run files made so far (their names).
    made: usize,
    /// Bytes buffered before a run is written.
    run_bytes: usize,
    /// The format version the file is written in.
    version: u32,
    /// Entries in every block but the last.
    per_block: u32,
}

/// Where a writer keeps its runs.
enum Spill {
    /// A temporary folder, gone with the writer.
    Temporary(tempfile::TempDir),
    /// The folder beside the key file of a resumable writer, removed once the file is
    /// complete.
    Kept(PathBuf),
}

impl Spill {
    fn path(&self) -> &Path {
        match self {
            Spill::Temporary(t) => t.path(),
            Spill::Kept(p) => p,
        }
    }
}

/// How far a resumable writer got at a checkpoint: its first `runs` run files hold
/// every key it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KeysCut {
    pub runs: usize,
}

/// The folder a resumable writer of `path` keeps its runs in.
pub fn runs_dir(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".runs");
    path.with_file_name(name)
}

/// What was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub keys: u64,
    pub bytes: u64,
    /// Keys given more than once, kept once.
    pub repeated: u64,
    /// The sizes of the objects kept, added up (each key once).
    pub object_bytes: u64,
}

impl KeyFileWriter {
    /// A key file to be written at `path`, its sorted runs in a folder under `spill_in`.
    pub fn create(path: &Path, spill_in: &Path) -> Result<KeyFileWriter, KeyFileError> {
        Self::with_run_bytes(path, spill_in, RUN_BYTES)
    }

    /// A writer whose runs hold `run_bytes` (small ones make many runs, for tests).
    pub(super) fn with_run_bytes(
        path: &Path,
        spill_in: &Path,
        run_bytes: usize,
    ) -> Result<KeyFileWriter, KeyFileError> {
        let spill = tempfile::Builder::new()
            .prefix("keystorm-keys-")
            .tempdir_in(spill_in)
            .map_err(|e| KeyFileError::io(spill_in, e))?;
        Ok(KeyFileWriter {
            path: path.to_path_buf(),
            spill: Spill::Temporary(spill),
            buffer: RunBuffer::default(),
            runs: Vec::new(),
            made: 0,
            run_bytes,
            version: VERSION,
            per_block: ENTRIES_PER_BLOCK,
        })
    }

    /// A resumable writer of `path`, its runs in [`runs_dir`]: from the runs of `cut`
    /// (the rest of the folder dropped), or from nothing. `None` when the runs of the cut
    /// are not all there (the listing must start over).
    pub fn resumable(
        path: &Path,
        cut: Option<&KeysCut>,
    ) -> Result<Option<KeyFileWriter>, KeyFileError> {
        let dir = runs_dir(path);
        let io = |e| KeyFileError::io(&dir, e);
        let keep = cut.map_or(0, |c| c.runs);
        let name = |n: usize| format!("run-{n}");
        let runs: Vec<PathBuf> = (1..=keep).map(|n| dir.join(name(n))).collect();
        if runs.iter().any(|r| !r.is_file()) {
            return Ok(None);
        }
        std::fs::create_dir_all(&dir).map_err(io)?;
        for entry in std::fs::read_dir(&dir).map_err(io)? {
            let entry = entry.map_err(io)?;
            if !runs.contains(&entry.path()) {
                std::fs::remove_file(entry.path()).map_err(io)?;
            }
        }
        Ok(Some(KeyFileWriter {
            path: path.to_path_buf(),
            spill: Spill::Kept(dir),
            buffer: RunBuffer::default(),
            runs,
            made: keep,
            run_bytes: RUN_BYTES,
            version: VERSION,
            per_block: ENTRIES_PER_BLOCK,
        }))
    }

    /// This writer writing format `version` (an older one, for tests that read it).
    #[cfg(test)]
    pub(super) fn writing_version(mut self, version: u32) -> KeyFileWriter {
        self.version = version;
        self
    }

    /// This writer writing blocks of `per_block` entries (another size than its own,
    /// for tests that read files written so).
    #[cfg(test)]
    pub(super) fn writing_blocks_of(mut self, per_block: u32) -> KeyFileWriter {
        self.per_block = per_block;
        self
    }

    /// Saves what is buffered as a run (a resumable writer's checkpoint): every key
    /// given so far is in the runs of the cut.
    pub fn cut(&mut self) -> Result<KeysCut, KeyFileError> {
        if !self.buffer.is_empty() {
            self.spill_run()?;
        }
        Ok(KeysCut { runs: self.made })
    }

    pub fn push(&mut self, entry: KeyEntry) -> Result<(), KeyFileError> {
        self.buffer.push(&entry);
        if self.buffer.bytes() >= self.run_bytes {
            self.spill_run()?;
        }
        Ok(())
    }

    fn next_run(&mut self) -> PathBuf {
        self.made += 1;
        self.spill.path().join(format!("run-{}", self.made))
    }

    fn spill_run(&mut self) -> Result<(), KeyFileError> {
        let path = self.next_run();
        self.buffer
            .write_run(&path)
            .map_err(|e| KeyFileError::io(&path, e))?;
        self.runs.push(path);
        Ok(())
    }

    /// Merges runs a group at a time until few enough are left to merge at once.
    fn merge_passes(&mut self) -> Result<(), KeyFileError> {
        while self.runs.len() > FAN_IN {
            let runs = std::mem::take(&mut self.runs);
            for group in runs.chunks(FAN_IN) {
                let path = self.next_run();
                let mut merge = Merge::open(group)?;
                write_sorted(&path, std::iter::from_fn(|| merge.next().transpose()))
                    .map_err(|e| KeyFileError::io(&path, e))?;
                // A resumable writer's cut names the runs it merges: they stay until
                // the file is complete.
                if let Spill::Temporary(_) = self.spill {
                    for run in group {
                        let _ = std::fs::remove_file(run);
                    }
                }
                self.runs.push(path);
            }
        }
        Ok(())
    }

    /// Merges the runs into the key file and puts it in place.
    pub fn finish(mut self) -> Result<Written, KeyFileError> {
        if !self.buffer.is_empty() || self.runs.is_empty() {
            self.spill_run()?;
        }
        self.merge_passes()?;
        let partial = partial_path(&self.path);
        let io = |e| KeyFileError::io(&partial, e);
        let file = File::create(&partial).map_err(io)?;
        let index = tempfile::tempfile_in(self.spill.path()).map_err(io)?;
        let mut out = Blocks::new(file, index, self.version, self.per_block).map_err(io)?;
        let mut merge = Merge::open(&self.runs)?;
        let mut repeated = 0;
        let mut object_bytes = 0u64;
        let mut last: Option<String> = None;
        while let Some(entry) = merge.next().map_err(io)? {
            if last.as_deref() == Some(entry.key.as_str()) {
                repeated += 1;
                continue;
            }
            object_bytes = object_bytes.saturating_add(entry.size);
            out.push(&entry).map_err(io)?;
            last = Some(entry.key);
        }
        let (keys, bytes) = out.finish().map_err(io)?;
        std::fs::rename(&partial, &self.path).map_err(|e| KeyFileError::io(&self.path, e))?;
        if let Spill::Kept(dir) = &self.spill {
            std::fs::remove_dir_all(dir).map_err(|e| KeyFileError::io(dir, e))?;
        }
        Ok(Written {
            keys,
            bytes,
            repeated,
            object_bytes,
        })
    }
}

/// Sorted runs read together in key order.
struct Merge {
    runs: Vec<Run>,
    heap: BinaryHeap<Reverse<Head>>,
}

impl Merge {
    fn open(paths: &[PathBuf]) -> Result<Merge, KeyFileError> {
        let mut merge = Merge {
            runs: Vec::with_capacity(paths.len()),
            heap: BinaryHeap::with_capacity(paths.len()),
        };
        for (n, path) in paths.iter().enumerate() {
            let mut run = Run::open(path).map_err(|e| KeyFileError::io(path, e))?;
            if let Some(entry) = run.next_entry().map_err(|e| KeyFileError::io(path, e))? {
                merge.heap.push(Reverse(Head { entry, run: n }));
            }
            merge.runs.push(run);
        }
        Ok(merge)
    }

    /// The next entry of all the runs, in key order.
    fn next(&mut self) -> std::io::Result<Option<KeyEntry>> {
        let Some(Reverse(Head { entry, run })) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(next) = self.runs[run].next_entry()? {
            self.heap.push(Reverse(Head { entry: next, run }));
        }
        Ok(Some(entry))
    }
}

/// A run's next entry in the merge, ordered by key (then run, for a total order).
struct Head {
    entry: KeyEntry,
    run: usize,
}

impl PartialEq for Head {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.entry.key, self.run).cmp(&(&other.entry.key, other.run))
    }
}

/// Where a key file is written before it is complete.
fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

/// Entries cut into blocks, compressed where it pays and written, with the index kept in a file of
/// its own for the end (not in memory: it grows with the keys).
struct Blocks {
    out: BufWriter<File>,
    version: u32,
    per_block: u32,
    offset: u64,
    raw: Vec<u8>,
    previous: String,
    in_block: u32,
    keys: u64,
    index: BufWriter<File>,
    blocks: u64,
}

impl Blocks {
    fn new(file: File, index: File, version: u32, per_block: u32) -> std::io::Result<Blocks> {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(MAGIC)?;
        out.write_all(&version.to_le_bytes())?;
        out.write_all(&per_block.to_le_bytes())?;
        Ok(Blocks {
            out,
            version,
            per_block,
            offset: super::format::HEADER_LEN,
            raw: Vec::new(),
            previous: String::new(),
            in_block: 0,
            keys: 0,
            index: BufWriter::with_capacity(64 << 10, index),
            blocks: 0,
        })
    }

    fn push(&mut self, entry: &KeyEntry) -> std::io::Result<()> {
        put_entry(&mut self.raw, self.previous.as_bytes(), entry, self.version);
        self.previous.clear();
        self.previous.push_str(&entry.key);
        self.in_block += 1;
        self.keys += 1;
        if self.in_block == self.per_block {
            self.block()?;
        }
        Ok(())
    }

    fn block(&mut self) -> std::io::Result<()> {
        let bytes = block_bytes(&self.raw, self.version);
        self.out.write_all(&bytes)?;
        self.index.write_all(&self.offset.to_le_bytes())?;
        self.index.write_all(&(bytes.len() as u32).to_le_bytes())?;
        self.blocks += 1;
        self.offset += bytes.len() as u64;
        self.raw.clear();
        self.previous.clear();
        self.in_block = 0;
        Ok(())
    }

    /// Writes the last block, the index and the footer; the keys and the file's bytes.
    fn finish(mut self) -> std::io::Result<(u64, u64)> {
        if self.in_block > 0 {
            self.block()?;
        }
        let blocks = self.blocks;
        let index_offset = self.offset;
        let mut index = self
            .index
            .into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        index.rewind()?;
        let index_len = std::io::copy(&mut index, &mut self.out)?;
        if index_len != blocks * super::format::INDEX_ENTRY_LEN {
            return Err(std::io::Error::other("the index was not written whole"));
        }
        self.out.write_all(&index_offset.to_le_bytes())?;
        self.out.write_all(&blocks.to_le_bytes())?;
        self.out.write_all(&self.keys.to_le_bytes())?;
        self.out.write_all(MAGIC)?;
        let file = self
            .out
            .into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        file.sync_all()?;
        let bytes = index_offset + index_len + super::format::FOOTER_LEN;
        Ok((self.keys, bytes))
    }
}
