//! Bulk transfer against a real Ceph RGW (`scripts/ceph-up.sh`): a folder with a file
//! above the multipart threshold goes up and comes back byte-identical, and a second
//! download skips everything (RGW's multipart ETags are recomputed locally).
//!
//! Compiled with the `rgw-tests` feature (`scripts/test.sh` turns it on with the
//! cluster up); it fails, rather than skips, when the cluster is not configured.

#![cfg(feature = "rgw-tests")]

mod common;

use std::sync::Arc;

use keystorm_engine::listing::ListJob;
use keystorm_engine::transfer::{self, DownloadJob, UploadJob};
use keystorm_results::ListMode;
use keystorm_workload::plan::TransferSettings;
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_round_trips_through_rgw_with_multipart() {
    let client = common::rgw_client(16).await;
    let bucket = format!("ks-xfer-{}", fastrand::u32(..));
    assert!(client.create_bucket(&bucket).await.unwrap());
    let src = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(src.path().join("d/e")).unwrap();
    std::fs::write(src.path().join("small"), b"tiny").unwrap();
    std::fs::write(src.path().join("d/e/ü x.txt"), vec![b'u'; 40_000]).unwrap();
    let big: Vec<u8> = (0..(11u32 << 20) + 3).map(|i| (i % 239) as u8).collect();
    std::fs::write(src.path().join("d/big"), &big).unwrap();
    let settings = TransferSettings {
        in_flight: 4,
        part_size: 5 << 20,
        parts_above: 8 << 20,
        parts_in_flight: 3,
        resume: true,
    };
    let up = UploadJob {
        dir: src.path().to_path_buf(),
        bucket: bucket.clone(),
        prefix: "t/".into(),
        settings,
        follow_symlinks: false,
    };
    let o = transfer::upload(&client, &up, Arc::new(()), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!((o.objects, o.failed), (3, 0), "{o:?}");
    let head = client.head_object(&bucket, "t/d/big").await.unwrap();
    assert!(head.etag.unwrap().ends_with("-3\""));

    let dst = tempfile::tempdir().unwrap();
    let down = DownloadJob {
        list: ListJob {
            bucket: bucket.clone(),
            prefix: "t/".into(),
            mode: ListMode::Serial,
            listers: 1,
            page_size: 1000,
            retries: 1,
            report_depth: None,
            shard: Default::default(),
        },
        dir: dst.path().to_path_buf(),
        settings,
    };
    let o = transfer::download(
        &client,
        &down,
        Arc::new(()),
        Arc::new(()),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!((o.objects, o.failed), (3, 0), "{o:?}");
    assert_eq!(std::fs::read(dst.path().join("d/big")).unwrap(), big);
    assert_eq!(std::fs::read(dst.path().join("small")).unwrap(), b"tiny");
    assert_eq!(
        std::fs::read(dst.path().join("d/e/ü x.txt")).unwrap(),
        vec![b'u'; 40_000]
    );
    let o = transfer::download(
        &client,
        &down,
        Arc::new(()),
        Arc::new(()),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!((o.objects, o.skipped), (0, 3), "{o:?}");

    for key in ["t/small", "t/d/e/ü x.txt", "t/d/big"] {
        client.delete_object(&bucket, key).await.unwrap();
    }
    client.delete_bucket(&bucket).await.unwrap();
}
