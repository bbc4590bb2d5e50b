//! Sending the shard's run folder to the controller while it grows, so the controller
//! holds a copy no older than a second or two: if this agent dies, another takes the
//! shard over from that copy (its checkpoint, and every interval recorded), and at the
//! shard's end only what is new goes, not the whole folder.
//!
//! The logs (`*.jsonl`, `*.hlog`) only grow: each sync sends what is beyond what the
//! controller holds, whole lines only, so the copy never ends in half a line. The other
//! files are small and rewritten in place: each is sent whole when it changed. While
//! the shard runs, the checkpoint is read first and the logs of measurements
//! (intervals, histograms) are sent only up to the lengths it names, then the
//! checkpoint: a sync leaves the controller a checkpoint and exactly the intervals it
//! counts, so a takeover from the copy redoes only the writes the checkpoint left in
//! flight, and counts nothing twice. Memory holds what is new of one log (at most
//! [`PIECE`] bytes) and a length per file.
//!
//! Calls go with the agent's current id and key (they change when the controller
//! restarts and the agent registers again; one sync makes all its calls as one
//! registration). After any failed sync the controller is asked again what
//! it holds, and the other files are sent again: a controller started again holds what
//! reached its disk, which the offsets of the next pieces follow.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tokio::io::{AsyncReadExt, AsyncSeekExt};

use keystorm_results::{CHECKPOINT_FILE, Checkpoint, HLOG_FILE, INTERVALS_FILE, MANIFEST_FILE};

use super::session::{AsRegistered, Session};
use keystorm_link::client::LinkError;
use keystorm_link::protocol::PartListing;

/// Most bytes of a log sent in one call.
pub const PIECE: usize = 1 << 20;

/// Whether the controller refused a sync because its copy would pass one of its caps
/// (413): sending the same again does not help until the caps are raised.
pub fn refused_over_cap(e: &LinkError) -> bool {
    matches!(e, LinkError::Refused { status: 413, .. })
}

/// Whether the file only grows (a log) rather than being rewritten.
fn is_log(name: &str) -> bool {
    name.ends_with(".jsonl") || name.ends_with(".hlog")
}

/// The copy the controller holds of one shard's run folder, as this agent knows it.
pub struct Replica {
    session: Session,
    /// `{run}/{local}`, the part's place under `/api/agents/{id}/parts/`.
    part: String,
    dir: PathBuf,
    /// Per log, how many bytes the controller holds.
    logs: HashMap<String, u64>,
    /// Per other file, the length and time of change of what was sent.
    others: HashMap<String, (u64, Option<SystemTime>)>,
    /// Whether `logs` was read from the controller (at first, and after a mismatch).
    listed: bool,
}

impl Replica {
    pub fn new(session: Session, run_id: &str, dir: &Path) -> Replica {
        let local = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Replica {
            session,
            part: format!("{run_id}/{local}"),
            dir: dir.to_path_buf(),
            logs: HashMap::new(),
            others: HashMap::new(),
            listed: false,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the part is, for the registration `me`.
    fn base(&self, me: &AsRegistered) -> String {
        format!("/api/agents/{}/parts/{}", me.id, self.part)
    }

    /// Sends what changed since the last sync — with `to_checkpoint`, the logs of
    /// measurements only as far as the checkpoint counts them (while the shard runs);
    /// without, all of it (at its end). After a failure, the next sync asks the
    /// controller what it holds first.
    pub async fn sync(&mut self, to_checkpoint: bool) -> Result<(), LinkError> {
        let synced = self.sync_once(to_checkpoint).await;
        if synced.is_err() {
            self.forget();
        }
        synced
    }

    /// Forgets what the controller holds, so the next sync asks it first (a sync was
    /// given up half way).
    pub fn forget(&mut self) {
        self.listed = false;
        self.others.clear();
    }

    async fn sync_once(&mut self, to_checkpoint: bool) -> Result<(), LinkError> {
        let me = self.session.current();
        if !self.listed {
            let listing: PartListing = me.link.get(&self.base(&me)).await?;
            self.logs = listing
                .files
                .into_iter()
                .filter(|f| is_log(&f.name))
                .map(|f| (f.name, f.length))
                .collect();
            self.listed = true;
        }
        let local = |e: std::io::Error| {
            LinkError::Local(format!("cannot read {}: {e}", self.dir.display()))
        };
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)
            .map_err(local)?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".tmp") && !n.ends_with(".partial"))
            .collect();
        // The manifest last: a copy with its final manifest is whole.
        names.sort_by_key(|n| (n == MANIFEST_FILE, n.clone()));
        let mut changed = Vec::new();
        let mut marks = None;
        for name in names.iter().filter(|n| !is_log(n)) {
            let path = self.dir.join(name);
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            let stamp = (meta.len(), meta.modified().ok());
            let is_checkpoint = name == CHECKPOINT_FILE;
            if self.others.get(name) != Some(&stamp) || (is_checkpoint && to_checkpoint) {
                let Ok(bytes) = std::fs::read(&path) else {
                    continue;
                };
                if is_checkpoint {
                    marks = serde_json::from_slice::<Checkpoint>(&bytes)
                        .ok()
                        .and_then(|c| c.logs);
                }
                if self.others.get(name) != Some(&stamp) {
                    changed.push((name.clone(), stamp, bytes));
                }
            }
        }
        for name in names.iter().filter(|n| is_log(n)) {
            let cap = match (to_checkpoint, marks) {
                (true, Some(m)) if name == INTERVALS_FILE => Some(m.intervals),
                (true, Some(m)) if name == HLOG_FILE => Some(m.histograms),
                _ => None,
            };
            self.send_log(&me, name, cap).await?;
        }
        for (name, stamp, bytes) in changed {
            me.link
                .put_bytes(&format!("{}/{name}", self.base(&me)), bytes)
                .await?;
            self.others.insert(name, stamp);
        }
        Ok(())
    }

    /// Sends the whole lines of log `name` the controller does not hold yet, up to
    /// byte `cap` if given.
    async fn send_log(
        &mut self,
        me: &AsRegistered,
        name: &str,
        cap: Option<u64>,
    ) -> Result<(), LinkError> {
        let path = self.dir.join(name);
        let local =
            |e: std::io::Error| LinkError::Local(format!("cannot read {}: {e}", path.display()));
        let mut file = tokio::fs::File::open(&path).await.map_err(local)?;
        loop {
            let held = self.logs.get(name).copied().unwrap_or(0);
            let on_disk = file.metadata().await.map_err(local)?.len();
            // Shorter here than there (cut on a resume): sent again from the start.
            let from = if on_disk < held { 0 } else { held };
            let length = cap.map_or(on_disk, |c| c.min(on_disk));
            if length <= from && from == held {
                return Ok(());
            }
            file.seek(std::io::SeekFrom::Start(from))
                .await
                .map_err(local)?;
            // As long as what is new (a second's lines, mostly), at most a piece.
            let want = PIECE.min((length - from) as usize);
            let mut piece = vec![0u8; want];
            let mut filled = 0;
            while filled < want {
                let n = file.read(&mut piece[filled..]).await.map_err(local)?;
                if n == 0 {
                    break;
                }
                filled += n;
            }
            let end = match piece[..filled].iter().rposition(|&b| b == b'\n') {
                Some(at) => at + 1,
                // A line longer than a piece goes in pieces.
                None if filled == PIECE => PIECE,
                // Half a line, being written: next time.
                None if from == held => return Ok(()),
                None => 0,
            };
            piece.truncate(end);
            // On failure (the controller holds less than thought, or is away) it is asked
            // again what it holds.
            me.link
                .put_bytes(&format!("{}/{name}?offset={from}", self.base(me)), piece)
                .await?;
            self.logs.insert(name.to_string(), from + end as u64);
            if filled < PIECE {
                return Ok(());
            }
        }
    }
}
