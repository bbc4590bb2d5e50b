//! The controller's folder of a run across agents, `<results>/.incoming/<run>/`. It
//! holds the controller's own record of the run (`fleet-run.json`, with its temporary
//! and set-aside names) and, apart from it, the copies of the shards' folders the agents
//! send (`parts/<local run>/<file>`), with the whole files being uploaded written under
//! `uploads/` until complete. Agents name only what goes under `parts/`, so nothing
//! they send can take the place of a file of the controller's; the names the controller
//! keeps for itself here are refused all the same, with a message that says so.
//!
//! A controller of an earlier layout kept the copies beside the record
//! (`<run>/<local run>/`): a run picked up from such a folder has them moved under
//! `parts/` first.

use std::path::{Path, PathBuf};

use super::state::Fleet;
use keystorm_link::bounds::check_part_name;
use keystorm_link::own_names::{PARTS, UPLOADS};

impl Fleet {
    /// Where the copies of run `run_id`'s shard folders are.
    pub(super) fn parts_of(&self, run_id: &str) -> PathBuf {
        self.incoming(run_id).join(PARTS)
    }

    /// Where whole files of run `run_id`'s parts are written until complete.
    pub(super) fn uploads_of(&self, run_id: &str) -> PathBuf {
        self.incoming(run_id).join(UPLOADS)
    }
}

/// Readies the folder `incoming` of a run being picked up: copies kept beside the record
/// by an earlier controller are moved under `parts/`, a folder in the way of the
/// controller's own files (left by an agent, before names were checked) is removed, and
/// uploads a killed controller left half-written go. What was done, to say.
pub fn tidy_for_pick_up(incoming: &Path) -> Vec<String> {
    let mut said = Vec::new();
    let _ = std::fs::remove_dir_all(incoming.join(UPLOADS));
    let Ok(entries) = std::fs::read_dir(incoming) else {
        return said;
    };
    let parts = incoming.join(PARTS);
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.file_type().is_ok_and(|t| t.is_dir()) || name == PARTS {
            continue;
        }
        let from = entry.path();
        if check_part_name("folder", &name).is_err() {
            match std::fs::remove_dir_all(&from) {
                Ok(()) => said.push(format!(
                    "removed {}: a folder in the way of the controller's own files",
                    from.display()
                )),
                Err(e) => said.push(format!("cannot remove {}: {e}", from.display())),
            }
            continue;
        }
        let to = parts.join(&name);
        let moved = std::fs::create_dir_all(&parts).and_then(|()| {
            if to.exists() {
                Err(std::io::Error::other(format!("{} exists", to.display())))
            } else {
                std::fs::rename(&from, &to)
            }
        });
        if let Err(e) = moved {
            said.push(format!(
                "cannot move the copy {} to {}: {e}",
                from.display(),
                to.display()
            ));
        }
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_controllers_names_and_their_temporary_names_are_refused() {
        for name in [
            "fleet-run.json",
            "fleet-run.json.tmp",
            "fleet-run.json.unreadable",
            "parts",
            "uploads",
            "uploads.partial",
        ] {
            let e = check_part_name("folder", name).unwrap_err().to_string();
            assert!(e.contains("keeps this name for its own files"), "{e}");
        }
        for name in [".hidden", "..", ".", "a/b", "", "a b"] {
            let e = check_part_name("file", name).unwrap_err().to_string();
            assert!(e.contains("plain name"), "{e}");
        }
        for name in [
            "20260101-000000-fill-0a1b",
            "manifest.json",
            "intervals.jsonl",
            "fleet-run.jsonl",
            "partsx",
            "x.partial",
        ] {
            assert!(check_part_name("file", name).is_ok(), "{name}");
        }
    }
}
