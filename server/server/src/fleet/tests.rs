//! The controller's bookkeeping without a network: registration rules, the barrier,
//! lost agents and their shards handed back, stopping.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use keystorm_link::bounds::BoundsError;
use keystorm_workload::observer::NoObserver;

use super::error::FleetError;
use super::new_run::NewFleetRun;
use super::state::Fleet;
use keystorm_link::protocol::{
    Heartbeat, LOST_AFTER_MS, Order, RegisterRequest, Registered, ShardDone, ShardReport,
};

fn fleet() -> (Arc<Fleet>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    (Fleet::new(dir.path().to_path_buf()), dir)
}

/// Registers agent `name`: its id and key.
pub(super) fn registered(fleet: &Fleet, name: &str) -> Registered {
    fleet
        .register(RegisterRequest {
            name: name.to_string(),
            host: "h".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            cores: 2,
            endpoint: None,
        })
        .unwrap()
}

/// Registers agent `name`: its id.
pub(super) fn register(fleet: &Fleet, name: &str) -> String {
    registered(fleet, name).agent_id
}

/// A run of `agents` shards (the live tests use it too).
pub(super) fn split(agents: u32) -> NewFleetRun {
    NewFleetRun {
        workload: "w".to_string(),
        text: "name: w".to_string(),
        workload_file: None,
        endpoint: Some("http://127.0.0.1:1".to_string()),
        labels: BTreeMap::new(),
        agents,
        plan: serde_json::json!({}),
        command_line: Vec::new(),
        target: "http://127.0.0.1:1".to_string(),
        client: "aws".to_string(),
        seed: 1,
        phases: 2,
        abort_on_loss: false,
        buckets: Vec::new(),
        searches: Vec::new(),
    }
}

/// The order waiting for `agent`, taken by a heartbeat.
pub(super) fn order(fleet: &Fleet, agent: &str) -> Option<Order> {
    fleet.heartbeat(agent, Heartbeat::default()).unwrap().order
}

pub(super) fn make_lost(fleet: &Fleet, agent: &str) {
    let mut inner = fleet.lock();
    let a = inner.agents.iter_mut().find(|a| a.id == agent).unwrap();
    a.last_seen = Instant::now() - Duration::from_millis(LOST_AFTER_MS + 1);
}

/// Agents a and b running shards 0 and 1 of a run; with `abort`, one that stops when
/// an agent is lost.
pub(super) fn two_agents_running(
    abort: bool,
) -> (Arc<Fleet>, tempfile::TempDir, String, String, String) {
    two_agents_running_with(NewFleetRun {
        abort_on_loss: abort,
        ..split(2)
    })
}

/// Agents a and b running shards 0 and 1 of the run `spec` of two shards.
pub(super) fn two_agents_running_with(
    spec: NewFleetRun,
) -> (Arc<Fleet>, tempfile::TempDir, String, String, String) {
    let (fleet, dir) = fleet();
    let a = register(&fleet, "a");
    let b = register(&fleet, "b");
    let run = fleet.start(spec, Arc::new(NoObserver)).unwrap();
    order(&fleet, &a);
    order(&fleet, &b);
    (fleet, dir, a, b, run)
}

const SHORT: Duration = Duration::from_millis(50);

#[test]
fn the_agents_view_says_which_endpoint_each_agent_drives() {
    let (fleet, _dir) = fleet();
    register(&fleet, "plain");
    fleet
        .register(RegisterRequest {
            name: "near-gw2".to_string(),
            host: "h".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            cores: 1,
            endpoint: Some("http://gw2.example:8080".to_string()),
        })
        .unwrap();
    let view = fleet.view();
    let endpoint_of = |name: &str| {
        view.agents
            .iter()
            .find(|a| a.name == name)
            .unwrap()
            .endpoint
            .clone()
    };
    assert_eq!(endpoint_of("plain"), None);
    assert_eq!(
        endpoint_of("near-gw2").as_deref(),
        Some("http://gw2.example:8080")
    );
}

#[test]
fn another_version_is_refused_with_both_versions_named() {
    let (fleet, _dir) = fleet();
    let e = fleet
        .register(RegisterRequest {
            name: "a".to_string(),
            host: "h".to_string(),
            version: "0.0.1-old".to_string(),
            cores: 1,
            endpoint: None,
        })
        .unwrap_err();
    assert!(matches!(e, FleetError::VersionMismatch { .. }));
    let message = e.to_string();
    assert!(message.contains("0.0.1-old") && message.contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn a_name_is_taken_while_its_agent_lives_and_free_once_it_is_lost() {
    let (fleet, _dir) = fleet();
    let first = register(&fleet, "a");
    let again = RegisterRequest {
        name: "a".to_string(),
        host: "h".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        cores: 1,
        endpoint: None,
    };
    assert!(matches!(
        fleet.register(again.clone()),
        Err(FleetError::NameTaken(_))
    ));
    make_lost(&fleet, &first);
    let second = fleet.register(again).unwrap().agent_id;
    assert_ne!(first, second);
    assert!(matches!(
        fleet.heartbeat(&first, Heartbeat::default()),
        Err(FleetError::UnknownAgent(_))
    ));
    assert!(matches!(
        fleet.register(RegisterRequest {
            name: "no spaces".to_string(),
            host: "h".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            cores: 1,
            endpoint: None,
        }),
        Err(FleetError::Bounds(BoundsError::BadName(_)))
    ));
}

#[test]
fn a_run_takes_as_many_idle_agents_as_asked_and_gives_each_one_shard() {
    let (fleet, _dir) = fleet();
    let ids: Vec<String> = ["c", "a", "b"]
        .iter()
        .map(|n| register(&fleet, n))
        .collect();
    assert!(matches!(
        fleet.start(split(4), Arc::new(NoObserver)),
        Err(FleetError::NotEnoughAgents(_))
    ));
    let run = fleet.start(split(2), Arc::new(NoObserver)).unwrap();
    // By name: a gets shard 0, b shard 1, c nothing.
    let shards: Vec<Option<u32>> = ids
        .iter()
        .map(|id| match order(&fleet, id) {
            Some(Order::Run(a)) => {
                assert_eq!((a.run_id.as_str(), a.count), (run.as_str(), 2));
                Some(a.index)
            }
            _ => None,
        })
        .collect();
    assert_eq!(shards, vec![None, Some(0), Some(1)]);
    assert!(matches!(
        fleet.start(split(1), Arc::new(NoObserver)),
        Err(FleetError::RunInProgress(_))
    ));
}

#[tokio::test]
async fn the_barrier_opens_when_every_shard_reached_the_phase() {
    let (fleet, _dir) = fleet();
    let a = register(&fleet, "a");
    let b = register(&fleet, "b");
    let run = fleet.start(split(2), Arc::new(NoObserver)).unwrap();
    let reply = fleet.barrier(&a, &run, 0, SHORT).await.unwrap();
    assert!(!reply.open, "b has not reached phase 0");
    let waiting = {
        let fleet = fleet.clone();
        let (a, run) = (a.clone(), run.clone());
        tokio::spawn(async move { fleet.barrier(&a, &run, 0, Duration::from_secs(30)).await })
    };
    let reply = fleet.barrier(&b, &run, 0, SHORT).await.unwrap();
    assert!(reply.open);
    assert!(
        waiting.await.unwrap().unwrap().open,
        "a waiting is let through"
    );
    // A shard that ended does not hold the others back.
    fleet
        .shard_done(
            &b,
            ShardDone {
                run_id: run.clone(),
                local_run_id: None,
                error: None,
            },
        )
        .unwrap();
    assert!(fleet.barrier(&a, &run, 1, SHORT).await.unwrap().open);
}

#[tokio::test]
async fn a_lost_agent_does_not_hold_the_barrier_and_its_restart_resumes_its_shard() {
    let (fleet, _dir) = fleet();
    let a = register(&fleet, "a");
    let b = register(&fleet, "b");
    let run = fleet.start(split(2), Arc::new(NoObserver)).unwrap();
    order(&fleet, &a);
    order(&fleet, &b);
    fleet
        .heartbeat(
            &b,
            Heartbeat {
                shard: Some(ShardReport {
                    run_id: run.clone(),
                    index: 1,
                    local_run_id: Some("local-b".to_string()),
                    phase: None,
                    operations: 10,
                    ..ShardReport::default()
                }),
                ..Heartbeat::default()
            },
        )
        .unwrap();
    assert!(!fleet.barrier(&a, &run, 1, SHORT).await.unwrap().open);
    make_lost(&fleet, &b);
    assert!(fleet.barrier(&a, &run, 1, SHORT).await.unwrap().open);
    let view = fleet.view();
    assert_eq!(view.run.unwrap().shards[1].state, "lost");
    // Started again under its name, b gets its shard back, to resume its own folder.
    let b2 = register(&fleet, "b");
    match order(&fleet, &b2) {
        Some(Order::Run(assignment)) => {
            assert_eq!(assignment.index, 1);
            assert_eq!(assignment.resume.as_deref(), Some("local-b"));
        }
        other => panic!("expected the shard back, got {other:?}"),
    }
}

#[tokio::test]
async fn stopping_tells_every_agent_and_aborts_the_next_barrier() {
    let (fleet, _dir) = fleet();
    let a = register(&fleet, "a");
    let run = fleet.start(split(1), Arc::new(NoObserver)).unwrap();
    order(&fleet, &a);
    assert!(fleet.stop(&run, "stopped by the user"));
    assert!(matches!(order(&fleet, &a), Some(Order::Stop { .. })));
    let reply = fleet.barrier(&a, &run, 0, SHORT).await.unwrap();
    assert_eq!(reply.abort.as_deref(), Some("stopped by the user"));
    assert!(
        !fleet.stop(&run, "again"),
        "a stopping run is not stopped twice"
    );
}

#[test]
fn part_files_are_plain_names_of_the_agents_own_run() {
    let (fleet, dir) = fleet();
    let a = register(&fleet, "a");
    let outsider = register(&fleet, "z");
    let run = fleet.start(split(1), Arc::new(NoObserver)).unwrap();
    let path = fleet
        .part_file(&a, &run, "local-1", "summary.json")
        .unwrap();
    assert!(path.starts_with(dir.path().join(".incoming").join(&run)));
    for (local, name) in [
        ("..", "x"),
        ("local-1", "../../etc"),
        ("local-1", ".hidden"),
        ("a/b", "x"),
    ] {
        assert!(matches!(
            fleet.part_file(&a, &run, local, name),
            Err(FleetError::Bounds(BoundsError::BadPart(_)))
        ));
    }
    assert!(matches!(
        fleet.part_file(&outsider, &run, "local-1", "x"),
        Err(FleetError::UnknownRun(_))
    ));
}

#[test]
fn an_order_lost_on_the_way_is_given_again() {
    let (fleet, _dir) = fleet();
    let a = register(&fleet, "a");
    let run = fleet.start(split(1), Arc::new(NoObserver)).unwrap();
    assert!(matches!(order(&fleet, &a), Some(Order::Run(_))));
    // The reply never reached the agent: it keeps saying it runs nothing.
    assert!(order(&fleet, &a).is_none(), "not at once");
    {
        let mut inner = fleet.lock();
        inner.agents[0].handed_at = Some(Instant::now() - Duration::from_secs(4));
    }
    assert!(matches!(order(&fleet, &a), Some(Order::Run(r)) if r.run_id == run));
    // An agent that says it runs the shard is not told again.
    {
        let mut inner = fleet.lock();
        inner.agents[0].handed_at = Some(Instant::now() - Duration::from_secs(4));
    }
    let running = Heartbeat {
        shard: Some(ShardReport {
            run_id: run.clone(),
            index: 0,
            local_run_id: None,
            phase: None,
            operations: 0,
            ..ShardReport::default()
        }),
        ..Heartbeat::default()
    };
    assert!(fleet.heartbeat(&a, running).unwrap().order.is_none());
}

#[test]
fn an_agent_that_leaves_is_not_given_a_shard_and_one_holding_a_shard_is_lost() {
    let (fleet, _dir) = fleet();
    let a = register(&fleet, "a");
    let b = register(&fleet, "b");
    fleet.leave(&a).unwrap();
    assert!(matches!(
        fleet.heartbeat(&a, Heartbeat::default()),
        Err(FleetError::UnknownAgent(_))
    ));
    assert!(matches!(
        fleet.start(split(2), Arc::new(NoObserver)),
        Err(FleetError::NotEnoughAgents(_))
    ));
    fleet.start(split(1), Arc::new(NoObserver)).unwrap();
    order(&fleet, &b);
    // Stopped before its shard ended: lost at once, and its name free for a restart.
    fleet.leave(&b).unwrap();
    assert_eq!(fleet.view().run.unwrap().shards[0].state, "lost");
    let b2 = register(&fleet, "b");
    assert!(matches!(order(&fleet, &b2), Some(Order::Run(_))));
}

#[tokio::test]
async fn a_lost_agent_stops_the_run_only_when_the_workload_says_abort() {
    for abort in [false, true] {
        let (fleet, _dir, _, b, run) = two_agents_running(abort);
        fleet.tick(&run);
        assert!(fleet.lock().run.as_ref().unwrap().state == super::run_record::RunState::Running);
        make_lost(&fleet, &b);
        fleet.tick(&run);
        let inner = fleet.lock();
        let r = inner.run.as_ref().unwrap();
        if abort {
            assert!(r.state == super::run_record::RunState::Stopping);
            let reason = r.stop_reason.clone().unwrap();
            assert!(
                reason.contains("b (shard 1)") && reason.contains("on_loss: abort"),
                "{reason}"
            );
            // Said where the run is shown, not only to the agents.
            assert!(
                r.warnings.iter().any(|w| w.contains("on_loss: abort")),
                "{:?}",
                r.warnings
            );
        } else {
            assert!(
                r.state == super::run_record::RunState::Running,
                "the others go on"
            );
        }
    }
}

#[tokio::test]
async fn a_stopping_run_is_merged_once_the_agent_it_waits_for_is_lost() {
    let (fleet, _dir) = fleet();
    let a = register(&fleet, "a");
    let b = register(&fleet, "b");
    let run = fleet.start(split(2), Arc::new(NoObserver)).unwrap();
    order(&fleet, &a);
    order(&fleet, &b);
    assert!(fleet.stop(&run, "stopped"));
    let done = ShardDone {
        run_id: run.clone(),
        local_run_id: None,
        error: None,
    };
    fleet.shard_done(&a, done).unwrap();
    // b neither sends its results nor says it stopped: only time tells it is lost.
    make_lost(&fleet, &b);
    assert!(fleet.lock().run.as_ref().unwrap().state.is_going());
    fleet.tick(&run);
    tokio::time::timeout(Duration::from_secs(30), fleet.ended(&run))
        .await
        .expect("the run ends once its last agent is lost");
    let inner = fleet.lock();
    let r = inner.run.as_ref().unwrap();
    // Neither shard sent a folder: nothing to merge, said so.
    assert!(r.error.as_deref().unwrap().contains("nothing to merge"));
}

/// Shard `index` of `run` as the agent running it reports it.
pub(super) fn report(run: &str, index: u32, local: &str) -> Heartbeat {
    Heartbeat {
        shard: Some(ShardReport {
            run_id: run.to_string(),
            index,
            local_run_id: Some(local.to_string()),
            ..ShardReport::default()
        }),
        ..Heartbeat::default()
    }
}

#[tokio::test]
async fn a_lost_shard_goes_to_an_idle_agent_which_resumes_the_controllers_copy() {
    let (fleet, _dir) = fleet();
    let a = register(&fleet, "a");
    let b = register(&fleet, "b");
    let spare = register(&fleet, "spare");
    let run = fleet.start(split(2), Arc::new(NoObserver)).unwrap();
    order(&fleet, &a);
    order(&fleet, &b);
    fleet.heartbeat(&b, report(&run, 1, "local-b")).unwrap();
    fleet
        .part_file(&b, &run, "local-b", "checkpoint.json")
        .unwrap();
    // The spare waits while every agent is there.
    fleet.tick(&run);
    assert!(order(&fleet, &spare).is_none());
    make_lost(&fleet, &b);
    fleet.tick(&run);
    match order(&fleet, &spare) {
        Some(Order::Run(assignment)) => {
            assert_eq!(assignment.index, 1);
            // The lost agent's folder, which the spare fetches from the controller.
            assert_eq!(assignment.resume.as_deref(), Some("local-b"));
        }
        other => panic!("expected shard 1 for the spare, got {other:?}"),
    }
    {
        let inner = fleet.lock();
        let r = inner.run.as_ref().unwrap();
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("agent b was lost") && w.contains("spare takes")),
            "{:?}",
            r.warnings
        );
    }
    // The copy is the spare's to read and add to now, not the lost agent's.
    assert!(fleet.part_dir(&spare, &run, "local-b").is_ok());
    assert!(matches!(
        fleet.part_file(&b, &run, "local-b", "checkpoint.json"),
        Err(FleetError::UnknownRun(_))
    ));
    // The lost agent comes back still running the shard: it is told to stop.
    let back = fleet.heartbeat(&b, report(&run, 1, "local-b")).unwrap();
    assert!(matches!(back.order, Some(Order::Stop { .. })), "{back:?}");
    // The barrier waits for the spare, not for the agent that came back.
    assert!(!fleet.barrier(&a, &run, 2, SHORT).await.unwrap().open);
    assert!(fleet.barrier(&spare, &run, 2, SHORT).await.unwrap().open);
}

#[test]
fn an_agent_whose_shard_ended_takes_a_lost_one_over_but_not_when_the_run_aborts_on_loss() {
    for abort in [false, true] {
        let (fleet, _dir, a, b, run) = two_agents_running(abort);
        let done = ShardDone {
            run_id: run.clone(),
            local_run_id: Some("local-a".to_string()),
            error: None,
        };
        // Its own shard ended (a tokio runtime is not needed: no merge starts yet).
        {
            let mut inner = fleet.lock();
            let shard = inner.run.as_mut().unwrap().shard_of(&a).unwrap();
            shard.done = true;
            shard.local_run_id = done.local_run_id.clone();
        }
        make_lost(&fleet, &b);
        let handed = fleet.lock().hand_lost_shards();
        let given = order(&fleet, &a);
        if abort {
            assert!(handed.is_empty() && given.is_none(), "{handed:?}");
        } else {
            assert_eq!(handed.len(), 1, "{handed:?}");
            assert!(
                matches!(&given, Some(Order::Run(x)) if x.index == 1),
                "{given:?}"
            );
            // Its calls now concern the shard it took over.
            let mut inner = fleet.lock();
            let shard = inner.run.as_mut().unwrap().shard_of(&a).unwrap();
            assert!(!shard.done);
        }
    }
}

#[test]
fn a_spare_takes_a_lost_shard_before_an_agent_whose_shard_ended() {
    let (fleet, _dir, a, b, run) = two_agents_running(false);
    // Registered after the run started: a spare, last by name.
    let spare = register(&fleet, "z-spare");
    {
        let mut inner = fleet.lock();
        let shard = inner.run.as_mut().unwrap().shard_of(&a).unwrap();
        shard.done = true;
        shard.local_run_id = Some("local-a".to_string());
    }
    make_lost(&fleet, &b);
    let handed = fleet.lock().hand_lost_shards();
    assert_eq!(handed.len(), 1, "{handed:?}");
    assert!(
        handed[0].contains("agent z-spare takes the shard over"),
        "{handed:?}"
    );
    assert!(
        matches!(order(&fleet, &spare), Some(Order::Run(x)) if x.run_id == run && x.index == 1)
    );
    assert!(order(&fleet, &a).is_none());
}
