//! Latency and fault injection on the embedded target, seen by real clients on
//! loopback: added latency per operation (lower bounds, and the target's own record of
//! what it drew and applied, on time), and injected faults — 503
//! SlowDown, 500 InternalError, a connection closed without an answer, a stalled
//! answer, a GET body with one bit flipped — counted by the target exactly as
//! aws-sdk-s3, a raw hyper client and a plain TCP socket observe them, reproducibly
//! for a fixed seed.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_sdk_s3::Client;
use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::error::SdkError;
use aws_sdk_s3::primitives::ByteStream;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use keystorm_sim::{
    FaultConfig, FaultCounts, LatencyConfig, ObjectOp, SimConfig, SimHandle, Storage,
};
use keystorm_timer::wheel_reference::WheelReference;
use keystorm_types::Delay;
use support::{client, client_without_retries, put, start};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

const MS: fn(u64) -> Duration = Duration::from_millis;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latency_is_added_per_operation() {
    let sim = start(SimConfig {
        latency: LatencyConfig {
            put: Some(Delay::Fixed(MS(100))),
            get: Some(Delay::Uniform {
                low: MS(60),
                high: MS(90),
            }),
            head: Some(Delay::LogNormal {
                median: MS(20),
                p99: MS(40),
            }),
            list: Some(Delay::Fixed(MS(80))),
            delete: Some(Delay::Fixed(MS(70))),
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    c.create_bucket().bucket("slow").send().await.unwrap();
    let timed = async |f: std::pin::Pin<Box<dyn Future<Output = ()> + '_>>| {
        let began = Instant::now();
        f.await;
        began.elapsed()
    };
    for i in 0..3 {
        let t = timed(Box::pin(put(&c, "slow", &format!("k{i}")))).await;
        assert!(t >= MS(100), "put {t:?}");
        let t = timed(Box::pin(async {
            c.get_object()
                .bucket("slow")
                .key("k0")
                .send()
                .await
                .unwrap();
        }))
        .await;
        assert!(t >= MS(60), "get {t:?}");
        let t = timed(Box::pin(async {
            c.list_objects_v2().bucket("slow").send().await.unwrap();
        }))
        .await;
        assert!(t >= MS(80), "list {t:?}");
        c.head_object()
            .bucket("slow")
            .key("k0")
            .send()
            .await
            .unwrap();
    }
    let t = timed(Box::pin(async {
        c.delete_object()
            .bucket("slow")
            .key("k1")
            .send()
            .await
            .unwrap();
    }))
    .await;
    assert!(t >= MS(70), "delete {t:?}");
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bucket_and_admin_calls_get_no_latency() {
    let slow = Some(Delay::Fixed(Duration::from_secs(5)));
    let sim = start(SimConfig {
        latency: LatencyConfig {
            put: slow,
            get: slow,
            head: slow,
            list: slow,
            delete: slow,
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    let began = Instant::now();
    c.create_bucket().bucket("quick").send().await.unwrap();
    c.head_bucket().bucket("quick").send().await.unwrap();
    c.list_buckets().send().await.unwrap();
    let admin = support::Admin::new(&sim);
    assert_eq!(admin.stats("quick").await.status, 200);
    assert!(began.elapsed() < Duration::from_secs(4));
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_target_records_each_delay_it_drew_and_applied_and_applies_it_on_time() {
    const N: u64 = 200;
    let sim = start(SimConfig {
        latency: LatencyConfig {
            put: Some(Delay::Uniform {
                low: MS(1),
                high: MS(3),
            }),
            get: Some(Delay::Fixed(MS(2))),
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    c.create_bucket().bucket("timed").send().await.unwrap();
    // The target's delays and the reference tokio sleeps run side by side, so both
    // see the same machine.
    let requests = async {
        for i in 0..N {
            put(&c, "timed", &format!("k{i}")).await;
        }
        for _ in 0..N {
            let began = Instant::now();
            c.get_object()
                .bucket("timed")
                .key("k0")
                .send()
                .await
                .unwrap();
            assert!(began.elapsed() >= MS(2));
        }
    };
    let reference = WheelReference::start(MS(2));
    requests.await;
    let reference = reference.stop();
    let delays = sim.delays();
    let of = |kind: &str| delays.iter().find(|d| d.kind == kind).unwrap().clone();
    assert_eq!(delays.len(), 2, "{delays:#?}");
    // Every request's delay recorded: drawn as configured, applied never shorter.
    let get = of("get");
    assert_eq!(get.count, N);
    assert_eq!((get.drawn_us.min, get.drawn_us.max), (2_000, 2_000));
    assert!(get.applied_us.min >= 2_000, "{get:#?}");
    let put = of("put");
    assert_eq!(put.count, N);
    assert!(
        put.drawn_us.min >= 1_000 && put.drawn_us.max <= 3_000,
        "{put:#?}"
    );
    assert!(put.applied_us.min >= put.drawn_us.min, "{put:#?}");
    // On time: later than drawn by less than a sleep on tokio's wheel is, measured at the
    // same moment (the wheel ends a sleep at the tick after its deadline).
    let late = Duration::from_micros(get.late_us.p50.max(put.late_us.p50));
    assert!(
        late < reference,
        "the target's delays end {late:?} late (p50), tokio's sleeps {reference:?}"
    );
    // The same record over HTTP, for clients in another process.
    let answer = support::Admin::new(&sim)
        .get("/admin/keystorm/delays")
        .await;
    assert_eq!(answer.status, 200);
    let kinds: Vec<&str> = answer
        .json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["put", "get"]);
    assert_eq!(answer.json[1]["count"], N);
    sim.shutdown().await;
}

/// What a client saw of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Ok,
    SlowDown,
    InternalError,
    Reset,
    Stall,
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    ok: u64,
    faults: FaultCounts,
}

impl Tally {
    fn add(&mut self, seen: Seen) {
        match seen {
            Seen::Ok => self.ok += 1,
            Seen::SlowDown => self.faults.slow_down += 1,
            Seen::InternalError => self.faults.internal_error += 1,
            Seen::Reset => self.faults.reset += 1,
            Seen::Stall => self.faults.stall += 1,
        }
    }

    fn merge(&mut self, other: Tally) {
        self.ok += other.ok;
        self.faults.slow_down += other.faults.slow_down;
        self.faults.internal_error += other.faults.internal_error;
        self.faults.reset += other.faults.reset;
        self.faults.stall += other.faults.stall;
    }
}

/// The client gives up on an answer after this; stalls last longer.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(2);
const STALL: Duration = Duration::from_secs(5);

fn classify<E: std::fmt::Debug>(e: &SdkError<E, HttpResponse>) -> Seen {
    match e {
        SdkError::ServiceError(s) => match s.raw().status().as_u16() {
            503 => Seen::SlowDown,
            500 => Seen::InternalError,
            404 => Seen::Ok,
            other => panic!("unexpected status {other}: {e:?}"),
        },
        // Closed without an answer: hyper reports an incomplete message or a reset.
        SdkError::DispatchFailure(d) if d.is_io() || d.is_other() => Seen::Reset,
        SdkError::ResponseError(_) => Seen::Reset,
        SdkError::TimeoutError(_) => Seen::Stall,
        other => panic!("unexpected error: {other:?}"),
    }
}

async fn bounded<T>(f: impl Future<Output = T>) -> Option<T> {
    tokio::time::timeout(CLIENT_TIMEOUT, f).await.ok()
}

/// One request of kind `i % 6` through aws-sdk-s3, and what the client saw.
async fn sdk_request(c: &Client, i: usize) -> Seen {
    let key = format!("k{:03}", i % 50);
    let seen = match i % 6 {
        0 => {
            bounded(async {
                c.put_object()
                    .bucket("faulty")
                    .key(&key)
                    .body(ByteStream::from_static(b"0123456789abcdef"))
                    .send()
                    .await
                    .map(|_| Seen::Ok)
                    .unwrap_or_else(|e| classify(&e))
            })
            .await
        }
        1 | 2 => {
            bounded(async {
                match c.get_object().bucket("faulty").key(&key).send().await {
                    Err(e) => classify(&e),
                    // A stalled GET answers its headers; the body does not come.
                    Ok(out) => match out.body.collect().await {
                        Ok(_) => Seen::Ok,
                        Err(e) => panic!("body error before the client's timeout: {e:?}"),
                    },
                }
            })
            .await
        }
        3 => {
            bounded(async {
                c.head_object()
                    .bucket("faulty")
                    .key(&key)
                    .send()
                    .await
                    .map(|_| Seen::Ok)
                    .unwrap_or_else(|e| classify(&e))
            })
            .await
        }
        4 => {
            bounded(async {
                c.list_objects_v2()
                    .bucket("faulty")
                    .max_keys(10)
                    .send()
                    .await
                    .map(|_| Seen::Ok)
                    .unwrap_or_else(|e| classify(&e))
            })
            .await
        }
        _ => {
            bounded(async {
                c.delete_object()
                    .bucket("faulty")
                    .key(format!("gone{i}"))
                    .send()
                    .await
                    .map(|_| Seen::Ok)
                    .unwrap_or_else(|e| classify(&e))
            })
            .await
        }
    };
    seen.unwrap_or(Seen::Stall)
}

fn faulty(seed: u64, stall: f64) -> SimConfig {
    SimConfig {
        faults: FaultConfig {
            slow_down: 0.06,
            internal_error: 0.06,
            reset: 0.06,
            stall,
            stall_time: STALL,
            seed,
            ..Default::default()
        },
        ..Default::default()
    }
}

async fn faulty_bucket(sim: &SimHandle) {
    // Bucket calls get no faults.
    client(sim)
        .create_bucket()
        .bucket("faulty")
        .send()
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_sees_exactly_the_injected_faults() {
    let sim = start(faulty(7, 0.04)).await;
    faulty_bucket(&sim).await;
    let c = client_without_retries(&sim, None);
    // 8 workers, 360 requests, each one attempt.
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (c, next) = (c.clone(), next.clone());
            tokio::spawn(async move {
                let mut tally = Tally::default();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= 360 {
                        return tally;
                    }
                    tally.add(sdk_request(&c, i).await);
                }
            })
        })
        .collect();
    let mut total = Tally::default();
    for w in workers {
        total.merge(w.await.unwrap());
    }
    let injected = sim.fault_counts();
    assert_eq!(total.faults, injected, "client saw {total:?}");
    assert_eq!(
        total.ok + injected.slow_down + injected.internal_error + injected.reset + injected.stall,
        360
    );
    assert!(
        injected.slow_down > 0
            && injected.internal_error > 0
            && injected.reset > 0
            && injected.stall > 0,
        "{injected:?}"
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fixed_seed_gives_the_same_faults_to_the_same_requests() {
    let mut runs = Vec::new();
    for _ in 0..2 {
        let sim = start(faulty(42, 0.0)).await;
        faulty_bucket(&sim).await;
        let c = client_without_retries(&sim, None);
        let mut seen = Vec::new();
        for i in 0..120 {
            seen.push(sdk_request(&c, i).await);
        }
        let mut tally = Tally::default();
        seen.iter().for_each(|s| tally.add(*s));
        assert_eq!(tally.faults, sim.fault_counts());
        runs.push(seen);
        sim.shutdown().await;
    }
    assert_eq!(runs[0], runs[1]);
    assert!(runs[0].contains(&Seen::Reset) && runs[0].contains(&Seen::SlowDown));
}

type Raw = hyper_util::client::legacy::Client<
    hyper_util::client::legacy::connect::HttpConnector,
    Full<Bytes>,
>;

/// One request through a raw hyper client (the target checks no signatures here).
async fn raw_request(http: &Raw, endpoint: &str, i: usize) -> Seen {
    let (method, path, body) = match i % 3 {
        0 => (
            "PUT",
            format!("/faulty/r{i}"),
            Bytes::from_static(b"raw body"),
        ),
        1 => ("GET", "/faulty/fixed".to_string(), Bytes::new()),
        _ => ("HEAD", "/faulty/fixed".to_string(), Bytes::new()),
    };
    let req = http::Request::builder()
        .method(method)
        .uri(format!("{endpoint}{path}"))
        .body(Full::new(body))
        .unwrap();
    let seen = bounded(async {
        match http.request(req).await {
            // No answer: hyper says the connection closed before a complete message.
            Err(e) => {
                let text = format!("{e:?}");
                assert!(
                    text.contains("IncompleteMessage") || text.contains("reset"),
                    "{text}"
                );
                Seen::Reset
            }
            Ok(r) => {
                let status = r.status().as_u16();
                match r.into_body().collect().await {
                    Err(e) => panic!("body error before the client's timeout: {e:?}"),
                    Ok(_) => match status {
                        503 => Seen::SlowDown,
                        500 => Seen::InternalError,
                        200 => Seen::Ok,
                        other => panic!("unexpected status {other}"),
                    },
                }
            }
        }
    })
    .await;
    seen.unwrap_or(Seen::Stall)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raw_hyper_client_sees_exactly_the_injected_faults() {
    let sim = keystorm_sim::start("127.0.0.1:0".parse().unwrap(), faulty(5, 0.05))
        .await
        .unwrap();
    let http: Raw =
        hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .build_http();
    let create = http::Request::builder()
        .method("PUT")
        .uri(format!("{}/faulty", sim.endpoint()))
        .body(Full::new(Bytes::new()))
        .unwrap();
    assert_eq!(http.request(create).await.unwrap().status(), 200);
    // PUT until one gets through (PUTs draw faults too).
    let mut stored = false;
    for _ in 0..50 {
        let req = http::Request::builder()
            .method("PUT")
            .uri(format!("{}/faulty/fixed", sim.endpoint()))
            .body(Full::new(Bytes::from_static(b"0123456789")))
            .unwrap();
        if let Some(Ok(r)) = bounded(http.request(req)).await
            && r.status() == 200
        {
            stored = true;
            break;
        }
    }
    assert!(stored);
    let before = sim.fault_counts();
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (http, next, endpoint) = (http.clone(), next.clone(), sim.endpoint());
            tokio::spawn(async move {
                let mut tally = Tally::default();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= 240 {
                        return tally;
                    }
                    tally.add(raw_request(&http, &endpoint, i).await);
                }
            })
        })
        .collect();
    let mut seen = Tally::default();
    for w in workers {
        seen.merge(w.await.unwrap());
    }
    let after = sim.fault_counts();
    let injected = FaultCounts {
        slow_down: after.slow_down - before.slow_down,
        internal_error: after.internal_error - before.internal_error,
        reset: after.reset - before.reset,
        stall: after.stall - before.stall,
        key_error: after.key_error - before.key_error,
        corrupt: after.corrupt - before.corrupt,
        lost_on_reshard: after.lost_on_reshard - before.lost_on_reshard,
        listed_twice: after.listed_twice - before.listed_twice,
    };
    assert_eq!(seen.faults, injected, "client saw {seen:?}");
    assert!(injected.reset > 0 && injected.stall > 0, "{injected:?}");
    sim.shutdown().await;
}

/// A target without signatures where every object call draws `faults`.
async fn raw_target(faults: FaultConfig) -> SimHandle {
    let sim = keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        SimConfig {
            faults,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let c = client(&sim);
    c.create_bucket().bucket("raw").send().await.unwrap();
    sim
}

async fn exchange(sim: &SimHandle, request: &str) -> (Vec<u8>, Duration) {
    let mut s = tokio::net::TcpStream::connect(sim.addr()).await.unwrap();
    // Before the request leaves: the target may answer before `write_all` returns.
    let began = Instant::now();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(20), s.read(&mut buf)).await {
            Ok(Ok(0)) => break,
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            // A reset also ends the exchange.
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Ok(Err(e)) => panic!("{e}"),
            Err(_) => panic!("the connection was never closed"),
        }
    }
    (got, began.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_closes_the_connection_without_a_byte_of_answer() {
    let sim = raw_target(FaultConfig {
        reset: 1.0,
        seed: 1,
        ..Default::default()
    })
    .await;
    for request in [
        "GET /raw/k HTTP/1.1\r\nhost: x\r\n\r\n",
        "HEAD /raw/k HTTP/1.1\r\nhost: x\r\n\r\n",
        "PUT /raw/k HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\nhello",
    ] {
        let (got, _) = exchange(&sim, request).await;
        assert!(got.is_empty(), "{:?}", String::from_utf8_lossy(&got));
    }
    assert_eq!(sim.fault_counts().reset, 3);
    // Bucket calls are untouched.
    let (got, _) = exchange(
        &sim,
        "GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    )
    .await;
    assert!(got.starts_with(b"HTTP/1.1 200"));
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_limited_to_some_operations_leave_the_others_alone() {
    let sim = raw_target(FaultConfig {
        reset: 1.0,
        seed: 1,
        ops: vec![keystorm_sim::ObjectOp::Get, keystorm_sim::ObjectOp::Delete],
        ..Default::default()
    })
    .await;
    let close = "connection: close\r\n";
    let (put, _) = exchange(
        &sim,
        &format!("PUT /raw/k HTTP/1.1\r\nhost: x\r\n{close}content-length: 5\r\n\r\nhello"),
    )
    .await;
    assert!(
        put.starts_with(b"HTTP/1.1 200"),
        "{:?}",
        String::from_utf8_lossy(&put)
    );
    let (head, _) = exchange(
        &sim,
        &format!("HEAD /raw/k HTTP/1.1\r\nhost: x\r\n{close}\r\n"),
    )
    .await;
    assert!(head.starts_with(b"HTTP/1.1 200"));
    for request in [
        "GET /raw/k HTTP/1.1\r\nhost: x\r\n\r\n",
        "DELETE /raw/k HTTP/1.1\r\nhost: x\r\n\r\n",
    ] {
        let (got, _) = exchange(&sim, request).await;
        assert!(got.is_empty(), "{:?}", String::from_utf8_lossy(&got));
    }
    assert_eq!(sim.fault_counts().reset, 2);
    assert_eq!(
        sim.object_count("raw"),
        Some(1),
        "the DELETE never happened"
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_get_sends_its_headers_and_part_of_the_body_then_closes() {
    let stall = Duration::from_millis(800);
    let sim = raw_target(FaultConfig {
        stall: 1.0,
        stall_time: stall,
        seed: 1,
        ..Default::default()
    })
    .await;
    // The PUT stalls too (before any answer) and is never stored.
    let (got, took) = exchange(
        &sim,
        "PUT /raw/k HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n0123456789",
    )
    .await;
    assert!(got.is_empty() && took >= stall, "{took:?}");
    assert_eq!(sim.object_count("raw"), Some(0));
    // A GET of a missing key stalls in its error document.
    let (got, took) = exchange(&sim, "GET /raw/k HTTP/1.1\r\nhost: x\r\n\r\n").await;
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 404"), "{text}");
    assert!(took >= stall, "{took:?}");
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        !body.is_empty() && body.len() < length,
        "{} of {length}",
        body.len()
    );
    assert_eq!(sim.fault_counts().stall, 2);
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_of_a_multi_object_delete_fail_alone_and_stay() {
    use aws_sdk_s3::types::{Delete, ObjectIdentifier};
    let delete_all = async |c: &Client, keys: &[String]| {
        let objects = keys
            .iter()
            .map(|k| ObjectIdentifier::builder().key(k).build().unwrap())
            .collect();
        c.delete_objects()
            .bucket("multi")
            .delete(
                Delete::builder()
                    .set_objects(Some(objects))
                    .build()
                    .unwrap(),
            )
            .send()
            .await
            .unwrap()
    };
    let sim = start(SimConfig {
        faults: FaultConfig {
            key_error: 0.3,
            seed: 9,
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    c.create_bucket().bucket("multi").send().await.unwrap();
    let keys: Vec<String> = (0..200).map(|i| format!("k{i:03}")).collect();
    for k in &keys {
        put(&c, "multi", k).await;
    }
    let out = delete_all(&c, &keys).await;
    let failed: Vec<&str> = out.errors().iter().filter_map(|e| e.key()).collect();
    assert!(
        out.errors()
            .iter()
            .all(|e| e.code() == Some("InternalError"))
    );
    assert!(
        (30..=90).contains(&failed.len()),
        "{} keys failed",
        failed.len()
    );
    assert_eq!(failed.len() as u64, sim.fault_counts().key_error);
    assert_eq!(out.deleted().len() + failed.len(), keys.len());
    // Exactly the failed keys are left.
    let left = c.list_objects_v2().bucket("multi").send().await.unwrap();
    let left: Vec<&str> = left.contents().iter().filter_map(|o| o.key()).collect();
    assert_eq!(left, failed);

    // Faults limited to other operations leave multi-object deletes whole.
    let sim = start(SimConfig {
        faults: FaultConfig {
            key_error: 1.0,
            ops: vec![keystorm_sim::ObjectOp::Get],
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let c = client(&sim);
    c.create_bucket().bucket("multi").send().await.unwrap();
    for k in &keys[..10] {
        put(&c, "multi", k).await;
    }
    let out = delete_all(&c, &keys[..10]).await;
    assert!(out.errors().is_empty());
    assert_eq!(sim.object_count("multi"), Some(0));
}

/// A target without signatures keeping `storage`, with bucket `bits`, that flips a bit
/// of 30% of GET bodies (and injects nothing else), and a raw client for it.
async fn corrupting(storage: Storage) -> (SimHandle, Raw) {
    let sim = keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        SimConfig {
            storage,
            faults: FaultConfig {
                corrupt: 0.3,
                seed: 17,
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let http: Raw =
        hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .build_http();
    let (status, _) = call(&http, &sim, "PUT", "/bits", None, Bytes::new()).await;
    assert_eq!(status, 200);
    (sim, http)
}

/// One request through the raw client: its status and body.
async fn call(
    http: &Raw,
    sim: &SimHandle,
    method: &str,
    path: &str,
    range: Option<&str>,
    body: Bytes,
) -> (u16, Bytes) {
    let mut req = http::Request::builder()
        .method(method)
        .uri(format!("{}{path}", sim.endpoint()));
    if let Some(r) = range {
        req = req.header("range", r);
    }
    if method == "PUT" {
        // As every S3 client says it, 0 included (hyper leaves an empty body's out).
        req = req.header("content-length", body.len());
    }
    let r = http
        .request(req.body(Full::new(body)).unwrap())
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.into_body().collect().await.unwrap().to_bytes())
}

/// Bits in which `got` differs from `want` (`None` when the lengths differ).
fn bits_apart(got: &[u8], want: &[u8]) -> Option<u32> {
    (got.len() == want.len()).then(|| {
        got.iter()
            .zip(want)
            .map(|(a, b)| (a ^ b).count_ones())
            .sum()
    })
}

/// GETs every object once (`range` on each, if given) and checks each body is what
/// `expected` says or differs from it in exactly one bit; returns how many differed.
async fn get_all(
    http: &Raw,
    sim: &SimHandle,
    objects: &[Vec<u8>],
    range: Option<(usize, usize)>,
    expected: impl Fn(&[u8]) -> Vec<u8>,
) -> u64 {
    let mut corrupted = 0;
    for (i, stored) in objects.iter().enumerate() {
        let (header, want) = match range {
            Some((a, b)) if b < stored.len() => (
                Some(format!("bytes={a}-{b}")),
                expected(stored)[a..=b].to_vec(),
            ),
            _ => (None, expected(stored)),
        };
        let path = format!("/bits/k{i:03}");
        let (status, got) = call(http, sim, "GET", &path, header.as_deref(), Bytes::new()).await;
        assert_eq!(status, if header.is_some() { 206 } else { 200 }, "{path}");
        match bits_apart(&got, &want) {
            Some(0) => {}
            Some(1) => corrupted += 1,
            other => panic!("{path}: {other:?} bits apart, {} bytes", got.len()),
        }
    }
    corrupted
}

/// PUTs `objects`, GETs each twice over (whole, then ranged where long enough) and
/// checks that exactly the counted bodies came back with one bit flipped, and that
/// the target still holds what was PUT.
async fn corruption_is_one_bit_counted_and_never_stored(
    storage: Storage,
    objects: &[Vec<u8>],
    expected: impl Fn(&[u8]) -> Vec<u8> + Copy,
) {
    let (sim, http) = corrupting(storage).await;
    for (i, body) in objects.iter().enumerate() {
        let path = format!("/bits/k{i:03}");
        let (status, _) = call(&http, &sim, "PUT", &path, None, Bytes::from(body.clone())).await;
        assert_eq!(status, 200, "PUTs get no corruption");
    }
    // A missing key's error document is never corrupted either.
    let (status, body) = call(&http, &sim, "GET", "/bits/none", None, Bytes::new()).await;
    assert_eq!(status, 404);
    assert!(String::from_utf8_lossy(&body).contains("<Code>NoSuchKey</Code>"));
    for _ in 0..10 {
        call(&http, &sim, "GET", "/bits/none", None, Bytes::new()).await;
    }
    assert_eq!(sim.fault_counts().corrupt, 0);

    let whole = get_all(&http, &sim, objects, None, expected).await;
    assert_eq!(whole, sim.fault_counts().corrupt, "whole bodies");
    let n = objects.len() as u64;
    assert!(whole > n / 10 && whole < n / 2, "{whole} of {n} corrupted");
    // Ranges flip a bit of what they return; corruptions earlier left nothing behind.
    let ranged = get_all(&http, &sim, objects, Some((3, 40)), expected).await;
    assert_eq!(whole + ranged, sim.fault_counts().corrupt, "ranges");
    assert!(ranged > 0);
    let counts = sim.fault_counts();
    assert_eq!(counts, sim.fault_counts_of(ObjectOp::Get), "GETs only");
    assert_eq!(
        (counts.slow_down, counts.reset, counts.stall),
        (0, 0, 0),
        "no other fault"
    );
    assert_held(&sim, storage, objects);
    sim.shutdown().await;
}

/// The target holds what was PUT: the bytes in memory mode, the sizes in size-only.
fn assert_held(sim: &SimHandle, storage: Storage, objects: &[Vec<u8>]) {
    let bucket = sim.store().bucket("bits").unwrap();
    let held = bucket.read();
    for (i, body) in objects.iter().enumerate() {
        let o = held.get(format!("k{i:03}").as_bytes()).unwrap();
        assert_eq!(o.size, body.len() as u64);
        match storage {
            Storage::Memory => {
                let data = o.data.map_or(&[][..], |d| &d[..]);
                assert_eq!(data, &body[..], "k{i:03} as stored");
            }
            Storage::SizeOnly => assert!(o.data.is_none()),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupted_get_flips_one_bit_of_a_copy_of_the_stored_bytes() {
    let mut rng = fastrand::Rng::with_seed(3);
    // Empty bodies are never corrupted, nor counted.
    let objects: Vec<Vec<u8>> = (0..120)
        .map(|i| match i % 10 {
            0 => Vec::new(),
            9 => (0..100_000).map(|_| rng.u8(..)).collect(),
            _ => (0..rng.usize(1..3000)).map(|_| rng.u8(..)).collect(),
        })
        .collect();
    corruption_is_one_bit_counted_and_never_stored(Storage::Memory, &objects, |b| b.to_vec()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupted_size_only_get_is_zeros_with_one_bit_set() {
    let mut rng = fastrand::Rng::with_seed(4);
    // Bodies that are not zeros come back as zeros all the same; some span many
    // frames of zeros.
    let objects: Vec<Vec<u8>> = (0..120)
        .map(|i| match i % 10 {
            0 => Vec::new(),
            9 => vec![7; 300_000],
            _ => vec![0; rng.usize(1..3000)],
        })
        .collect();
    corruption_is_one_bit_counted_and_never_stored(Storage::SizeOnly, &objects, |b| {
        vec![0; b.len()]
    })
    .await;
}
