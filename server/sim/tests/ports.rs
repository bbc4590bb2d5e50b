//! One target on several ports, as gateways in front of one store: what one port
//! writes every other reads, each port counts its own requests, a port's extra latency
//! slows only its requests, and a closed port refuses connections and drops the open
//! ones (requests in flight included) until it is reopened — from this process, or
//! through the admin API from another port, which also counts each port's requests
//! and gives one port faults of its own. Real sockets on loopback, one HTTP/1.1
//! connection per client so a test knows which connection it uses.

mod support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use keystorm_sim::{LatencyConfig, Op, PortHandle, SimConfig, SimHandle};
use keystorm_types::Delay;
use support::wait_until;

const MS: fn(u64) -> Duration = Duration::from_millis;

/// A target on a free loopback port; no credentials, so requests go unsigned.
async fn target(latency: LatencyConfig) -> SimHandle {
    keystorm_sim::start(
        "127.0.0.1:0".parse().unwrap(),
        SimConfig {
            latency,
            ..SimConfig::default()
        },
    )
    .await
    .unwrap()
}

async fn also(sim: &SimHandle, extra: LatencyConfig) -> PortHandle {
    sim.listen_also("127.0.0.1:0".parse().unwrap(), extra)
        .await
        .unwrap()
}

/// A target on three ports without added latency: the main one, then two more.
async fn three_ports() -> (SimHandle, PortHandle, PortHandle, PortHandle) {
    let sim = target(LatencyConfig::default()).await;
    let (b, c) = (
        also(&sim, LatencyConfig::default()).await,
        also(&sim, LatencyConfig::default()).await,
    );
    let a = sim.main_port().clone();
    (sim, a, b, c)
}

/// One kept-alive HTTP/1.1 connection to `addr`.
struct Conn(SendRequest<Full<Bytes>>);

impl Conn {
    async fn open(addr: SocketAddr) -> Conn {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (sender, conn) = http1::handshake(TokioIo::new(stream)).await.unwrap();
        tokio::spawn(conn);
        Conn(sender)
    }

    /// `method path` with `body`: status and body, or the error that ended it.
    async fn try_call(
        &mut self,
        method: Method,
        path: &str,
        body: &'static [u8],
    ) -> Result<(StatusCode, Bytes), hyper::Error> {
        self.0.ready().await?;
        let req = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "127.0.0.1")
            .body(Full::new(Bytes::from_static(body)))
            .unwrap();
        let response = self.0.send_request(req).await?;
        let status = response.status();
        Ok((status, response.into_body().collect().await?.to_bytes()))
    }

    async fn call(&mut self, method: Method, path: &str, body: &'static [u8]) -> Bytes {
        let (status, body) = self.try_call(method.clone(), path, body).await.unwrap();
        assert!(status.is_success(), "{method} {path}: {status} {body:?}");
        body
    }
}

/// Whether a new connection to `addr` is refused.
async fn refused(addr: SocketAddr) -> bool {
    match tokio::net::TcpStream::connect(addr).await {
        Ok(_) => false,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionRefused,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_port_serves_one_store_and_counts_its_own_requests() {
    let (sim, a, b, c) = three_ports().await;
    assert_eq!(a.addr(), sim.addr());
    assert!(a.addr() != b.addr() && b.addr() != c.addr() && a.addr() != c.addr());
    assert_eq!(
        b.endpoint(),
        format!("http://127.0.0.1:{}", b.addr().port())
    );
    let mut via_a = Conn::open(a.addr()).await;
    let mut via_b = Conn::open(b.addr()).await;
    let mut via_c = Conn::open(c.addr()).await;

    via_a.call(Method::PUT, "/shared", b"").await;
    via_a
        .call(Method::PUT, "/shared/from-a", b"written on a")
        .await;
    via_b
        .call(Method::PUT, "/shared/from-b", b"written on b")
        .await;
    assert_eq!(
        via_b.call(Method::GET, "/shared/from-a", b"").await,
        "written on a"
    );
    assert_eq!(
        via_a.call(Method::GET, "/shared/from-b", b"").await,
        "written on b"
    );
    for _ in 0..3 {
        assert_eq!(
            via_c.call(Method::GET, "/shared/from-a", b"").await,
            "written on a"
        );
    }
    via_c.call(Method::HEAD, "/shared/from-b", b"").await;
    let listed = via_c.call(Method::GET, "/shared?list-type=2", b"").await;
    let listed = String::from_utf8_lossy(&listed);
    assert!(
        listed.contains("<Key>from-a</Key>") && listed.contains("<Key>from-b</Key>"),
        "{listed}"
    );
    // Admin calls are no operation's, on any port.
    via_b
        .call(Method::GET, "/admin/keystorm/requests", b"")
        .await;

    let per_port = |op| [a.requests(op), b.requests(op), c.requests(op)];
    assert_eq!(per_port(Op::CreateBucket), [1, 0, 0]);
    assert_eq!(per_port(Op::PutObject), [1, 1, 0]);
    assert_eq!(per_port(Op::GetObject), [1, 1, 3]);
    assert_eq!(per_port(Op::HeadObject), [0, 0, 1]);
    assert_eq!(per_port(Op::ListObjectsV2), [0, 0, 1]);
    for op in Op::ALL {
        assert_eq!(
            per_port(op).iter().sum::<u64>(),
            sim.requests(op),
            "{}",
            op.name()
        );
    }
    assert_eq!(sim.ports().len(), 3);
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ports_extra_latency_slows_only_its_requests() {
    // The target's own 50 ms for every GET, and 200 ms more on one port.
    let sim = target(LatencyConfig {
        get: Some(Delay::Fixed(MS(50))),
        ..LatencyConfig::default()
    })
    .await;
    let slow = also(
        &sim,
        LatencyConfig {
            get: Some(Delay::Fixed(MS(200))),
            ..LatencyConfig::default()
        },
    )
    .await;
    let mut fast = Conn::open(sim.addr()).await;
    let mut slowly = Conn::open(slow.addr()).await;
    fast.call(Method::PUT, "/bkt", b"").await;
    // Only GETs are delayed: a PUT on the slow port costs nothing extra.
    slowly.call(Method::PUT, "/bkt/k", b"body").await;

    let timed = async |conn: &mut Conn| {
        let began = Instant::now();
        assert_eq!(conn.call(Method::GET, "/bkt/k", b"").await, "body");
        began.elapsed()
    };
    let mut fast_times = Vec::new();
    let mut slow_times = Vec::new();
    for _ in 0..2 {
        fast_times.push(timed(&mut fast).await);
        slow_times.push(timed(&mut slowly).await);
    }
    for (f, s) in fast_times.iter().zip(&slow_times) {
        assert!(*f >= MS(50), "the target's own latency: {f:?}");
        assert!(*s >= MS(250), "the target's and the port's: {s:?}");
        assert!(s > f, "slow port {s:?}, fast port {f:?}");
    }

    // The target's record: every GET got its delay, only the slow port's the extra.
    let delays = sim.delays();
    let of = |kind: &str| delays.iter().find(|d| d.kind == kind);
    let get = of("get").expect("GET delays recorded");
    assert_eq!(get.count, 4);
    let port = of("port").expect("the port's delays recorded");
    assert_eq!(port.count, 2);
    assert_eq!(port.count, slow.requests(Op::GetObject));
    assert!(port.drawn_us.min >= 199_000, "{:?}", port.drawn_us);
    assert!(port.applied_us.min >= 199_000, "{:?}", port.applied_us);
    assert_eq!(sim.main_port().requests(Op::GetObject), 2);

    // A port's latency can change while it serves: the main port's here.
    sim.main_port().set_latency(LatencyConfig {
        get: Some(Delay::Fixed(MS(200))),
        ..LatencyConfig::default()
    });
    let t = timed(&mut fast).await;
    assert!(t >= MS(250), "the main port slowed: {t:?}");
    sim.main_port().set_latency(LatencyConfig::default());
    timed(&mut fast).await;
    let delays = sim.delays();
    let count = |kind: &str| delays.iter().find(|d| d.kind == kind).map(|d| d.count);
    assert_eq!(count("get"), Some(6));
    assert_eq!(
        count("port"),
        Some(3),
        "only the GET on the slowed main port added"
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_port_refuses_and_drops_its_connections_until_reopened() {
    let sim = target(LatencyConfig::default()).await;
    // HEADs on port b hang for a minute: one is in flight when the port closes.
    let b = also(
        &sim,
        LatencyConfig {
            head: Some(Delay::Fixed(Duration::from_secs(60))),
            ..LatencyConfig::default()
        },
    )
    .await;
    let mut via_a = Conn::open(sim.addr()).await;
    via_a.call(Method::PUT, "/bkt", b"").await;
    via_a.call(Method::PUT, "/bkt/k", b"kept").await;
    let mut kept_alive = Conn::open(b.addr()).await;
    assert_eq!(kept_alive.call(Method::GET, "/bkt/k", b"").await, "kept");
    let mut hanging = Conn::open(b.addr()).await;
    let in_flight =
        tokio::spawn(async move { hanging.try_call(Method::HEAD, "/bkt/k", b"").await });
    wait_until("the HEAD to arrive", Duration::from_secs(30), || {
        b.requests(Op::HeadObject) == 1
    })
    .await;
    assert!(b.is_open().await);

    // Closing does not wait for the request in flight (it would take a minute).
    tokio::time::timeout(Duration::from_secs(30), b.close())
        .await
        .expect("close returns without waiting for requests in flight");
    assert!(!b.is_open().await);
    assert!(refused(b.addr()).await, "a new connection is refused");
    let dropped = kept_alive.try_call(Method::GET, "/bkt/k", b"").await;
    assert!(
        dropped.is_err(),
        "the kept-alive connection fails: {dropped:?}"
    );
    let cut = in_flight.await.unwrap();
    assert!(cut.is_err(), "the request in flight fails: {cut:?}");
    assert_eq!(
        b.requests(Op::GetObject),
        1,
        "nothing more reached the port"
    );
    b.close().await; // closing again does nothing

    // The other port serves on, the same store.
    via_a
        .call(Method::PUT, "/bkt/k2", b"while b was down")
        .await;

    b.reopen().await.unwrap();
    assert!(b.is_open().await);
    b.reopen().await.unwrap(); // reopening an open port does nothing
    let mut again = Conn::open(b.addr()).await;
    assert_eq!(again.call(Method::GET, "/bkt/k", b"").await, "kept");
    assert_eq!(
        again.call(Method::GET, "/bkt/k2", b"").await,
        "while b was down"
    );
    assert_eq!(
        b.requests(Op::GetObject),
        3,
        "counts span the closed period"
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_main_port_closes_and_reopens_too() {
    let sim = target(LatencyConfig::default()).await;
    let b = also(&sim, LatencyConfig::default()).await;
    let main = sim.main_port().clone();
    let mut kept_alive = Conn::open(main.addr()).await;
    kept_alive.call(Method::PUT, "/bkt", b"").await;

    main.close().await;
    assert!(refused(main.addr()).await);
    assert!(
        kept_alive
            .try_call(Method::GET, "/bkt?list-type=2", b"")
            .await
            .is_err(),
        "the kept-alive connection fails"
    );
    let mut via_b = Conn::open(b.addr()).await;
    via_b.call(Method::PUT, "/bkt/k", b"v").await;

    main.reopen().await.unwrap();
    assert_eq!(
        Conn::open(sim.addr())
            .await
            .call(Method::GET, "/bkt/k", b"")
            .await,
        "v"
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_the_target_stops_every_port() {
    let sim = target(LatencyConfig::default()).await;
    let b = also(&sim, LatencyConfig::default()).await;
    let addrs = [sim.addr(), b.addr()];
    let mut kept_alive = Conn::open(b.addr()).await;
    kept_alive.call(Method::PUT, "/bkt", b"").await;

    sim.shutdown().await;
    for addr in addrs {
        assert!(refused(addr).await, "{addr} still accepts connections");
    }
    assert!(
        kept_alive
            .try_call(Method::HEAD, "/bkt", b"")
            .await
            .is_err(),
        "the kept-alive connection fails"
    );
    assert!(!b.is_open().await);
    assert!(
        b.reopen().await.is_err(),
        "no port reopens on a stopped target"
    );

    // Dropping the handle stops the target too (without waiting for it).
    let sim = target(LatencyConfig::default()).await;
    let b = also(&sim, LatencyConfig::default()).await;
    let addrs = [sim.addr(), b.addr()];
    drop(sim);
    for addr in addrs {
        let began = Instant::now();
        while !refused(addr).await {
            assert!(
                began.elapsed() < Duration::from_secs(30),
                "{addr} still accepts connections after the handle was dropped"
            );
            tokio::time::sleep(MS(10)).await;
        }
    }
}

/// An admin call through `conn`: status and JSON body.
async fn admin(conn: &mut Conn, method: Method, path: &str) -> (StatusCode, serde_json::Value) {
    let (status, body) = conn.try_call(method, path, b"").await.unwrap();
    let json = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body:?}"));
    (status, json)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_api_counts_closes_reopens_and_faults_each_port() {
    let (sim, a, b, c) = three_ports().await;
    let number = |p: &PortHandle| p.addr().port();
    let mut via_a = Conn::open(a.addr()).await;
    let mut via_b = Conn::open(b.addr()).await;
    let mut via_c = Conn::open(c.addr()).await;
    via_a.call(Method::PUT, "/bkt", b"").await;
    via_b.call(Method::PUT, "/bkt/k", b"kept").await;
    for _ in 0..3 {
        via_c.call(Method::GET, "/bkt/k", b"").await;
    }

    // Each port's requests, in the order the ports were opened, adding up to the
    // target's.
    let (status, ports) = admin(&mut via_a, Method::GET, "/admin/keystorm/ports").await;
    assert_eq!(status, StatusCode::OK, "{ports}");
    let ports = ports.as_array().unwrap().clone();
    let numbers: Vec<u64> = ports.iter().map(|p| p["port"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [&a, &b, &c].map(|p| u64::from(number(p))));
    assert_eq!(ports[1]["endpoint"], b.endpoint());
    assert!(
        ports
            .iter()
            .all(|p| p["open"] == true && p["faults"].is_null())
    );
    let totals: Vec<u64> = ports
        .iter()
        .map(|p| p["requests_total"].as_u64().unwrap())
        .collect();
    assert_eq!(totals, [1, 1, 3]);
    assert_eq!(ports[2]["requests"]["GetObject"], 3);
    let (_, all) = admin(&mut via_a, Method::GET, "/admin/keystorm/requests").await;
    for op in Op::ALL {
        let per_port: u64 = ports
            .iter()
            .map(|p| p["requests"][op.name()].as_u64().unwrap())
            .sum();
        assert_eq!(per_port, all[op.name()].as_u64().unwrap(), "{}", op.name());
    }

    // Port b taken down through port a: new connections refused, open ones dropped.
    let close_b = format!("/admin/keystorm/ports/{}/close", number(&b));
    let (status, doc) = admin(&mut via_a, Method::POST, &close_b).await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert_eq!(doc["open"], false);
    assert!(refused(b.addr()).await, "a new connection to b is refused");
    assert!(
        via_b.try_call(Method::GET, "/bkt/k", b"").await.is_err(),
        "the kept-alive connection to b fails"
    );
    // The others serve on.
    assert_eq!(via_c.call(Method::GET, "/bkt/k", b"").await, "kept");
    // A port does not close itself: its answer could not get out.
    let close_a = format!("/admin/keystorm/ports/{}/close", number(&a));
    let (status, doc) = admin(&mut via_a, Method::POST, &close_a).await;
    assert_eq!(status, StatusCode::CONFLICT, "{doc}");
    assert_eq!(doc["Code"], "ClosesItsOwnPort");
    assert!(a.is_open().await);
    // Brought back through port c.
    let reopen_b = format!("/admin/keystorm/ports/{}/reopen", number(&b));
    let (status, doc) = admin(&mut via_c, Method::POST, &reopen_b).await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert_eq!(doc["open"], true);
    let mut again = Conn::open(b.addr()).await;
    assert_eq!(again.call(Method::GET, "/bkt/k", b"").await, "kept");
    assert_eq!(
        b.requests(Op::GetObject),
        1,
        "counts span the closed period"
    );

    // Port c's own faults: its GETs fail, the same GETs through a do not, and its
    // PUTs (not in `ops`) go through.
    let faults_c = format!(
        "/admin/keystorm/ports/{}/faults?slow_down=100%25&ops=get&seed=5",
        number(&c)
    );
    let (status, doc) = admin(&mut via_a, Method::POST, &faults_c).await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    assert_eq!(doc["faults"]["slow_down"], 1.0);
    assert_eq!(doc["faults"]["ops"], serde_json::json!(["get"]));
    for _ in 0..4 {
        let (status, _) = via_c.try_call(Method::GET, "/bkt/k", b"").await.unwrap();
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(via_a.call(Method::GET, "/bkt/k", b"").await, "kept");
    }
    via_c.call(Method::PUT, "/bkt/k2", b"through c").await;
    let (_, faults) = admin(&mut via_a, Method::GET, "/admin/keystorm/faults").await;
    assert_eq!(faults["slow_down"], 4, "{faults}");
    assert_eq!(faults["ops"]["get"]["slow_down"], 4, "{faults}");
    assert_eq!(faults["ports"][number(&c).to_string()]["slow_down"], 4);
    assert_eq!(faults["ports"][number(&a).to_string()]["slow_down"], 0);
    assert_eq!(sim.fault_counts().slow_down, 4);
    assert_eq!(c.fault_counts().slow_down, 4);
    // Cleared: c serves its GETs again, and what it injected stays counted.
    let clear_c = format!("/admin/keystorm/ports/{}/faults", number(&c));
    let (status, doc) = admin(&mut via_a, Method::POST, &clear_c).await;
    assert_eq!(
        (status, &doc["faults"]),
        (StatusCode::OK, &serde_json::Value::Null)
    );
    assert_eq!(via_c.call(Method::GET, "/bkt/k", b"").await, "kept");
    assert_eq!(doc["injected"]["slow_down"], 4);

    // What is not a call on a port says so.
    for (method, path, status, code) in [
        (
            Method::POST,
            "/admin/keystorm/ports/1/close",
            404,
            "NoSuchPort",
        ),
        (Method::GET, close_b.as_str(), 405, "MethodNotAllowed"),
        (
            Method::POST,
            "/admin/keystorm/ports",
            405,
            "MethodNotAllowed",
        ),
        (
            Method::POST,
            "/admin/keystorm/ports/9/explode",
            404,
            "NoSuchKey",
        ),
    ] {
        let (got, doc) = admin(&mut via_a, method, path).await;
        assert_eq!(
            (got.as_u16(), &doc["Code"]),
            (status, &serde_json::json!(code)),
            "{path}"
        );
    }
    let bad = format!("/admin/keystorm/ports/{}/faults?list_twice=0.5", number(&c));
    let (status, doc) = admin(&mut via_a, Method::POST, &bad).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        doc["Message"]
            .as_str()
            .unwrap()
            .contains("fails the bucket index"),
        "{doc}"
    );
    sim.shutdown().await;
}
