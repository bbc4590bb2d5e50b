//! The copies of the shards' folders, apart from the controller's own files and within
//! its caps: the controller's names refused while its record stays writable and a
//! restart picks the run up; a piece or a whole file past a cap writing nothing; the
//! run's total counted again from disk after a restart; and a run recorded in the
//! earlier layout (copies beside the record) picked up with its copies moved.

use std::path::Path;
use std::sync::Arc;

use keystorm_link::bounds::BoundsError;
use keystorm_workload::observer::NoObserver;

use super::caps::PartCaps;
use super::error::FleetError;
use super::saved_run;
use super::state::Fleet;
use super::tests::{order, register, report as running, split, two_agents_running};
use keystorm_link::own_names::RECORD_FILE;

/// A controller with `caps`, agents `agent-0`... holding the `count` shards of a run
/// (at most 10): (fleet, its results folder, the agents' ids by shard, the run's id).
/// Shard I's folder is `local-I`, as its agent names it first.
fn shards(caps: PartCaps, count: u32) -> (Arc<Fleet>, tempfile::TempDir, Vec<String>, String) {
    let dir = tempfile::tempdir().unwrap();
    let fleet = Fleet::with_caps(dir.path().to_path_buf(), caps);
    let ids: Vec<String> = (0..count)
        .map(|i| register(&fleet, &format!("agent-{i}")))
        .collect();
    let run = fleet.start(split(count), Arc::new(NoObserver)).unwrap();
    for id in &ids {
        order(&fleet, id);
    }
    (fleet, dir, ids, run)
}

/// [`shards`] of one shard: its agent's id in place of the list.
fn one_shard(caps: PartCaps) -> (Arc<Fleet>, tempfile::TempDir, String, String) {
    let (fleet, dir, mut ids, run) = shards(caps, 1);
    (fleet, dir, ids.remove(0), run)
}

/// The controller restarted on `dir` with `caps`, the run picked up, its `count`
/// agents back: their ids by shard.
fn restarted(dir: &Path, caps: PartCaps, run: &str, count: u32) -> (Arc<Fleet>, Vec<String>) {
    let again = Fleet::with_caps(dir.to_path_buf(), caps);
    assert_eq!(again.pick_up(Arc::new(NoObserver)).as_deref(), Some(run));
    let ids = (0..count)
        .map(|i| register(&again, &format!("agent-{i}")))
        .collect();
    (again, ids)
}

fn caps(file: u64, run: u64) -> PartCaps {
    PartCaps { file, run }
}

#[test]
fn the_controllers_own_names_are_refused_and_a_restart_still_picks_the_run_up() {
    let (fleet, dir, a, run) = one_shard(PartCaps::default());
    let own = [
        "fleet-run.json",
        "fleet-run.json.tmp",
        "fleet-run.json.unreadable",
        "parts",
        "uploads",
    ];
    for name in own {
        for refused in [
            fleet.write_part_piece(&a, &run, name, "x", 0, b"hi"),
            fleet.write_part_piece(&a, &run, "local-0", name, 0, b"hi"),
            fleet.begin_part_upload(&a, &run, name, "x", None).map(drop),
            fleet
                .begin_part_upload(&a, &run, "local-0", name, None)
                .map(drop),
        ] {
            match refused {
                Err(FleetError::Bounds(BoundsError::BadPart(why))) => {
                    assert!(why.contains("keeps this name for its own files"), "{why}")
                }
                other => panic!("{name}: {other:?}"),
            }
        }
    }
    // A part's own files land under parts/, apart from the record.
    fleet
        .write_part_piece(&a, &run, "local-0", "manifest.json", 0, b"{}")
        .unwrap();
    let incoming = dir.path().join(".incoming").join(&run);
    assert!(incoming.join("parts/local-0/manifest.json").is_file());
    // The record is still written (a heartbeat that moves the shard saves it), and a
    // controller started again picks the run up.
    fleet.heartbeat(&a, running(&run, 0, "local-0")).unwrap();
    let saved = saved_run::read(&incoming.join(RECORD_FILE)).unwrap();
    assert_eq!(saved.shards[0].local_run_id.as_deref(), Some("local-0"));
    let entries: Vec<String> = std::fs::read_dir(&incoming)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        entries
            .iter()
            .all(|e| e == RECORD_FILE || e == "parts" || e == "uploads"),
        "{entries:?}"
    );
    drop(fleet);
    let (again, ids) = restarted(dir.path(), PartCaps::default(), &run, 1);
    assert_eq!(
        again.part_dir(&ids[0], &run, "local-0").unwrap(),
        incoming.join("parts/local-0")
    );
}

#[test]
fn a_piece_past_the_file_cap_writes_nothing() {
    let (fleet, dir, a, run) = one_shard(caps(100, 1_000));
    let log = dir
        .path()
        .join(".incoming")
        .join(&run)
        .join("parts/local-0/intervals.jsonl");
    fleet
        .write_part_piece(&a, &run, "local-0", "intervals.jsonl", 0, &[b'a'; 60])
        .unwrap();
    match fleet.write_part_piece(&a, &run, "local-0", "intervals.jsonl", 60, &[b'b'; 60]) {
        Err(e @ FleetError::FileOverCap { .. }) => {
            let said = e.to_string();
            assert!(
                said.contains("intervals.jsonl") && said.contains("--max-shard-file-size"),
                "{said}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Even a piece that starts earlier (and would cut the file) leaves it as it was.
    assert!(matches!(
        fleet.write_part_piece(&a, &run, "local-0", "intervals.jsonl", 10, &[b'c'; 95]),
        Err(FleetError::FileOverCap { .. })
    ));
    assert_eq!(std::fs::read(&log).unwrap(), vec![b'a'; 60]);
    // Up to the cap exactly is fine.
    fleet
        .write_part_piece(&a, &run, "local-0", "intervals.jsonl", 60, &[b'b'; 40])
        .unwrap();
    assert_eq!(std::fs::metadata(&log).unwrap().len(), 100);
}

#[test]
fn a_runs_copies_stay_within_the_run_cap_counted_again_after_a_restart() {
    let limits = caps(100, 250);
    let (fleet, dir, ids, run) = shards(limits, 4);
    // File `file` of shard `shard`'s folder, by its agent.
    let put = |fleet: &Fleet, ids: &[String], shard: usize, file: &str, at: u64, n: usize| {
        let local = format!("local-{shard}");
        fleet.write_part_piece(&ids[shard], &run, &local, file, at, &vec![b'x'; n])
    };
    put(&fleet, &ids, 0, "a", 0, 100).unwrap();
    put(&fleet, &ids, 1, "b", 0, 100).unwrap();
    match put(&fleet, &ids, 2, "c", 0, 60) {
        Err(e @ FleetError::RunOverCap { .. }) => {
            let said = e.to_string();
            assert!(said.contains("--max-run-copy-size"), "{said}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        !dir.path()
            .join(".incoming")
            .join(&run)
            .join("parts/local-2/c")
            .exists()
    );
    // A file cut shorter makes room.
    put(&fleet, &ids, 0, "a", 0, 40).unwrap();
    put(&fleet, &ids, 2, "c", 0, 60).unwrap();
    // 200 bytes held, as a controller started again counts them from disk.
    drop(fleet);
    let (again, ids) = restarted(dir.path(), limits, &run, 4);
    let held: u64 = 40 + 100 + 60;
    assert!(matches!(
        put(&again, &ids, 3, "d", 0, (250 - held + 1) as usize),
        Err(FleetError::RunOverCap { .. })
    ));
    put(&again, &ids, 3, "d", 0, (250 - held) as usize).unwrap();
}

#[test]
fn a_whole_file_past_a_cap_is_never_put_in_place() {
    let (fleet, dir, ids, run) = shards(caps(100, 150), 2);
    let (a, b) = (&ids[0], &ids[1]);
    let parts = dir.path().join(".incoming").join(&run).join("parts");
    let uploads = dir.path().join(".incoming").join(&run).join("uploads");
    let leftovers = || std::fs::read_dir(&uploads).unwrap().count();
    // Said larger than a file may be: refused before anything is read.
    assert!(matches!(
        fleet.begin_part_upload(a, &run, "local-0", "summary.json", Some(101)),
        Err(FleetError::FileOverCap { size: 101, .. })
    ));
    let upload = fleet
        .begin_part_upload(a, &run, "local-0", "summary.json", None)
        .unwrap();
    std::fs::write(&upload.temporary, [b'x'; 90]).unwrap();
    fleet.finish_part_upload(upload).unwrap();
    assert_eq!(leftovers(), 0);
    // Within a file's cap, past the run's: the file is not put in place.
    let upload = fleet
        .begin_part_upload(b, &run, "local-1", "summary.json", None)
        .unwrap();
    std::fs::write(&upload.temporary, [b'y'; 90]).unwrap();
    assert!(matches!(
        fleet.finish_part_upload(upload),
        Err(FleetError::RunOverCap { size: 180, .. })
    ));
    assert!(!parts.join("local-1/summary.json").exists());
    assert_eq!(leftovers(), 0);
    // Given up half way (too large, or broken off): nothing is left behind.
    let upload = fleet
        .begin_part_upload(b, &run, "local-1", "summary.json", None)
        .unwrap();
    std::fs::write(&upload.temporary, [b'z'; 10]).unwrap();
    drop(upload);
    assert_eq!(leftovers(), 0);
    // Replacing a file counts what it replaces.
    let upload = fleet
        .begin_part_upload(a, &run, "local-0", "summary.json", None)
        .unwrap();
    std::fs::write(&upload.temporary, [b'w'; 100]).unwrap();
    fleet.finish_part_upload(upload).unwrap();
    assert_eq!(
        std::fs::read(parts.join("local-0/summary.json")).unwrap(),
        vec![b'w'; 100]
    );
}

#[test]
fn a_run_recorded_in_the_earlier_layout_is_picked_up_with_its_copies_moved() {
    let (fleet, dir, a, _b, run) = two_agents_running(false);
    fleet.heartbeat(&a, running(&run, 0, "local-0")).unwrap();
    drop(fleet);
    // As a controller of the earlier layout left it: the copy beside the record, and a
    // folder an agent made where the record's temporary file goes.
    let incoming = dir.path().join(".incoming").join(&run);
    std::fs::remove_dir_all(incoming.join("parts")).ok();
    std::fs::create_dir_all(incoming.join("local-0")).unwrap();
    std::fs::write(incoming.join("local-0/manifest.json"), b"{}").unwrap();
    std::fs::create_dir_all(incoming.join("fleet-run.json.tmp")).unwrap();
    std::fs::write(incoming.join("fleet-run.json.tmp/x"), b"hi").unwrap();
    let again = Fleet::new(dir.path().to_path_buf());
    assert_eq!(again.pick_up(Arc::new(NoObserver)), Some(run.clone()));
    assert!(incoming.join("parts/local-0/manifest.json").is_file());
    assert!(!incoming.join("local-0").exists());
    // The record is written again where it belongs.
    assert!(incoming.join(RECORD_FILE).is_file());
    assert!(!incoming.join("fleet-run.json.tmp").exists());
    let a = register(&again, "a");
    assert_eq!(
        again.part_dir(&a, &run, "local-0").unwrap(),
        incoming.join("parts/local-0")
    );
}
