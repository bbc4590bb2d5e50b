//! Taking over a shard this agent did not start: its run folder is fetched from the
//! copy the controller holds (what the lost agent sent until it was lost: checkpoint,
//! summary, every interval) into this agent's results folder, and the run resumes from
//! it as from a folder of its own.

use std::path::{Path, PathBuf};

use keystorm_results::{MANIFEST_FILE, ResultStore, cut_logs_to};

use super::session::AsRegistered;
use keystorm_link::client::LinkError;
use keystorm_link::protocol::PartListing;

/// The copy to fetch: run folder `local` of shard `index` of `run_id`, resumed here
/// with `endpoint` (this agent's way to the store, if it has its own).
pub struct Copy<'a> {
    pub run_id: &'a str,
    pub index: u32,
    pub local: &'a str,
    pub endpoint: Option<&'a str>,
}

/// Why the controller's copy of a shard's run folder could not be taken over.
#[derive(Debug, thiserror::Error)]
#[error("cannot take shard {index} over: {failure}")]
pub struct SeedError {
    index: u32,
    failure: SeedFailure,
}

/// The step of [`fetch`] that failed.
#[derive(Debug, thiserror::Error)]
enum SeedFailure {
    #[error("{0}")]
    Listing(LinkError),
    #[error("its run folder {0} is neither on this agent nor on the controller")]
    NoCopy(String),
    #[error("{} is in the way (it is not a run folder)", .0.display())]
    InTheWay(PathBuf),
    #[error("cannot create {}: {source}", path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("fetching {name}: {source}")]
    Fetch { name: String, source: LinkError },
    /// Cutting the copy's logs to its checkpoint, or rewriting its manifest.
    #[error("{0}")]
    Folder(keystorm_results::ResultsError),
    #[error("cannot move it to {}: {source}", to.display())]
    Move { to: PathBuf, source: std::io::Error },
}

/// Fetches the controller's copy into `to` (which must not exist), as the agent's
/// registration `me`.
pub async fn fetch(me: &AsRegistered, copy: &Copy<'_>, to: &Path) -> Result<(), SeedError> {
    let AsRegistered { id: agent_id, link } = me;
    let Copy {
        run_id,
        index,
        local,
        endpoint,
    } = *copy;
    let cannot = |failure: SeedFailure| SeedError { index, failure };
    let base = format!("/api/agents/{agent_id}/parts/{run_id}/{local}");
    let listing: PartListing = link
        .get(&base)
        .await
        .map_err(|e| cannot(SeedFailure::Listing(e)))?;
    if !listing.files.iter().any(|f| f.name == MANIFEST_FILE) {
        return Err(cannot(SeedFailure::NoCopy(local.to_string())));
    }
    if to.exists() {
        return Err(cannot(SeedFailure::InTheWay(to.to_path_buf())));
    }
    let fetching = to.with_file_name(format!(".{local}.fetching"));
    let _ = std::fs::remove_dir_all(&fetching);
    std::fs::create_dir_all(&fetching).map_err(|source| {
        cannot(SeedFailure::Create {
            path: fetching.clone(),
            source,
        })
    })?;
    let bytes: u64 = listing.files.iter().map(|f| f.length).sum();
    stderrln!(
        "shard {index}: fetching its run folder from the controller ({} files, {:.1} MiB)",
        listing.files.len(),
        bytes as f64 / (1024.0 * 1024.0)
    );
    for file in &listing.files {
        link.download(&format!("{base}/{}", file.name), &fetching.join(&file.name))
            .await
            .map_err(|source| {
                cannot(SeedFailure::Fetch {
                    name: file.name.clone(),
                    source,
                })
            })?;
    }
    // What the lost agent recorded after its last checkpoint reached the controller is
    // left out: this agent redoes that work from the checkpoint, and it is counted once.
    if let Some(marks) = ResultStore::read_checkpoint(&fetching)
        .ok()
        .and_then(|c| c.logs)
    {
        let cut = cut_logs_to(&fetching, &marks).map_err(|e| cannot(SeedFailure::Folder(e)))?;
        if cut > 0 {
            stderrln!(
                "shard {index}: the copy's intervals after its checkpoint ({cut} bytes) are \
                 left out: that work is redone from the checkpoint"
            );
        }
    }
    // The copy names the lost agent's process as the run's, and its way to the store:
    // this one runs it now, reaching the same store its own way.
    let mut manifest =
        ResultStore::read_manifest(&fetching).map_err(|e| cannot(SeedFailure::Folder(e)))?;
    manifest.process = None;
    manifest.overrides.endpoint = endpoint.map(str::to_string);
    if let Some(url) = endpoint {
        manifest.endpoint = url.to_string();
    }
    ResultStore::open_append(&fetching)
        .and_then(|store| store.write_manifest(&manifest))
        .map_err(|e| cannot(SeedFailure::Folder(e)))?;
    std::fs::rename(&fetching, to).map_err(|source| {
        cannot(SeedFailure::Move {
            to: to.to_path_buf(),
            source,
        })
    })
}
