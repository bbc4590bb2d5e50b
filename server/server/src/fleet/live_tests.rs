//! The live view of a run across agents, fed by heartbeats without a network: the
//! shards' intervals merged per second with their histograms added, news sent twice
//! counted once, events relayed, and the live folder's end when no merge can replace it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use keystorm_results::metrics::{OpSummary, new_histogram};
use keystorm_results::{
    IntervalRecord, PhaseEnd, PhaseRef, ResultStore, RunStatus, Section, WindowState,
    encode_histogram,
};
use keystorm_results::{PhaseProgress, RunEvent};
use keystorm_types::OpKind;
use keystorm_workload::observer::Observer;

use super::state::Fleet;
use super::tests::split;
use keystorm_link::protocol::{
    Heartbeat, Order, RegisterRequest, SentInterval, ShardDone, ShardNews, ShardReport, now_ms,
};

#[derive(Default)]
struct Recorder(Mutex<Vec<(u64, RunEvent)>>);

impl Observer for Recorder {
    fn event(&self, id: u64, event: &RunEvent) {
        self.0.lock().unwrap().push((id, event.clone()));
    }
}

impl Recorder {
    fn intervals(&self) -> Vec<IntervalRecord> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter_map(|(_, e)| match e {
                RunEvent::Interval { record, .. } => Some((**record).clone()),
                _ => None,
            })
            .collect()
    }

    fn count(&self, name: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, e)| event_name(e) == name)
            .count()
    }
}

fn event_name(e: &RunEvent) -> &'static str {
    match e {
        RunEvent::Started { .. } => "started",
        RunEvent::PhaseStarted { .. } => "phase_started",
        RunEvent::Interval { .. } => "interval",
        RunEvent::Warning { .. } => "warning",
        RunEvent::Finished { .. } => "finished",
        _ => "other",
    }
}

fn phase() -> PhaseRef {
    PhaseRef {
        section: Section::Before,
        round: None,
        index: 0,
        name: "fill".to_string(),
    }
}

/// Shard news: the phase's start, then `seconds` intervals of `ops` PUTs each whose
/// latencies are `latency(shard, second, n)`.
fn news(shard: u64, base_ms: u64, seconds: u64, ops: u64) -> Vec<ShardNews> {
    let mut list = vec![ShardNews {
        seq: 0,
        interval: None,
        event: serde_json::to_value(RunEvent::PhaseStarted {
            phase: phase(),
            position: 0,
            end: PhaseEnd::Operations(1_000),
            at_once: keystorm_results::AtOnce {
                workers: Some(1),
                ..Default::default()
            }
            .with_concurrency(),
            objects: 0,
            index: Vec::new(),
            verify: false,
            rate: None,
        })
        .ok(),
    }];
    for s in 0..seconds {
        let mut h = new_histogram();
        for n in 0..ops {
            h.record(latency(shard, s, n)).unwrap();
        }
        let record = IntervalRecord {
            section: Section::Before,
            round: None,
            phase: "fill".to_string(),
            interval: s,
            t_s: s as f64,
            duration_s: 1.0,
            warmup: false,
            window: WindowState::default(),
            ops: BTreeMap::from([(
                OpKind::Put,
                OpSummary {
                    ops,
                    ..OpSummary::default()
                },
            )]),
            index: Vec::new(),
            merged: 1,
            asked_per_sec: None,
            epoch: None,
            endpoints: Vec::new(),
        };
        list.push(ShardNews {
            seq: s + 1,
            interval: serde_json::to_value(SentInterval {
                at_ms: base_ms + s * 1000 + 10 * shard,
                record,
                progress: PhaseProgress {
                    ops: ops * (s + 1),
                    ..PhaseProgress::default()
                },
                histograms: BTreeMap::from([(OpKind::Put, encode_histogram(&h))]),
                endpoint_histograms: Vec::new(),
            })
            .ok(),
            event: None,
        });
    }
    list
}

/// One shard of three is slow: its latencies are ten times the others'.
fn latency(shard: u64, second: u64, n: u64) -> u64 {
    (1_000 + second * 10 + n) * if shard == 2 { 10 } else { 1 }
}

#[tokio::test]
async fn the_shards_intervals_are_merged_per_second_and_the_live_folder_ends_with_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let fleet = Fleet::new(dir.path().to_path_buf());
    let agents: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|name| {
            fleet
                .register(RegisterRequest {
                    name: name.to_string(),
                    host: "h".to_string(),
                    version: env!("CARGO_PKG_VERSION").to_string(),
                    cores: 1,
                    endpoint: None,
                })
                .unwrap()
                .agent_id
        })
        .collect();
    let recorder = Arc::new(Recorder::default());
    let run = fleet.start(split(3), recorder.clone()).unwrap();
    let live_dir = dir.path().join(&run);
    let manifest = ResultStore::read_manifest(&live_dir).unwrap();
    assert_eq!(manifest.status, RunStatus::Running);
    assert_eq!(recorder.count("started"), 1);

    // Seconds in the future of the controller's clock: none is old enough to be given
    // out by the grace, so each waits for all three shards.
    let base_ms = (now_ms() / 1000 + 10) * 1000;
    const SECONDS: u64 = 5;
    for (shard, agent) in agents.iter().enumerate() {
        let Some(Order::Run(assignment)) =
            fleet.heartbeat(agent, Heartbeat::default()).unwrap().order
        else {
            panic!("agent {agent} got no shard");
        };
        let report = ShardReport {
            run_id: run.clone(),
            index: assignment.index,
            stream: 77,
            news: news(shard as u64, base_ms, SECONDS, 10 + shard as u64),
            ..ShardReport::default()
        };
        let beat = Heartbeat {
            shard: Some(report),
            ..Heartbeat::default()
        };
        fleet.heartbeat(agent, beat.clone()).unwrap();
        if shard < 2 {
            assert!(
                recorder.intervals().is_empty(),
                "a second waits for every shard"
            );
        }
        // The answer was lost, the agent sends the same news again: counted once.
        fleet.heartbeat(agent, beat).unwrap();
    }
    // Every shard sent seconds 0..4: a second is given out once every shard sent one
    // from after its span (a shard that began the phase later may still send its part
    // of second n in clock second n + 1), so seconds 0..2 are; 3 and 4 stay open
    // until the run ends.
    const GIVEN: usize = (SECONDS - 2) as usize;
    let merged = recorder.intervals();
    assert_eq!(merged.len(), GIVEN);
    for (s, record) in merged.iter().enumerate() {
        let put = &record.ops[&OpKind::Put];
        assert_eq!(put.ops, 10 + 11 + 12, "second {s}: the three shards' PUTs");
        // The p99 of the added histograms is the slow shard's tail, not an average.
        let mut all = new_histogram();
        for shard in 0..3u64 {
            for n in 0..10 + shard {
                all.record(latency(shard, s as u64, n)).unwrap();
            }
        }
        assert_eq!(
            put.latency_us.p99,
            all.value_at_quantile(0.99),
            "second {s}"
        );
    }
    assert_eq!(
        recorder.count("phase_started"),
        1,
        "announced once for all shards"
    );
    let logged = std::fs::read_to_string(live_dir.join("intervals.jsonl")).unwrap();
    assert_eq!(logged.lines().count(), GIVEN);

    // News the controller cannot read is left out, the run's view unharmed.
    let garbage = ShardReport {
        run_id: run.clone(),
        index: 0,
        stream: 77,
        news: vec![ShardNews {
            seq: SECONDS + 1,
            interval: Some(serde_json::json!({"at_ms": "soon", "record": {}})),
            event: Some(serde_json::json!({"event": "phase_started", "data": {"end": {}}})),
        }],
        ..ShardReport::default()
    };
    fleet
        .heartbeat(
            &agents[0],
            Heartbeat {
                shard: Some(garbage),
                ..Heartbeat::default()
            },
        )
        .unwrap();
    assert_eq!(recorder.intervals().len(), GIVEN);
    assert_eq!(recorder.count("phase_started"), 1);

    // The shards end without sending a folder: no merge replaces the live folder, which
    // says how the run ended, with every second in it.
    for agent in &agents {
        fleet
            .shard_done(
                agent,
                ShardDone {
                    run_id: run.clone(),
                    local_run_id: None,
                    error: Some("no target".to_string()),
                },
            )
            .unwrap();
    }
    fleet.ended(&run).await;
    assert_eq!(recorder.intervals().len(), SECONDS as usize);
    assert_eq!(recorder.count("finished"), 1);
    let manifest = ResultStore::read_manifest(&live_dir).unwrap();
    assert_eq!(manifest.status, RunStatus::Failed);
    assert!(manifest.error.unwrap().contains("nothing to merge"));
}

/// What an observer saw of a run's start: the id it was named by and whether the run's
/// folder existed then, and the events after.
struct NamedFirst {
    root: std::path::PathBuf,
    seen: Mutex<Vec<String>>,
}

impl Observer for NamedFirst {
    fn named(&self, run_id: &str) {
        let on_disk = self.root.join(run_id).exists();
        self.seen
            .lock()
            .unwrap()
            .push(format!("named {run_id} on disk {on_disk}"));
    }

    fn event(&self, _id: u64, event: &RunEvent) {
        self.seen
            .lock()
            .unwrap()
            .push(event_name(event).to_string());
    }
}

#[tokio::test]
async fn a_run_is_named_to_its_observer_before_its_folder_exists() {
    let dir = tempfile::tempdir().unwrap();
    let fleet = Fleet::new(dir.path().to_path_buf());
    fleet
        .register(RegisterRequest {
            name: "a".to_string(),
            host: "h".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            cores: 1,
            endpoint: None,
        })
        .unwrap();
    let observer = Arc::new(NamedFirst {
        root: dir.path().to_path_buf(),
        seen: Mutex::default(),
    });
    let run = fleet.start(split(1), observer.clone()).unwrap();
    let seen = observer.seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [format!("named {run} on disk false"), "started".to_string()]
    );
}
