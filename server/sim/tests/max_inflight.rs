//! `max_inflight`: the target serves that many requests at once and queues the rest,
//! like a gateway's pool of worker threads, so with a fixed latency L it cannot answer
//! more than N ÷ L requests a second — the known knee rate sweeps and searches are
//! tested against. Each wait is on the target's record.

mod support;

use std::time::{Duration, Instant};

use keystorm_sim::{LatencyConfig, SimConfig};
use tokio::task::JoinSet;

const PUTS: usize = 320;
const AT_ONCE: usize = 64;
const LATENCY: Duration = Duration::from_millis(20);

/// Wall time of `PUTS` PUTs sent `AT_ONCE` at a time to a target adding `LATENCY`
/// to each, serving `places` at once (`None`: no limit); and its record of the waits.
async fn puts(places: Option<u32>) -> (Duration, Option<keystorm_sim::DelayStats>) {
    let sim = support::start(SimConfig {
        latency: LatencyConfig {
            put: Some(keystorm_types::Delay::Fixed(LATENCY)),
            ..Default::default()
        },
        max_inflight: places,
        ..Default::default()
    })
    .await;
    let client = support::client(&sim);
    client.create_bucket().bucket("knee").send().await.unwrap();
    let began = Instant::now();
    let mut senders = JoinSet::new();
    for sender in 0..AT_ONCE {
        let client = client.clone();
        senders.spawn(async move {
            for n in (sender..PUTS).step_by(AT_ONCE) {
                support::put(&client, "knee", &format!("k{n}")).await;
            }
        });
    }
    senders.join_all().await;
    let took = began.elapsed();
    let queue = sim.delays().into_iter().find(|d| d.kind == "queue");
    (took, queue)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_serving_8_at_once_answers_at_most_8_per_latency() {
    // 8 places of 20 ms: at most 400 PUTs a second, so 320 take at least 800 ms
    // however fast the client is. (The bucket's creation waited too: 401 requests.)
    let (took, queue) = puts(Some(8)).await;
    let floor = LATENCY * (PUTS as u32) / 8;
    assert!(took >= floor, "{PUTS} PUTs in {took:?}, under {floor:?}");
    let queue = queue.expect("every request's wait recorded");
    assert_eq!(queue.count, PUTS as u64 + 1, "{queue:?}");
    assert_eq!(queue.late_us.max, 0, "{queue:?}");

    // Without the limit, 64 at once take a fraction of that (and nothing waits).
    let (unlimited, queue) = puts(None).await;
    assert!(queue.is_none(), "no places, no waits: {queue:?}");
    assert!(
        unlimited < took,
        "unlimited {unlimited:?} against 8 places {took:?}"
    );
}
