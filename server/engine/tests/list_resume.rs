//! Resuming listings from checkpoints, against the embedded target: a listing stopped
//! part way, or cut off at a checkpoint taken while its listers were busy (a crash),
//! then resumed, counts every key, byte and space-report object exactly once and
//! leaves a key file with every key exactly once — in every mode.

mod common;

use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use keystorm_engine::listing::{
    self, Checkpointing, KeySink, ListCheckpoint, ListJob, ListOutputs, PageObserver,
};
use keystorm_results::{ListMode, ListOutcome};
use keystorm_s3::S3Client;
use keystorm_sim::SimHandle;
use tokio_util::sync::CancellationToken;

const BUCKET: &str = "resume";

/// 6000 keys: uniform base-62 names, some in folders, sizes all different.
async fn target(list_latency: Option<Duration>) -> (SimHandle, S3Client, BTreeSet<String>, u64) {
    let config = keystorm_sim::SimConfig {
        credentials: Some((common::ACCESS_KEY.into(), common::SECRET_KEY.into())),
        latency: keystorm_sim::LatencyConfig {
            list: list_latency.map(keystorm_types::Delay::Fixed),
            ..Default::default()
        },
        ..Default::default()
    };
    let sim = keystorm_sim::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("sim starts");
    let client = common::client_of(&sim.endpoint(), 16).await;
    sim.store().create_bucket(BUCKET);
    let mut rng = fastrand::Rng::with_seed(7);
    let alphabet = keystorm_results::BASE62_ALPHABET.as_bytes();
    let objects: Vec<(String, u64)> = (0..6000u64)
        .map(|i| {
            let name: String = (0..10)
                .map(|_| alphabet[rng.usize(..alphabet.len())] as char)
                .collect();
            let key = if i % 3 == 0 {
                format!("r/dir{}/{name}", i % 5)
            } else {
                format!("r/{name}")
            };
            (key, i)
        })
        .collect();
    let keys = objects.iter().map(|(k, _)| k.clone()).collect();
    let bytes = objects.iter().map(|(_, s)| s).sum();
    common::put_sized(&sim, BUCKET, objects);
    (sim, client, keys, bytes)
}

fn job(mode: ListMode) -> ListJob {
    ListJob {
        bucket: BUCKET.into(),
        prefix: "r/".into(),
        mode,
        listers: 4,
        page_size: 50,
        retries: 0,
        report_depth: Some(1),
        shard: Default::default(),
    }
}

async fn list_into(
    client: &S3Client,
    job: &ListJob,
    keys_file: std::fs::File,
    checkpoint: Checkpointing,
    observer: Arc<dyn PageObserver>,
    stop: CancellationToken,
) -> ListOutcome {
    let sink: KeySink = Arc::new(Mutex::new(std::io::BufWriter::new(keys_file)));
    listing::list(
        client,
        job,
        observer,
        ListOutputs {
            keys_file: Some(sink),
            entries: None,
            checkpoint: Some(checkpoint),
        },
        stop,
    )
    .await
    .unwrap_or_else(|e| panic!("{:?}: {e}", job.mode))
}

/// A fresh listing's checkpoints to `path`, every `every`.
fn saving_to(path: &Path, every: Duration) -> Checkpointing {
    Checkpointing {
        path: path.to_path_buf(),
        every,
        resume: None,
        on_save: None,
        keep_complete: false,
        consumer: None,
    }
}

/// Resumes from the checkpoint at `saved` to the end, then checks the whole listing.
async fn resume_and_check(
    client: &S3Client,
    job: &ListJob,
    saved: &Path,
    keys_path: &Path,
    truth: &(BTreeSet<String>, u64),
) {
    let mode = &job.mode;
    let checkpoint = ListCheckpoint::read(saved)
        .unwrap()
        .expect("a checkpoint was saved");
    checkpoint.check_matches(job, true, saved).unwrap();
    assert!(
        checkpoint.keys < truth.0.len() as u64,
        "{mode:?} had more to do"
    );
    let file = checkpoint.reopen_key_file(keys_path).unwrap();
    let path = saved.with_extension("resumed");
    let outcome = list_into(
        client,
        job,
        file,
        Checkpointing {
            resume: Some(checkpoint),
            ..saving_to(&path, Duration::from_secs(3600))
        },
        Arc::new(()),
        CancellationToken::new(),
    )
    .await;
    assert!(outcome.complete, "{mode:?}");
    assert_eq!(outcome.keys, truth.0.len() as u64, "{mode:?} keys");
    assert_eq!(outcome.bytes, truth.1, "{mode:?} bytes");
    let report = outcome.report.expect("report");
    assert_eq!(
        (report.total.objects, report.total.bytes),
        (outcome.keys, outcome.bytes),
        "{mode:?} report"
    );
    let by_prefix: u64 = report.by_prefix.values().map(|t| t.objects).sum();
    assert_eq!(by_prefix, outcome.keys, "{mode:?} report by prefix");
    let mut seen = BTreeSet::new();
    for line in std::io::BufReader::new(std::fs::File::open(keys_path).unwrap()).lines() {
        let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let key = v["key"].as_str().unwrap().to_string();
        assert!(seen.insert(key.clone()), "{mode:?} wrote {key:?} twice");
    }
    assert!(
        seen == truth.0,
        "{mode:?}: the key file differs from the target's keys"
    );
    assert!(
        !path.exists(),
        "{mode:?}: a completed listing leaves no checkpoint"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_listing_resumes_to_every_key_once() {
    let (_sim, client, keys, bytes) = target(None).await;
    let truth = (keys, bytes);
    let dir = tempfile::tempdir().unwrap();
    for mode in common::list_modes() {
        let job = job(mode.clone());
        let keys_path = dir.path().join("keys.jsonl");
        let saved = dir.path().join("list.checkpoint");
        let stop = CancellationToken::new();
        let stopper = stop.clone();
        let observer = Arc::new(common::AtPage::new(30, move || stopper.cancel()));
        let first = list_into(
            &client,
            &job,
            std::fs::File::create(&keys_path).unwrap(),
            saving_to(&saved, Duration::from_secs(3600)),
            observer,
            stop,
        )
        .await;
        assert!(!first.complete, "{mode:?}");
        assert!(first.keys > 0, "{mode:?}");
        // Lines the checkpoint does not account for (as if written just before a
        // crash) are cut off on resuming.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&keys_path)
            .unwrap();
        std::io::Write::write_all(&mut f, b"{\"key\":\"r/written-after").unwrap();
        resume_and_check(&client, &job, &saved, &keys_path, &truth).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkpoint_taken_while_listing_resumes_exactly() {
    // Checkpoints come every millisecond; at page 40 the lister there waits for one to
    // be saved and copies it: a checkpoint the other listers were busy around, as a
    // crash would find it.
    let (_sim, client, keys, bytes) = target(Some(Duration::from_millis(2))).await;
    let truth = (keys, bytes);
    let dir = tempfile::tempdir().unwrap();
    for mode in common::list_modes() {
        let job = job(mode.clone());
        let keys_path = dir.path().join("keys.jsonl");
        let saved = dir.path().join("list.checkpoint");
        let crash: PathBuf = dir.path().join("crash.checkpoint");
        let _ = std::fs::remove_file(&crash);
        let (from, to) = (saved.clone(), crash.clone());
        let (told, saves) = std::sync::mpsc::sync_channel(1);
        let saves = Mutex::new(saves);
        let observer = Arc::new(common::AtPage::new(40, move || {
            let saves = saves.lock().unwrap();
            saves
                .recv_timeout(Duration::from_secs(60))
                .expect("a checkpoint is saved while listing");
            std::fs::copy(&from, &to).expect("the saved checkpoint");
        }));
        let mut checkpointing = saving_to(&saved, Duration::from_millis(1));
        checkpointing.on_save = Some(Arc::new(move || {
            let _ = told.try_send(());
        }));
        let whole = list_into(
            &client,
            &job,
            std::fs::File::create(&keys_path).unwrap(),
            checkpointing,
            observer,
            CancellationToken::new(),
        )
        .await;
        assert!(whole.complete, "{mode:?}");
        assert!(
            !saved.exists(),
            "{mode:?}: a completed listing leaves no checkpoint"
        );
        // The key file now holds every key; resuming from the earlier checkpoint cuts it
        // back to what that checkpoint accounted for and lists the rest again.
        resume_and_check(&client, &job, &crash, &keys_path, &truth).await;
    }
}
