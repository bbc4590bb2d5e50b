//! Bulk transfer against the embedded target: a folder uploaded (multipart above the
//! threshold) and downloaded back (ranged GETs above it) is byte-identical; a second
//! pass skips what is complete; a changed file moves again; a key such as
//! `../../etc/x` lands inside the download folder.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use keystorm_engine::listing::ListJob;
use keystorm_engine::transfer::{self, DownloadJob, RequestEvent, TransferObserver, UploadJob};
use keystorm_results::ListMode;
use keystorm_types::OpKind;
use keystorm_workload::plan::TransferSettings;
use tokio_util::sync::CancellationToken;

/// Counts requests by operation.
#[derive(Default)]
struct Requests {
    gets: AtomicU64,
    puts: AtomicU64,
    heads: AtomicU64,
}

impl TransferObserver for Requests {
    fn request(&self, e: RequestEvent) {
        assert!(e.outcome.is_ok(), "{e:?}");
        match e.op {
            OpKind::Get => &self.gets,
            OpKind::Put => &self.puts,
            _ => &self.heads,
        }
        .fetch_add(1, Ordering::Relaxed);
    }
}

fn settings() -> TransferSettings {
    TransferSettings {
        in_flight: 4,
        part_size: 5 << 20,
        parts_above: 8 << 20,
        parts_in_flight: 3,
        resume: true,
    }
}

/// Files of the test folder: small ones, folders, odd names, and one of 12 MiB + 7.
fn tree() -> Vec<(String, Vec<u8>)> {
    let mut files = vec![
        ("a.txt".to_string(), b"alpha".to_vec()),
        ("empty".to_string(), Vec::new()),
        ("dir/b c+d&e.bin".to_string(), vec![7u8; 3000]),
        (
            "dir/sub/日本.dat".to_string(),
            (0..70_000u32).map(|i| (i % 251) as u8).collect(),
        ),
        ("100%/x".to_string(), b"percent".to_vec()),
    ];
    files.push((
        "big/blob".to_string(),
        (0..(12u32 << 20) + 7)
            .map(|i| (i.wrapping_mul(31) % 253) as u8)
            .collect(),
    ));
    files
}

fn read_tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

async fn download_quietly(
    client: &keystorm_s3::S3Client,
    job: &DownloadJob,
) -> keystorm_results::TransferOutcome {
    transfer::download(
        client,
        job,
        Arc::new(()),
        Arc::new(()),
        CancellationToken::new(),
    )
    .await
    .unwrap()
}

fn list_job(prefix: &str) -> ListJob {
    ListJob {
        bucket: "xfer".into(),
        prefix: prefix.into(),
        mode: ListMode::Adaptive { delimiter: None },
        listers: 4,
        page_size: 1000,
        retries: 0,
        report_depth: None,
        shard: Default::default(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upload_then_download_is_byte_identical_and_resumes() {
    let sim = common::start_sim().await;
    let client = common::client_of(&sim.endpoint(), 16).await;
    client.create_bucket("xfer").await.unwrap();
    let src = tempfile::tempdir().unwrap();
    for (rel, data) in tree() {
        let p = src.path().join(&rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, data).unwrap();
    }
    let up = UploadJob {
        dir: src.path().to_path_buf(),
        bucket: "xfer".into(),
        prefix: "up/".into(),
        settings: settings(),
        follow_symlinks: false,
    };
    let requests = Arc::new(Requests::default());
    let o = transfer::upload(&client, &up, requests.clone(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!((o.objects, o.skipped, o.failed), (6, 0, 0), "{o:?}");
    let total: u64 = tree().iter().map(|(_, d)| d.len() as u64).sum();
    assert_eq!(o.bytes, total);
    // The 12 MiB file went up in three parts (plus the completion).
    assert_eq!(requests.puts.load(Ordering::Relaxed), 5 + 3 + 1);
    let head = client.head_object("xfer", "up/big/blob").await.unwrap();
    assert!(head.etag.unwrap().ends_with("-3\""));
    assert!(client.head_object("xfer", "up/100%/x").await.is_ok());

    let dst = tempfile::tempdir().unwrap();
    let down = DownloadJob {
        list: list_job("up/"),
        dir: dst.path().to_path_buf(),
        settings: settings(),
    };
    let requests = Arc::new(Requests::default());
    let o = transfer::download(
        &client,
        &down,
        Arc::new(()),
        requests.clone(),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!((o.objects, o.skipped, o.failed), (6, 0, 0), "{o:?}");
    assert_eq!(o.bytes, total);
    // Ranged GETs for the large object: three 5 MiB ranges.
    assert_eq!(requests.gets.load(Ordering::Relaxed), 5 + 3);
    assert!(o.per_stream.streams >= 1 && o.per_stream.p50 > 0.0, "{o:?}");
    assert_eq!(
        read_tree(dst.path()),
        read_tree(src.path()),
        "byte-identical"
    );

    // Again: everything is complete on both sides.
    let o = download_quietly(&client, &down).await;
    assert_eq!((o.objects, o.skipped), (0, 6));
    let o = transfer::upload(&client, &up, Arc::new(()), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!((o.objects, o.skipped), (0, 6));

    // A local file changed (same size, other bytes) is fetched again.
    std::fs::write(dst.path().join("a.txt"), b"ALPHA").unwrap();
    let o = download_quietly(&client, &down).await;
    assert_eq!((o.objects, o.skipped), (1, 5));
    assert_eq!(std::fs::read(dst.path().join("a.txt")).unwrap(), b"alpha");
    // No partial file is left behind.
    assert!(
        read_tree(dst.path())
            .keys()
            .all(|k| !k.ends_with(".keystorm-partial"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_cannot_escape_the_download_folder() {
    let sim = common::start_sim().await;
    let client = common::client_of(&sim.endpoint(), 4).await;
    client.create_bucket("xfer").await.unwrap();
    for key in ["p/../../etc/x", "p//double", "p/./dot", "p/ok"] {
        client
            .put_object("xfer", key, Bytes::from(key.as_bytes().to_vec()), &[])
            .await
            .unwrap();
    }
    let outer = tempfile::tempdir().unwrap();
    let dst = outer.path().join("dl");
    let down = DownloadJob {
        list: list_job("p/"),
        dir: dst.clone(),
        settings: settings(),
    };
    let o = download_quietly(&client, &down).await;
    assert_eq!((o.objects, o.failed), (4, 0), "{o:?}");
    // Everything is inside `dl`; nothing was written next to it or above it.
    let inside = read_tree(&dst);
    assert_eq!(inside["%2E%2E/%2E%2E/etc/x"], b"p/../../etc/x");
    assert_eq!(inside["%/double"], b"p//double");
    assert_eq!(inside["%2E/dot"], b"p/./dot");
    let beside: Vec<_> = std::fs::read_dir(outer.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, ["dl"]);

    // A symbolic link planted in the folder is not written through.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::remove_dir_all(dst.join("%2E%2E")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), dst.join("%2E%2E")).unwrap();
    let o = download_quietly(&client, &down).await;
    assert_eq!(o.failed, 1, "{o:?}");
    assert!(o.failures[0].contains("symbolic link"), "{o:?}");
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
}

/// Keeps the `transfer` events of a run.
#[derive(Default)]
struct Transfers(std::sync::Mutex<Vec<(String, keystorm_results::TransferOutcome)>>);

impl keystorm_workload::observer::Observer for Transfers {
    fn event(&self, _id: u64, event: &keystorm_results::RunEvent) {
        if let keystorm_results::RunEvent::Transfer { phase, outcome } = event {
            self.0
                .lock()
                .unwrap()
                .push((phase.name.clone(), outcome.clone()));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn download_and_upload_phases_move_the_keyspace_and_record_get_and_put() {
    let sim = common::start_sim().await;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("copy");
    let text = common::workload(
        &sim.endpoint(),
        &format!(
            "buckets: {{ names: [xfer-phase] }}\nkeyspace: {{ prefix: src/ }}\nobjects: {{ size: 2KiB }}\nbefore:\n  - {{ op: put, concurrency: 8, until_objects: 300 }}\nafter:\n  - {{ op: download, dir: \"{0}\", concurrency: 8 }}\n  - {{ op: upload, dir: \"{0}\", prefix: back/, concurrency: 8 }}\n  - {{ name: again, op: download, dir: \"{0}\" }}\n",
            folder.display()
        ),
    );
    let results = tempfile::tempdir().unwrap();
    let events = Arc::new(Transfers::default());
    let outcome = common::run_observed(&text, results.path(), events.clone()).await;
    assert_eq!(outcome.status.as_str(), "completed", "{:?}", outcome.error);
    let events = events.0.lock().unwrap().clone();
    let by = |name: &str| &events.iter().find(|(n, _)| n == name).expect(name).1;
    assert_eq!(
        (by("download").objects, by("download").bytes),
        (300, 300 * 2048)
    );
    assert_eq!(by("upload").objects, 300);
    // The second download finds every file complete.
    assert_eq!((by("again").objects, by("again").skipped), (0, 300));
    // Byte for byte what the target holds, under the same names.
    let client = common::client_of(&sim.endpoint(), 4).await;
    let tree = read_tree(&folder);
    assert_eq!(tree.len(), 300);
    let (name, data) = tree.iter().next().unwrap();
    let stored = client
        .get_object_bytes("xfer-phase", &format!("src/{name}"))
        .await
        .unwrap();
    assert_eq!(&stored[..], &data[..]);
    assert_eq!(
        &client
            .get_object_bytes("xfer-phase", &format!("back/{name}"))
            .await
            .unwrap()[..],
        &data[..]
    );
    // The phases' rows: GETs and listing pages for the download, PUTs for the upload.
    let row = |phase: &str, op: &str| {
        outcome
            .summary
            .rows
            .iter()
            .find(|r| r.phase == phase && r.op.as_str() == op)
            .map(|r| (r.stats.ops, r.stats.bytes))
    };
    assert_eq!(row("download", "get"), Some((300, 300 * 2048)));
    assert!(row("download", "list").is_some());
    assert_eq!(row("upload", "put"), Some((300, 300 * 2048)));
}
