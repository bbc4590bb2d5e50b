//! Which copy of a run folder is which shard's. An agent names the folder it sends
//! (its own run's id), and all agents share the server's token: left at that, the agent
//! of one shard could read or write another shard's copy, and what it wrote would be
//! merged as that shard's. So a folder belongs to a shard, not to whoever names it: the
//! first call of the shard's agent naming a folder (sending or fetching a file of it,
//! listing it, or saying it in a heartbeat or at the shard's end) makes it the shard's,
//! if no other shard has it; from then on only the shard's agent, whichever agent
//! holds the shard now, reaches it — an agent taking a lost shard over resumes from the
//! same folder — and a report naming another folder changes nothing. The run's record
//! keeps each shard's folder, so a controller started again knows them too.

use super::run_record::FleetRun;

/// A shard folder refused to the agent of shard `index` of run `run`: said with the
/// folder it may use (if its shard has one yet), never whose the asked one is.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.said())]
pub struct FolderRefusal {
    pub run: String,
    pub index: usize,
    pub asked: String,
    /// The shard's own folder, if it has one.
    pub own: Option<String>,
}

impl FolderRefusal {
    fn said(&self) -> String {
        let (run, index, asked) = (&self.run, self.index, &self.asked);
        match &self.own {
            Some(own) => format!(
                "folder {asked} is not the copy of shard {index} of run {run}: the agent of a \
                 shard reads and writes only its shard's folder, {own}"
            ),
            None => format!(
                "folder {asked} is another shard's copy in run {run}: the agent of a shard \
                 reads and writes only its shard's folder (shard {index} has none yet; the \
                 first folder it uses that no other shard has becomes its own)"
            ),
        }
    }
}

impl FleetRun {
    /// Whether shard `index` may use folder `local`: its own, or — the shard having
    /// none yet — one no other shard has, which becomes its own. `Ok(true)` when it
    /// just did (a change the run's record keeps).
    pub fn claim_folder(&mut self, index: usize, local: &str) -> Result<bool, FolderRefusal> {
        let refused = |own: Option<String>| FolderRefusal {
            run: self.run_id.clone(),
            index,
            asked: local.to_string(),
            own,
        };
        match self.shards[index].local_run_id.as_deref() {
            Some(own) if own == local => Ok(false),
            Some(own) => Err(refused(Some(own.to_string()))),
            None if self.folder_is_taken(local) => Err(refused(None)),
            None => {
                self.shards[index].local_run_id = Some(local.to_string());
                Ok(true)
            }
        }
    }

    /// Whether some shard's folder is `local`.
    fn folder_is_taken(&self, local: &str) -> bool {
        self.shards
            .iter()
            .any(|s| s.local_run_id.as_deref() == Some(local))
    }
}
