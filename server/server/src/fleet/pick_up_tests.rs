//! A controller started again on the results folder of a run that was going: the run's
//! record read back as written, the run picked up with its holders awaiting their
//! return by name, an agent back under its name given its shard without being told to
//! run it again, the grace before a holder counts as lost starting at the restart, and
//! an unreadable record said and its run marked failed.

use std::sync::Arc;

use keystorm_results::{ResultStore, RunStatus};
use keystorm_workload::observer::NoObserver;

use super::run_record::RunState;
use super::saved_run::{self, UNREADABLE_SUFFIX};
use super::state::Fleet;
use super::tests::{order, register, report as running, two_agents_running};
use keystorm_link::own_names::RECORD_FILE;
use keystorm_link::protocol::{Heartbeat, Order, ShardDone};

/// Agents a and b running shards 0 and 1 (their folders `local-0`, `local-1`), shard 1
/// done; then the controller "restarts": a new one on the same results folder.
fn restarted() -> (Arc<Fleet>, tempfile::TempDir, String) {
    let (fleet, dir, a, b, run) = two_agents_running(false);
    fleet.heartbeat(&a, running(&run, 0, "local-0")).unwrap();
    fleet.heartbeat(&b, running(&run, 1, "local-1")).unwrap();
    fleet
        .shard_done(
            &b,
            ShardDone {
                run_id: run.clone(),
                local_run_id: Some("local-1".to_string()),
                error: None,
            },
        )
        .unwrap();
    drop(fleet);
    let again = Fleet::new(dir.path().to_path_buf());
    (again, dir, run)
}

#[test]
fn the_runs_record_names_each_shards_agent_and_how_far_it_got() {
    let (fleet, dir, a, b, run) = two_agents_running(false);
    fleet.heartbeat(&a, running(&run, 0, "local-0")).unwrap();
    fleet.heartbeat(&b, running(&run, 1, "local-1")).unwrap();
    let path = dir.path().join(".incoming").join(&run).join(RECORD_FILE);
    let saved = saved_run::read(&path).unwrap();
    assert_eq!(saved.run_id, run);
    assert_eq!(saved.state, RunState::Running);
    assert_eq!(saved.spec.agents, 2);
    let names: Vec<&str> = saved.shards.iter().map(|s| s.agent.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(saved.shards[1].local_run_id.as_deref(), Some("local-1"));
    assert!(saved.shards.iter().all(|s| !s.done));
    // Read back, it is the same run, its holders named as this controller calls them.
    let back = saved_run::read(&path)
        .unwrap()
        .into_run(|name| format!("id-{name}"));
    assert_eq!(back.run_id, run);
    assert_eq!(back.shards[0].agent, "id-a");
    assert_eq!(back.shards[1].local_run_id.as_deref(), Some("local-1"));
    assert_eq!(back.spec.text, saved.spec.text);
}

#[test]
fn a_picked_up_run_gives_each_shard_back_to_the_agent_of_its_name_which_carries_on() {
    let (fleet, _dir, run) = restarted();
    assert_eq!(fleet.pick_up(Arc::new(NoObserver)), Some(run.clone()));
    {
        let inner = fleet.lock();
        let picked = inner.run.as_ref().unwrap();
        assert_eq!(picked.state, RunState::Running);
        assert!(!picked.shards[0].done && picked.shards[1].done);
        assert_eq!(picked.shards[0].local_run_id.as_deref(), Some("local-0"));
        // The grace before a holder counts as lost starts at the restart.
        assert!(!inner.is_lost(&picked.shards[0].agent));
        assert_eq!(inner.sending_shards(), vec![0]);
    }
    // Back under its name, still running its shard: it is its shard again, and nothing
    // tells it to run it (or stop it).
    let a = register(&fleet, "a");
    assert_eq!(fleet.lock().run.as_ref().unwrap().shards[0].agent, a);
    assert!(
        fleet
            .heartbeat(&a, running(&run, 0, "local-0"))
            .unwrap()
            .order
            .is_none()
    );
    assert!(
        fleet
            .heartbeat(&a, running(&run, 0, "local-0"))
            .unwrap()
            .order
            .is_none()
    );
    // The copy of its folder is its to write again; the earlier id's is no one's.
    assert!(fleet.part_dir(&a, &run, "local-0").is_ok());
    assert!(fleet.part_dir("restored:a", &run, "local-0").is_err());
}

#[test]
fn an_agent_back_without_its_shard_is_told_to_resume_it() {
    let (fleet, _dir, run) = restarted();
    fleet.pick_up(Arc::new(NoObserver)).unwrap();
    // Its process was restarted too: it runs nothing, so it resumes its own folder.
    let a = register(&fleet, "a");
    match order(&fleet, &a) {
        Some(Order::Run(assignment)) => {
            assert_eq!(assignment.run_id, run);
            assert_eq!(assignment.index, 0);
            assert_eq!(assignment.resume.as_deref(), Some("local-0"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_holder_that_does_not_come_back_is_lost_and_a_spare_takes_its_shard_over() {
    let (fleet, _dir, run) = restarted();
    fleet.pick_up(Arc::new(NoObserver)).unwrap();
    let spare = register(&fleet, "spare");
    // Not before the grace: an agent restarting is given the time to come back.
    assert!(fleet.lock().hand_lost_shards().is_empty());
    {
        let mut inner = fleet.lock();
        let holder = inner.agents.iter_mut().find(|a| a.name == "a").unwrap();
        holder.last_seen = std::time::Instant::now()
            - std::time::Duration::from_millis(keystorm_link::protocol::LOST_AFTER_MS + 1);
    }
    fleet.heartbeat(&spare, Heartbeat::default()).unwrap();
    let said = fleet.lock().hand_lost_shards();
    assert_eq!(said.len(), 1, "{said:?}");
    match order(&fleet, &spare) {
        Some(Order::Run(assignment)) => {
            assert_eq!(assignment.run_id, run);
            assert_eq!(assignment.resume.as_deref(), Some("local-0"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unreadable_record_is_said_set_aside_and_its_run_marked_failed() {
    let (fleet, dir, _a, _b, run) = two_agents_running(false);
    drop(fleet);
    let path = dir.path().join(".incoming").join(&run).join(RECORD_FILE);
    std::fs::write(&path, b"{ not json").unwrap();
    let again = Fleet::new(dir.path().to_path_buf());
    assert_eq!(again.pick_up(Arc::new(NoObserver)), None);
    assert!(again.lock().run.is_none());
    assert!(!path.exists());
    let mut aside = path.as_os_str().to_owned();
    aside.push(UNREADABLE_SUFFIX);
    assert!(std::path::Path::new(&aside).is_file());
    let manifest = ResultStore::read_manifest(&dir.path().join(&run)).unwrap();
    assert_eq!(manifest.status, RunStatus::Failed);
    let error = manifest.error.unwrap();
    assert!(
        error.contains(RECORD_FILE) && error.contains("not a run record"),
        "{error}"
    );
}

#[test]
fn a_record_naming_a_shard_folder_outside_its_own_is_not_picked_up() {
    let (fleet, dir, a, _b, run) = two_agents_running(false);
    fleet.heartbeat(&a, running(&run, 0, "local-0")).unwrap();
    drop(fleet);
    let path = dir.path().join(".incoming").join(&run).join(RECORD_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"local-0\"", "\"../../elsewhere\"")).unwrap();
    let again = Fleet::new(dir.path().to_path_buf());
    assert_eq!(again.pick_up(Arc::new(NoObserver)), None);
    let manifest = ResultStore::read_manifest(&dir.path().join(&run)).unwrap();
    assert_eq!(manifest.status, RunStatus::Failed);
    let error = manifest.error.unwrap();
    assert!(error.contains("../../elsewhere"), "{error}");
}

#[test]
fn an_ended_run_is_not_picked_up() {
    let (fleet, dir, _a, _b, run) = two_agents_running(false);
    {
        let mut inner = fleet.lock();
        inner.run.as_mut().unwrap().state = RunState::Failed;
        fleet.save(&inner);
    }
    drop(fleet);
    let again = Fleet::new(dir.path().to_path_buf());
    assert_eq!(again.pick_up(Arc::new(NoObserver)), None);
    assert!(
        dir.path()
            .join(".incoming")
            .join(&run)
            .join(RECORD_FILE)
            .is_file()
    );
}

#[test]
fn what_happened_to_the_hosts_before_a_restart_stays_on_the_picked_up_run() {
    let (fleet, dir, a, _b, run) = two_agents_running(false);
    fleet.heartbeat(&a, running(&run, 0, "local-0")).unwrap();
    {
        let mut inner = fleet.lock();
        inner.note_on_run(
            keystorm_results::FleetEventKind::AgentLost,
            Some((&a, "a")),
            "agent a lost".to_string(),
        );
        fleet.save(&inner);
    }
    drop(fleet);
    let again = Fleet::new(dir.path().to_path_buf());
    assert_eq!(again.pick_up(Arc::new(NoObserver)), Some(run));
    let inner = again.lock();
    let events = &inner.run.as_ref().unwrap().events;
    let kinds: Vec<_> = events.iter().map(|e| e.kind).collect();
    use keystorm_results::FleetEventKind::{AgentLost, ControllerRestart};
    assert_eq!(kinds, [AgentLost, ControllerRestart], "{events:#?}");
    assert_eq!(events[0].agent.as_deref(), Some("a"));
    assert_eq!(events[0].shard.as_deref(), Some("0/2"));
    assert!(events[1].t_s >= events[0].t_s, "{events:#?}");
}
