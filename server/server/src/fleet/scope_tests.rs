//! What one agent may do in the controller: act only as itself (its own key, checked
//! against a digest the controller keeps nowhere but in memory) and touch only the
//! copy of the shard it holds now — its shard's folder, claimed by the first call
//! naming one, kept by a takeover and across a controller restart, never re-pointed by
//! a report naming another shard's.

use std::sync::Arc;

use keystorm_workload::observer::NoObserver;

use super::error::FleetError;
use super::state::Fleet;
use super::tests::{make_lost, order, register, registered, report, split};
use keystorm_link::own_names::RECORD_FILE;
use keystorm_link::protocol::ShardDone;

/// Agents `alpha` and `beta` running shards 0 and 1 of a run, neither shard with a
/// folder yet: (fleet, results folder, alpha, beta, run).
fn alpha_and_beta() -> (Arc<Fleet>, tempfile::TempDir, String, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let fleet = Fleet::new(dir.path().to_path_buf());
    let alpha = register(&fleet, "alpha");
    let beta = register(&fleet, "beta");
    let run = fleet.start(split(2), Arc::new(NoObserver)).unwrap();
    order(&fleet, &alpha);
    order(&fleet, &beta);
    (fleet, dir, alpha, beta, run)
}

/// Alpha and beta say in a heartbeat that their shards' folders are `local-a` and
/// `local-b`.
fn each_reports_its_folder(fleet: &Fleet, alpha: &str, beta: &str, run: &str) {
    fleet.heartbeat(alpha, report(run, 0, "local-a")).unwrap();
    fleet.heartbeat(beta, report(run, 1, "local-b")).unwrap();
}

/// The folder of shard `index`, as the controller keeps it.
fn folder_of(fleet: &Fleet, index: usize) -> Option<String> {
    fleet.lock().run.as_ref().unwrap().shards[index]
        .local_run_id
        .clone()
}

fn refused_folder(result: Result<std::path::PathBuf, FleetError>) -> String {
    match result {
        Err(e @ FleetError::NotShardFolder(_)) => e.to_string(),
        other => panic!("expected a refused folder, got {other:?}"),
    }
}

#[test]
fn each_registration_has_its_own_key_and_only_it_opens_the_agents_calls() {
    let dir = tempfile::tempdir().unwrap();
    let fleet = Fleet::new(dir.path().to_path_buf());
    let alpha = registered(&fleet, "alpha");
    let beta = registered(&fleet, "beta");
    assert_ne!(alpha.agent_key, beta.agent_key);
    let check = |id: &str, key: Option<&str>| fleet.check_agent_key(id, key);
    assert!(check(&alpha.agent_id, Some(&alpha.agent_key)).is_ok());
    assert!(matches!(
        check(&alpha.agent_id, None),
        Err(FleetError::AgentKeyMissing(_))
    ));
    assert!(matches!(
        check(&alpha.agent_id, Some(&beta.agent_key)),
        Err(FleetError::WrongAgentKey(_))
    ));
    assert!(matches!(
        check(&alpha.agent_id, Some("")),
        Err(FleetError::WrongAgentKey(_))
    ));
    // An id it does not know is unknown, with a key or without: the agent registers
    // again.
    for key in [None, Some(alpha.agent_key.as_str())] {
        assert!(matches!(
            check("agent-0-99", key),
            Err(FleetError::UnknownAgent(_))
        ));
    }
    // Neither the Agents page nor the run's record holds a key.
    fleet.start(split(2), Arc::new(NoObserver)).unwrap();
    let view = serde_json::to_string(&fleet.view()).unwrap();
    let run = fleet.lock().run.as_ref().unwrap().run_id.clone();
    let record =
        std::fs::read_to_string(dir.path().join(".incoming").join(&run).join(RECORD_FILE)).unwrap();
    for key in [&alpha.agent_key, &beta.agent_key] {
        assert!(!view.contains(key.as_str()), "{view}");
        assert!(!record.contains(key.as_str()), "{record}");
    }
}

#[test]
fn a_holder_back_after_a_restart_is_opened_only_by_the_new_key_it_registers_with() {
    let dir = tempfile::tempdir().unwrap();
    let fleet = Fleet::new(dir.path().to_path_buf());
    let before = registered(&fleet, "alpha");
    registered(&fleet, "beta");
    let run = fleet.start(split(2), Arc::new(NoObserver)).unwrap();
    order(&fleet, &before.agent_id);
    fleet
        .heartbeat(&before.agent_id, report(&run, 0, "local-a"))
        .unwrap();
    drop(fleet);
    let again = Fleet::new(dir.path().to_path_buf());
    again.pick_up(Arc::new(NoObserver)).unwrap();
    // Known only from the record, or by the earlier id: unknown, whatever the key.
    for id in ["restored:alpha", before.agent_id.as_str()] {
        assert!(matches!(
            again.check_agent_key(id, Some(&before.agent_key)),
            Err(FleetError::UnknownAgent(_))
        ));
    }
    let back = registered(&again, "alpha");
    assert_ne!(back.agent_key, before.agent_key);
    assert!(
        again
            .check_agent_key(&back.agent_id, Some(&back.agent_key))
            .is_ok()
    );
    assert!(matches!(
        again.check_agent_key(&back.agent_id, Some(&before.agent_key)),
        Err(FleetError::WrongAgentKey(_))
    ));
}

#[test]
fn the_first_folder_a_shards_agent_names_is_its_shards_and_no_other_agent_reaches_it() {
    let (fleet, _dir, alpha, beta, run) = alpha_and_beta();
    fleet.part_file(&alpha, &run, "local-a", "x").unwrap();
    assert_eq!(folder_of(&fleet, 0).as_deref(), Some("local-a"));
    // Beta's shard has no folder yet, and may not take alpha's.
    let said = refused_folder(fleet.part_dir(&beta, &run, "local-a"));
    assert!(
        said.contains("another shard's") && said.contains("shard 1"),
        "{said}"
    );
    // Nor may a report or a shard's end of beta's make it beta's.
    fleet.heartbeat(&beta, report(&run, 1, "local-a")).unwrap();
    assert_eq!(folder_of(&fleet, 1), None);
    let done = |local: &str| ShardDone {
        run_id: run.clone(),
        local_run_id: Some(local.to_string()),
        error: None,
    };
    assert!(matches!(
        fleet.shard_done(&beta, done("local-a")),
        Err(FleetError::NotShardFolder(_))
    ));
    assert!(!fleet.lock().run.as_ref().unwrap().shards[1].done);
    // Beta's report names its own: now alpha may not reach it, nor any folder but its
    // own; the refusal names alpha's own folder, never another agent.
    fleet.heartbeat(&beta, report(&run, 1, "local-b")).unwrap();
    assert_eq!(folder_of(&fleet, 1).as_deref(), Some("local-b"));
    for other in ["local-b", "local-c"] {
        let said = refused_folder(fleet.part_file(&alpha, &run, other, "summary.json"));
        assert!(said.contains("local-a") && !said.contains("beta"), "{said}");
    }
    assert!(fleet.part_dir(&alpha, &run, "local-a").is_ok());
    assert!(fleet.part_dir(&beta, &run, "local-b").is_ok());
}

#[test]
fn a_report_naming_another_folder_never_re_points_a_shard() {
    let (fleet, dir, alpha, beta, run) = alpha_and_beta();
    each_reports_its_folder(&fleet, &alpha, &beta, &run);
    // Alpha names beta's folder, then a new one; and it names beta's shard.
    fleet.heartbeat(&alpha, report(&run, 0, "local-b")).unwrap();
    fleet.heartbeat(&alpha, report(&run, 0, "local-z")).unwrap();
    fleet.heartbeat(&alpha, report(&run, 1, "local-z")).unwrap();
    assert_eq!(folder_of(&fleet, 0).as_deref(), Some("local-a"));
    assert_eq!(folder_of(&fleet, 1).as_deref(), Some("local-b"));
    // Its end naming beta's folder is refused; naming its own, taken.
    let done = |local: &str| ShardDone {
        run_id: run.clone(),
        local_run_id: Some(local.to_string()),
        error: None,
    };
    assert!(fleet.shard_done(&alpha, done("local-b")).is_err());
    // The record on disk says the same.
    let record =
        super::saved_run::read(&dir.path().join(".incoming").join(&run).join(RECORD_FILE)).unwrap();
    let folders: Vec<Option<&str>> = record
        .shards
        .iter()
        .map(|s| s.local_run_id.as_deref())
        .collect();
    assert_eq!(folders, [Some("local-a"), Some("local-b")]);
}

#[test]
fn an_agent_taking_a_shard_over_reaches_that_shards_folder_and_no_other() {
    let (fleet, _dir, alpha, beta, run) = alpha_and_beta();
    let spare = register(&fleet, "spare");
    fleet.part_dir(&alpha, &run, "local-a").unwrap();
    fleet.part_dir(&beta, &run, "local-b").unwrap();
    make_lost(&fleet, &beta);
    assert_eq!(fleet.lock().hand_lost_shards().len(), 1);
    order(&fleet, &spare);
    // It fetches the lost agent's copy of the shard, and goes on adding to it.
    assert!(
        fleet
            .part_file(&spare, &run, "local-b", "checkpoint.json")
            .is_ok()
    );
    refused_folder(fleet.part_dir(&spare, &run, "local-a"));
    refused_folder(fleet.part_dir(&spare, &run, "local-new"));
    // The lost agent reaches nothing of the run any more.
    assert!(matches!(
        fleet.part_dir(&beta, &run, "local-b"),
        Err(FleetError::UnknownRun(_))
    ));
}

#[test]
fn a_restarted_controller_keeps_each_shards_folder() {
    let (fleet, dir, alpha, beta, run) = alpha_and_beta();
    fleet.part_dir(&alpha, &run, "local-a").unwrap();
    fleet.part_dir(&beta, &run, "local-b").unwrap();
    drop(fleet);
    let again = Fleet::new(dir.path().to_path_buf());
    again.pick_up(Arc::new(NoObserver)).unwrap();
    let alpha = register(&again, "alpha");
    let beta = register(&again, "beta");
    assert!(again.part_dir(&alpha, &run, "local-a").is_ok());
    refused_folder(again.part_dir(&alpha, &run, "local-b"));
    refused_folder(again.part_dir(&beta, &run, "local-a"));
    assert!(again.part_dir(&beta, &run, "local-b").is_ok());
}

#[test]
fn a_record_giving_two_shards_one_folder_is_not_picked_up() {
    let (fleet, dir, alpha, beta, run) = alpha_and_beta();
    each_reports_its_folder(&fleet, &alpha, &beta, &run);
    drop(fleet);
    let path = dir.path().join(".incoming").join(&run).join(RECORD_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"local-b\"", "\"local-a\"")).unwrap();
    match super::saved_run::read(&path) {
        Err(e) => assert!(e.to_string().contains("local-a"), "{e}"),
        Ok(_) => panic!("a record giving two shards one folder was read"),
    }
    let again = Fleet::new(dir.path().to_path_buf());
    assert_eq!(again.pick_up(Arc::new(NoObserver)), None);
}
