//! Objects larger than the content buffer, in operations phases, against a real target
//! on loopback that keeps their bytes: single PUTs and GETs, multipart uploads of
//! parallel parts and ranged parallel GETs, on both clients. Every GET is verified
//! against what was written (bodies that wrap round the 16 MiB buffer, ranges that
//! start inside it), the target's ETags show which objects went in parts, and a
//! target that flips a bit in every body is caught in every object.

mod common;

use keystorm_results::{RunStatus, SummaryRow};
use keystorm_types::OpKind;

/// 20 MiB: past the content buffer (16 MiB and 4 KiB), so every body wraps round it.
const SIZE: u64 = 20 << 20;

async fn start(corrupt: f64) -> keystorm_sim::SimHandle {
    common::start_corrupting(keystorm_sim::Storage::Memory, corrupt, 3).await
}

/// Fills 3 objects and reads each twice with `verify`, with `parts` (settings of both
/// phases) and `client`; returns the fill's and the read's rows.
async fn fill_and_read(endpoint: &str, client: &str, parts: &str) -> (SummaryRow, SummaryRow) {
    let text = common::workload(
        endpoint,
        &format!(
            "buckets: {{ names: [big] }}\nkeyspace: {{ seed: 9, prefix: b/ }}\n\
             objects: {{ size: {SIZE}, content: random }}\n\
             before:\n  - {{ name: fill, op: put, concurrency: 2, until_objects: 3{parts} }}\n\
             after:\n  - {{ name: read, op: get, concurrency: 2, operations: 6, verify: true{parts} }}\n"
        ),
    )
    .replace("  credentials:", &format!("  client: {client}\n  credentials:"));
    let results = tempfile::tempdir().unwrap();
    let outcome = common::run(&text, results.path()).await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    let row = |phase: &str| {
        outcome
            .summary
            .rows
            .iter()
            .find(|r| r.phase == phase)
            .unwrap_or_else(|| panic!("no {phase} row"))
            .clone()
    };
    (row("fill"), row("read"))
}

/// The ETags of the bucket's objects.
async fn etags(endpoint: &str) -> Vec<String> {
    let client = common::client(endpoint).await;
    let page = client
        .list_objects_v2("big", &keystorm_s3::ListRequest::default())
        .await
        .unwrap();
    let mut tags = Vec::new();
    for entry in &page.entries {
        let head = client.head_object("big", &entry.key).await.unwrap();
        assert_eq!(head.size, SIZE, "{}", entry.key);
        tags.push(head.etag.unwrap_or_default());
    }
    tags
}

fn assert_clean(fill: &SummaryRow, read: &SummaryRow) {
    assert_eq!((fill.stats.ops, fill.stats.errors), (3, 0), "{fill:?}");
    assert_eq!(fill.stats.bytes, 3 * SIZE);
    assert_eq!((read.stats.ops, read.stats.errors), (6, 0), "{read:?}");
    assert_eq!(read.stats.bytes, 6 * SIZE);
    assert_eq!(read.op, OpKind::Get);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_past_the_buffer_in_parts_read_back_as_written_on_both_clients() {
    for client in ["fast", "sdk"] {
        let sim = start(0.0).await;
        // 5 MiB parts above 8 MiB: 4 parts an object, 3 at once.
        let parts = ", part_size: 5MiB, parts_above: 8MiB, parts_in_flight: 3";
        let (fill, read) = fill_and_read(&sim.endpoint(), client, parts).await;
        assert_clean(&fill, &read);
        let tags = etags(&sim.endpoint()).await;
        assert_eq!(tags.len(), 3);
        assert!(
            tags.iter().all(|t| t.trim_matches('"').ends_with("-4")),
            "{client}: multipart ETags of 4 parts: {tags:?}"
        );
        // A TTFB for the ranged GETs, within their latency.
        let ttfb = read
            .stats
            .ttfb_us
            .as_ref()
            .expect("ranged GETs have a TTFB");
        assert!(ttfb.max <= read.stats.latency_us.max, "{client}: {ttfb:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_past_the_buffer_in_one_request_keep_their_md5_on_both_clients() {
    for client in ["fast", "sdk"] {
        let sim = start(0.0).await;
        // Below `parts_above`: one PUT, one GET; verify checks the MD5 ETag as well.
        let (fill, read) = fill_and_read(&sim.endpoint(), client, ", parts_above: 1GiB").await;
        assert_clean(&fill, &read);
        let tags = etags(&sim.endpoint()).await;
        assert!(
            tags.iter()
                .all(|t| t.trim_matches('"').len() == 32 && !t.contains('-')),
            "{client}: single-part ETags: {tags:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_bit_in_any_range_makes_the_object_corrupt() {
    let sim = start(1.0).await;
    let parts = ", part_size: 5MiB, parts_above: 8MiB, parts_in_flight: 4";
    let (fill, read) = fill_and_read(&sim.endpoint(), "fast", parts).await;
    assert_eq!((fill.stats.ops, fill.stats.errors), (3, 0));
    // Every range of every GET had a bit flipped; each object is one corrupt read.
    assert_eq!(read.stats.error_classes.get("corrupt"), Some(&6));
    assert_eq!(sim.fault_counts().corrupt, 6 * 4);
}
