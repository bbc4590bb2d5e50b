//! Resuming a listing that stopped: a bucket of billions of keys takes hours to list,
//! and a crash, a reboot or Ctrl-C should not mean starting over.
//!
//! A checkpoint is what is left to list — each busy lister's range from just after the
//! last key it counted, the ranges waiting in the queue, how far the prefix cells got —
//! with the totals, the space report and the key file's length, all taken in one
//! consistent cut (listers hand in each page's count and key-file lines under the
//! queue's lock). Resuming cuts the key file back to that length and lists the rest:
//! every key is counted and written exactly once across the runs. The file is written
//! whole next to its final name and renamed over it, so a crash while writing leaves
//! the previous checkpoint.

use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::prefix_cells::CellsPosition;
use super::quiesce::ConsumerCut;
use super::range::KeyRange;
use super::{ListJob, ListMode};
use keystorm_results::space_report::SpaceReport;

/// The checkpoint format's version; a file of another version is refused.
const VERSION: u32 = 1;

/// Told after every periodic save.
pub type SaveHook = Arc<dyn Fn() + Send + Sync>;

/// Where and how often a listing saves its progress, and the progress it resumes from.
#[derive(Clone)]
pub struct Checkpointing {
    pub path: PathBuf,
    pub every: Duration,
    pub resume: Option<ListCheckpoint>,
    /// Called after each periodic save (a progress display, or a test that must see a
    /// save made while listers are busy).
    pub on_save: Option<SaveHook>,
    /// Keep the checkpoint of a completed listing (nothing left to list: resuming it
    /// gives the totals at once) instead of removing it; for a listing inside a
    /// workload's phase, whose checkpoint goes when the phase is done.
    pub keep_complete: bool,
    /// The consumer of the listed keys, cut together with the listing (a HEAD scan).
    /// The listing then saves only periodic, paused cuts; the consumer saves the last
    /// one itself once it has finished every key.
    pub consumer: Option<ConsumerCut>,
}

/// A listing's progress, as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListCheckpoint {
    pub version: u32,
    pub bucket: String,
    pub prefix: String,
    pub mode: ListMode,
    pub page_size: u32,
    pub report_depth: Option<u32>,
    /// Whether keys went to a key file, and how many bytes of it the totals account for.
    pub keys_file: bool,
    pub keys_file_bytes: u64,
    pub keys: u64,
    pub bytes: u64,
    pub requests: u64,
    pub errors: u64,
    pub ranges: u64,
    pub cuts: u64,
    /// Listing time before this checkpoint, over every run so far.
    pub seconds: f64,
    /// Unix seconds when the listing first started: the space report's ages count
    /// from there in every run.
    pub started_unix_s: u64,
    /// What is left to list: ranges being listed (from their position) and waiting.
    pub todo: Vec<KeyRange>,
    /// Prefix mode: the cells not handed out yet.
    pub cells: Option<CellsPosition>,
    pub report: Option<SpaceReport>,
    /// What the consumer of the listed keys had done at the cut (a scan's tally).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumer: Option<serde_json::Value>,
}

/// Why a checkpoint cannot be read or used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("cannot read the checkpoint {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a listing checkpoint: {message}")]
    Format { path: String, message: String },
    #[error("cannot write the checkpoint {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("key file {path}: {message}")]
    KeyFile { path: String, message: String },
    #[error("the checkpoint {path} is of another listing: {what}")]
    Mismatch { path: String, what: String },
}

impl ListCheckpoint {
    /// An empty checkpoint of `job`, to be filled from the listing's state.
    pub(crate) fn of(job: &ListJob, keys_file: bool, started_unix_s: u64) -> ListCheckpoint {
        ListCheckpoint {
            version: VERSION,
            bucket: job.bucket.clone(),
            prefix: job.prefix.clone(),
            mode: job.mode.clone(),
            page_size: job.page_size,
            report_depth: job.report_depth,
            keys_file,
            keys_file_bytes: 0,
            keys: 0,
            bytes: 0,
            requests: 0,
            errors: 0,
            ranges: 0,
            cuts: 0,
            seconds: 0.0,
            started_unix_s,
            todo: Vec::new(),
            cells: None,
            report: None,
            consumer: None,
        }
    }

    /// The checkpoint of `job` listed completely, as `outcome` says: nothing left to
    /// list, so resuming it gives the totals at once.
    pub fn completed(
        job: &ListJob,
        outcome: &super::ListOutcome,
        started_unix_s: u64,
        consumer: Option<serde_json::Value>,
    ) -> ListCheckpoint {
        ListCheckpoint {
            keys: outcome.keys,
            bytes: outcome.bytes,
            requests: outcome.requests,
            errors: outcome.errors,
            ranges: outcome.ranges,
            cuts: outcome.cuts,
            seconds: outcome.seconds,
            report: outcome.report.clone(),
            consumer,
            ..ListCheckpoint::of(job, false, started_unix_s)
        }
    }

    /// Reads the checkpoint at `path`; `Ok(None)` if there is no file.
    pub fn read(path: &Path) -> Result<Option<ListCheckpoint>, CheckpointError> {
        let name = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(CheckpointError::Read { path: name, source }),
        };
        let checkpoint: ListCheckpoint =
            serde_json::from_str(&text).map_err(|e| CheckpointError::Format {
                path: name.clone(),
                message: e.to_string(),
            })?;
        if checkpoint.version != VERSION {
            return Err(CheckpointError::Format {
                path: name,
                message: format!(
                    "version {} (this keystorm reads version {VERSION})",
                    checkpoint.version
                ),
            });
        }
        Ok(Some(checkpoint))
    }

    /// Writes the checkpoint to `path` atomically: whole to a temporary file next to
    /// it, synced, then renamed over it.
    pub fn write(&self, path: &Path) -> Result<(), CheckpointError> {
        let fail = |source| CheckpointError::Write {
            path: path.display().to_string(),
            source,
        };
        let mut temp = path.as_os_str().to_owned();
        temp.push(".tmp");
        let temp = PathBuf::from(temp);
        let text = serde_json::to_vec(self).map_err(|e| fail(std::io::Error::other(e)))?;
        let mut file = std::fs::File::create(&temp).map_err(fail)?;
        std::io::Write::write_all(&mut file, &text).map_err(fail)?;
        file.sync_all().map_err(fail)?;
        std::fs::rename(&temp, path).map_err(fail)
    }

    /// Opens the key file of the listing this checkpoint resumes, cut back to the length
    /// the checkpoint accounts for (lines written after it are listed again), for
    /// writing at its end.
    pub fn reopen_key_file(&self, path: &Path) -> Result<std::fs::File, CheckpointError> {
        let fail = |message: String| CheckpointError::KeyFile {
            path: path.display().to_string(),
            message,
        };
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| fail(format!("cannot open it to resume: {e}")))?;
        let held = file.metadata().map_err(|e| fail(e.to_string()))?.len();
        if held < self.keys_file_bytes {
            return Err(fail(format!(
                "it holds {held} bytes, fewer than the {} the checkpoint accounts for: not the key file of this listing",
                self.keys_file_bytes
            )));
        }
        file.set_len(self.keys_file_bytes)
            .map_err(|e| fail(e.to_string()))?;
        file.seek(SeekFrom::End(0))
            .map_err(|e| fail(e.to_string()))?;
        Ok(file)
    }

    /// Checks that this checkpoint was taken of `job` (the same bucket, prefix, mode,
    /// page size and report) with a key file or without as `keys_file` says.
    pub fn check_matches(
        &self,
        job: &ListJob,
        keys_file: bool,
        path: &Path,
    ) -> Result<(), CheckpointError> {
        let differs = |what: String| CheckpointError::Mismatch {
            path: path.display().to_string(),
            what,
        };
        if self.bucket != job.bucket {
            return Err(differs(format!("it lists bucket {:?}", self.bucket)));
        }
        if self.prefix != job.prefix {
            return Err(differs(format!("it lists prefix {:?}", self.prefix)));
        }
        if self.mode != job.mode {
            return Err(differs(format!(
                "it lists in {} mode with other settings ({:?})",
                self.mode.name(),
                self.mode
            )));
        }
        if self.page_size != job.page_size {
            return Err(differs(format!("its page size is {}", self.page_size)));
        }
        if self.report_depth != job.report_depth {
            return Err(differs(match self.report_depth {
                Some(d) => format!("it makes a space report at depth {d}"),
                None => "it makes no space report".into(),
            }));
        }
        if self.keys_file != keys_file {
            return Err(differs(if self.keys_file {
                "it writes a key file: give the same --keys".into()
            } else {
                "it writes no key file".into()
            }));
        }
        Ok(())
    }
}
