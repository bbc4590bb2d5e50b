//! The controller's copies of the shards' folders, written as the agents send them and
//! within its caps: a file at most `PartCaps::file` bytes, the copies of one run's
//! shard folders together at most `PartCaps::run`. A write past a cap writes nothing
//! — a piece of a log is refused whole, a whole file is never put in place — so the
//! copy stays as it was, whole lines a takeover can resume from. The run's total is
//! counted from disk once (at its first write after the controller started, or after a
//! write failed) and kept with every write, under one lock, so two writes never both
//! take the last room. Memory: one number.

use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::MutexGuard;
use std::sync::atomic::{AtomicU64, Ordering};

use super::caps::Ledger;
use super::error::FleetError;
use super::state::Fleet;

/// Numbers the uploads of this process, so two at once never share a file.
static UPLOADS: AtomicU64 = AtomicU64::new(0);

/// A whole file of a part being received: written to `temporary`, then put in place by
/// [`Fleet::finish_part_upload`]. Dropped unfinished, its temporary file goes.
pub struct PartUpload {
    pub temporary: PathBuf,
    /// The most bytes the file may have.
    pub cap: u64,
    agent: String,
    run_id: String,
    local: String,
    name: String,
    finished: bool,
}

impl PartUpload {
    /// The refusal of an upload past the cap of a file (`received` bytes so far).
    pub fn over_cap(&self, received: u64) -> FleetError {
        FleetError::FileOverCap {
            file: self.name.clone(),
            local: self.local.clone(),
            size: received,
            cap: self.cap,
        }
    }
}

impl Drop for PartUpload {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

impl Fleet {
    /// Writes `piece` at `at` of file `name` of the copy of `agent`'s shard folder
    /// `local`; the file then ends after it. Refused if the copy holds less than `at`,
    /// or if the file or the run's copies would pass their cap. Blocking.
    pub fn write_part_piece(
        &self,
        agent: &str,
        run_id: &str,
        local: &str,
        name: &str,
        at: u64,
        piece: &[u8],
    ) -> Result<(), FleetError> {
        let path = self.part_file(agent, run_id, local, name)?;
        let mut ledger = self.ledger();
        let total = self.run_bytes(&mut ledger, run_id);
        let have = length_of(&path);
        if at > have {
            return Err(FleetError::PartBehind {
                file: name.to_string(),
                have,
            });
        }
        let length = at + piece.len() as u64;
        let after = total.saturating_sub(have) + length;
        self.within_caps(run_id, local, name, length, after)?;
        let written = write_at(&path, at, piece);
        ledger.bytes = written.is_ok().then_some(after);
        written
    }

    /// Starts receiving a whole file `name` of the copy of `agent`'s shard folder
    /// `local`, refused at once if it says it is larger than a file may be.
    pub fn begin_part_upload(
        &self,
        agent: &str,
        run_id: &str,
        local: &str,
        name: &str,
        declared: Option<u64>,
    ) -> Result<PartUpload, FleetError> {
        self.part_file(agent, run_id, local, name)?;
        let uploads = self.uploads_of(run_id);
        std::fs::create_dir_all(&uploads).map_err(|e| cannot_write(&uploads, e))?;
        let number = UPLOADS.fetch_add(1, Ordering::Relaxed);
        let upload = PartUpload {
            temporary: uploads.join(format!("{number}.partial")),
            cap: self.caps.file,
            agent: agent.to_string(),
            run_id: run_id.to_string(),
            local: local.to_string(),
            name: name.to_string(),
            finished: false,
        };
        match declared {
            Some(size) if size > upload.cap => Err(upload.over_cap(size)),
            _ => Ok(upload),
        }
    }

    /// Puts a received file in place, if its agent still holds the shard and the run's
    /// copies stay within their cap. Blocking.
    pub fn finish_part_upload(&self, mut upload: PartUpload) -> Result<(), FleetError> {
        let path = self.part_file(&upload.agent, &upload.run_id, &upload.local, &upload.name)?;
        let length = std::fs::metadata(&upload.temporary)
            .map_err(|e| cannot_write(&upload.temporary, e))?
            .len();
        let mut ledger = self.ledger();
        let total = self.run_bytes(&mut ledger, &upload.run_id);
        let after = total.saturating_sub(length_of(&path)) + length;
        self.within_caps(&upload.run_id, &upload.local, &upload.name, length, after)?;
        let placed = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::rename(&upload.temporary, &path))
            .map_err(|e| cannot_write(&path, e));
        upload.finished = placed.is_ok();
        ledger.bytes = placed.is_ok().then_some(after);
        placed
    }

    /// Refuses a file of `length` bytes, or run copies of `run_total`, past their caps.
    fn within_caps(
        &self,
        run_id: &str,
        local: &str,
        name: &str,
        length: u64,
        run_total: u64,
    ) -> Result<(), FleetError> {
        if length > self.caps.file {
            return Err(FleetError::FileOverCap {
                file: name.to_string(),
                local: local.to_string(),
                size: length,
                cap: self.caps.file,
            });
        }
        if run_total > self.caps.run {
            return Err(FleetError::RunOverCap {
                run: run_id.to_string(),
                size: run_total,
                cap: self.caps.run,
            });
        }
        Ok(())
    }

    /// The bytes of run `run_id`'s copies: as kept, or counted from disk.
    fn run_bytes(&self, ledger: &mut Ledger, run_id: &str) -> u64 {
        if ledger.run_id != run_id || ledger.bytes.is_none() {
            ledger.run_id = run_id.to_string();
            ledger.bytes = Some(bytes_under(&self.parts_of(run_id)));
        }
        ledger.bytes.unwrap_or(0)
    }

    fn ledger(&self) -> MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The length of the file at `path`; 0 if there is none.
fn length_of(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// The bytes of the files of the folders in `parts` (one per shard folder).
fn bytes_under(parts: &Path) -> u64 {
    let files = |dir: PathBuf| {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok()?.metadata().ok())
            .filter(|m| m.is_file())
            .map(|m| m.len())
            .sum::<u64>()
    };
    std::fs::read_dir(parts)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .map(|e| files(e.path()))
        .sum()
}

fn cannot_write(path: &Path, e: std::io::Error) -> FleetError {
    FleetError::Io(format!("cannot write {}: {e}", path.display()))
}

/// Writes `piece` at `at` in the file at `path`, which then ends after it.
fn write_at(path: &Path, at: u64, piece: &[u8]) -> Result<(), FleetError> {
    let failed = |e| cannot_write(path, e);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(failed)?;
    out.set_len(at).map_err(failed)?;
    out.seek(std::io::SeekFrom::Start(at)).map_err(failed)?;
    out.write_all(piece).map_err(failed)
}
