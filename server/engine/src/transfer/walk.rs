//! The folder walk of an upload: every regular file under the root, depth first, with
//! one open folder listing per level, so memory follows the depth of the tree and not
//! its size. Symbolic links are counted and skipped, or followed when asked; a folder
//! that is already on the way down (a link back up, or a bind mount of an ancestor) is
//! never entered again, so a loop cannot make the walk endless.

use std::fs::{FileType, Metadata, ReadDir};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::settings::PARTIAL_SUFFIX;
use super::tally::Tally;

/// Sends `(path, size)` of every regular file under `root`, skipping partial downloads.
pub(crate) async fn walk(
    root: &Path,
    follow_symlinks: bool,
    tx: &mpsc::Sender<(PathBuf, u64)>,
    stop: &CancellationToken,
    tally: &Tally,
) -> std::io::Result<()> {
    // The open listings, and the (device, inode) of each of their folders.
    let mut open: Vec<(ReadDir, (u64, u64))> =
        vec![(std::fs::read_dir(root)?, id(&std::fs::metadata(root)?))];
    while let Some((listing, _)) = open.last_mut() {
        let Some(entry) = listing.next() else {
            open.pop();
            continue;
        };
        if stop.is_cancelled() {
            return Ok(());
        }
        let entry = entry?;
        let path = entry.path();
        let Some((kind, metadata)) = resolve(&path, entry.file_type()?, follow_symlinks, tally)
        else {
            continue;
        };
        if kind.is_dir() {
            let metadata = match metadata {
                Some(m) => m,
                None => entry.metadata()?,
            };
            let folder = id(&metadata);
            if open.iter().any(|(_, above)| *above == folder) {
                if entry.file_type()?.is_symlink() {
                    tally.symlink_skipped();
                } else {
                    tally.failed(format!(
                        "{}: the same folder as one above it (a bind mount?); not entered again",
                        path.display()
                    ));
                }
                continue;
            }
            match std::fs::read_dir(&path) {
                Ok(sub) => open.push((sub, folder)),
                Err(e) => tally.failed(format!("cannot read {}: {e}", path.display())),
            }
        } else if kind.is_file() && !path.to_string_lossy().ends_with(PARTIAL_SUFFIX) {
            let size = match metadata {
                Some(m) => m.len(),
                None => entry.metadata()?.len(),
            };
            if tx.send((path, size)).await.is_err() {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// What an entry is once links are dealt with: `None` when it is skipped, the target's
/// type and metadata for a followed link.
fn resolve(
    path: &Path,
    kind: FileType,
    follow_symlinks: bool,
    tally: &Tally,
) -> Option<(FileType, Option<Metadata>)> {
    if !kind.is_symlink() {
        return Some((kind, None));
    }
    if !follow_symlinks {
        tally.symlink_skipped();
        return None;
    }
    match std::fs::metadata(path) {
        Ok(m) => Some((m.file_type(), Some(m))),
        Err(e) => {
            tally.failed(format!(
                "{}: a symbolic link to nothing readable: {e}",
                path.display()
            ));
            None
        }
    }
}

fn id(m: &Metadata) -> (u64, u64) {
    (m.dev(), m.ino())
}
