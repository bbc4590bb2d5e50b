//! A controller killed in the middle of a run, started again on the same results folder,
//! picks the run up: the run's record (kept beside the copies of the shards' folders,
//! rewritten on every change that matters) gives the run back as it stood, each shard's
//! holder known by name and awaiting its return. An agent registering under that name
//! gets its shard back and, still running it, carries on; one that does not come back is
//! lost [`keystorm_link::protocol::LOST_AFTER_MS`] after the restart, and an idle agent takes its
//! shard over from the copy, as for any lost agent.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use keystorm_results::{FleetEventKind, ProcessId, ResultStore, RunStatus, timestamp};
use keystorm_workload::observer::Observer;

use super::agent_record::Agent;
use super::incoming::tidy_for_pick_up;
use super::live::LiveRun;
use super::run_record::RunState;
use super::saved_run::{self, SavedRun, UNREADABLE_SUFFIX};
use super::state::{Fleet, Inner};
use keystorm_link::own_names::RECORD_FILE;

/// What an agent known only from a run's record is called until it registers again
/// (never an id a controller gives, nor a name: ':' is in neither).
fn awaiting_id(name: &str) -> String {
    format!("restored:{name}")
}

impl Fleet {
    /// Writes the record of the run, so a controller started again picks it up. A record
    /// that cannot be written is said once (the run goes on; only a restart would miss
    /// it).
    pub(super) fn save(&self, inner: &Inner) {
        let Some(run) = inner.run.as_ref() else {
            return;
        };
        let saved = SavedRun::of(run, |id| {
            inner
                .agents
                .iter()
                .find(|a| a.id == id)
                .map_or_else(|| id.to_string(), |a| a.name.clone())
        });
        let incoming = self.incoming(&run.run_id);
        match saved_run::write(&incoming, &saved) {
            Ok(()) => {
                if self.save_failing.swap(false, Ordering::Relaxed) {
                    stderrln!("the record of run {} is written again", run.run_id);
                }
            }
            Err(e) => {
                if !self.save_failing.swap(true, Ordering::Relaxed) {
                    stderrln!(
                        "warning: cannot write the record of run {}: {e}; a controller \
                         restart would not pick the run up",
                        run.run_id
                    );
                }
            }
        }
    }

    /// Picks up the run that was going when this controller's results folder was last
    /// served, if there is one; its id. A record that cannot be read is said (naming
    /// the file) and its run marked failed; the server starts all the same.
    pub fn pick_up(&self, observer: Arc<dyn Observer>) -> Option<String> {
        let root = self.results_dir.join(".incoming");
        let mut going: Vec<SavedRun> = Vec::new();
        for entry in std::fs::read_dir(&root).ok()?.filter_map(|e| e.ok()) {
            let path = entry.path().join(RECORD_FILE);
            if !path.is_file() {
                continue;
            }
            match saved_run::read(&path) {
                Ok(saved) if saved.state.is_going() => going.push(saved),
                Ok(_) => {}
                Err(reason) => {
                    let run_id = entry.file_name().to_string_lossy().into_owned();
                    self.give_up(&run_id, &path, &reason);
                }
            }
        }
        // One run at a time: an older one still marked going ended with its controller.
        going.sort_by_key(|s| s.started_at_ms);
        let newest = going.pop()?;
        for mut older in going {
            older.state = RunState::Failed;
            older.error = Some(format!(
                "run {} was going when the controller restarted; this one was not picked up",
                newest.run_id
            ));
            let _ = saved_run::write(&self.incoming(&older.run_id), &older);
        }
        if self.lock().run.is_some() {
            return None;
        }
        for said in tidy_for_pick_up(&self.incoming(&newest.run_id)) {
            stderrln!("picking up run {}: {said}", newest.run_id);
        }
        let mut inner = self.lock();
        if inner.run.is_some() {
            return None;
        }
        let run_id = self.restore(&mut inner, newest, observer);
        self.save(&inner);
        Some(run_id)
    }

    /// Puts the recorded run back as the current one, its holders awaiting their return.
    fn restore(&self, inner: &mut Inner, saved: SavedRun, observer: Arc<dyn Observer>) -> String {
        let mut names: Vec<String> = saved.shards.iter().map(|s| s.agent.clone()).collect();
        names.sort();
        names.dedup();
        let started_ms = saved.started_at_ms;
        let mut run = saved.into_run(awaiting_id);
        let restarted = format!(
            "the controller restarted at {}: the run was picked up from its record; its live \
             view resumes as the agents report again (the merge at the end covers every second)",
            timestamp(SystemTime::now())
        );
        match LiveRun::reopen(
            &self.results_dir,
            &run.run_id,
            &run.spec,
            started_ms,
            observer,
        ) {
            Ok(mut live) => {
                live.warn(restarted.clone());
                run.live = Some(live);
            }
            Err(e) => run
                .warnings
                .push(format!("no live view after the controller restarted: {e}")),
        }
        run.note(
            FleetEventKind::ControllerRestart,
            None,
            None,
            format!(
                "the controller started again and picked the run up from its record; \
                 waiting for agent(s) {} to come back",
                names.join(", ")
            ),
        );
        run.warnings.push(restarted);
        if run.state == RunState::Merging {
            // Merged again from the copies: as if every shard had just ended (or, stopped,
            // as if the last one still sending had).
            run.state = if run.shards.iter().all(|s| s.done) {
                RunState::Running
            } else {
                RunState::Stopping
            };
        }
        let waiting: Vec<&String> = names
            .iter()
            .filter(|n| {
                run.shards
                    .iter()
                    .any(|s| !s.done && s.agent == awaiting_id(n))
            })
            .collect();
        stderrln!(
            "picking up run {} ({} shards, {}): waiting for agent(s) {} to come back",
            run.run_id,
            run.shards.len(),
            run.state.as_str(),
            waiting
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        for name in names {
            // Heard "now": the grace before its shard counts as lost starts at the restart.
            let mut agent = Agent::new(
                awaiting_id(&name),
                name,
                String::new(),
                self.version.clone(),
                0,
            );
            agent.awaiting = true;
            inner.agents.push(agent);
        }
        let run_id = run.run_id.clone();
        inner.run = Some(run);
        run_id
    }

    /// A record that cannot be used: said, set aside, and its run marked failed.
    fn give_up(&self, run_id: &str, path: &Path, reason: &saved_run::SavedRunError) {
        let why = format!(
            "the controller restarted and cannot pick the run up: {}: {reason}",
            path.display()
        );
        stderrln!("warning: {why}; the run is marked failed");
        let mut aside = path.as_os_str().to_owned();
        aside.push(UNREADABLE_SUFFIX);
        let _ = std::fs::rename(path, aside);
        let dir = self.results_dir.join(run_id);
        if let Ok(mut manifest) = ResultStore::read_manifest(&dir)
            && manifest.status == RunStatus::Running
            && let Ok(store) = ResultStore::open_append(&dir)
        {
            manifest.status = RunStatus::Failed;
            manifest.error = Some(why);
            manifest.ended_at = Some(timestamp(SystemTime::now()));
            manifest.process = None::<ProcessId>;
            let _ = store.write_manifest(&manifest);
        }
    }
}
