//! A real `keystorm serve` router on a loopback port, with its own workloads and
//! results folders, and a small HTTP client to talk to it (SSE included), which also
//! talks to a `keystorm serve` process.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use keystorm_server::api::{AppState, ServeConfig, router};

pub struct Server {
    pub http: Http,
    pub dir: tempfile::TempDir,
    pub state: AppState,
}

/// The server's API is called through its client.
impl std::ops::Deref for Server {
    type Target = Http;

    fn deref(&self) -> &Http {
        &self.http
    }
}

/// An HTTP client of one server: `base` is its `http://HOST:PORT`.
pub struct Http {
    pub base: String,
    client: Client<HttpConnector, Full<Bytes>>,
}

pub struct Reply {
    pub status: u16,
    pub headers: http::HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Asserts the API's error shape and returns the error code.
    pub fn error_code(&self) -> String {
        let v = self.json();
        assert!(v["detail"].is_string(), "error body has a detail: {v}");
        v["error"]
            .as_str()
            .expect("error body has a code")
            .to_string()
    }
}

/// A small workload on the embedded target: fill, `rounds` rounds of put + get.
pub fn rounds_workload(name: &str, rounds: u32) -> String {
    format!(
        "name: {name}
target: {{ endpoint: embedded }}
buckets: {{ names: [api-test] }}
objects: {{ size: 1KiB }}
before:
  - {{ name: fill, op: put, workers: 4, until_objects: 200 }}
rounds:
  count: {rounds}
  phases:
    - {{ name: write, op: put, workers: 4, operations: 150 }}
    - {{ name: read, op: get, workers: 4, operations: 150 }}
"
    )
}

/// A workload that goes on until stopped (an hour of rate-limited puts).
pub const LONG_WORKLOAD: &str = "name: long
target: { endpoint: embedded }
buckets: { names: [api-long] }
objects: { size: 16B }
before:
  - { name: trickle, op: put, workers: 2, rate: 200, duration: 1h }
";

impl Server {
    pub async fn start() -> Server {
        Server::start_with(None).await
    }

    pub async fn start_with(token: Option<&str>) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let workloads = dir.path().join("workloads");
        std::fs::create_dir_all(&workloads).unwrap();
        std::fs::write(workloads.join("rounds.yaml"), rounds_workload("rounds", 3)).unwrap();
        std::fs::write(workloads.join("long.yaml"), LONG_WORKLOAD).unwrap();
        let state = AppState::new(ServeConfig {
            token: token.map(str::to_string),
            ..ServeConfig::new(workloads, dir.path().join("results"))
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let app = router(state.clone());
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Server {
            http: Http::new(base),
            dir,
            state,
        }
    }

    pub fn results(&self) -> PathBuf {
        self.dir.path().join("results")
    }

    pub fn workloads(&self) -> PathBuf {
        self.dir.path().join("workloads")
    }

    /// Starts a run from YAML text; returns its id.
    pub async fn start_yaml(&self, yaml: &str) -> String {
        let r = self
            .post("/api/runs", serde_json::json!({ "yaml": yaml }))
            .await;
        assert_eq!(r.status, 201, "{}", r.text());
        r.json()["run_id"].as_str().unwrap().to_string()
    }
}

impl Http {
    pub fn new(base: String) -> Http {
        Http {
            base,
            client: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    pub async fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut req = http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base));
        let typed = headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
        if body.is_some() && !typed {
            req = req.header("content-type", "application/json");
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let req = req
            .body(Full::new(Bytes::copy_from_slice(body.unwrap_or_default())))
            .unwrap();
        let resp = self.client.request(req).await.expect("server answers");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        Reply {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.request("GET", path, None, &[]).await
    }

    pub async fn post(&self, path: &str, json: serde_json::Value) -> Reply {
        self.request("POST", path, Some(json.to_string().as_bytes()), &[])
            .await
    }

    pub async fn put(&self, path: &str, json: serde_json::Value) -> Reply {
        self.request("PUT", path, Some(json.to_string().as_bytes()), &[])
            .await
    }

    pub async fn patch(&self, path: &str, json: serde_json::Value) -> Reply {
        self.request("PATCH", path, Some(json.to_string().as_bytes()), &[])
            .await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.request("DELETE", path, None, &[]).await
    }

    /// Reads the run's SSE stream until `until` returns true for an event (or the
    /// stream ends); returns the events as (id, name, data).
    pub async fn events(
        &self,
        run_id: &str,
        last_event_id: Option<u64>,
        until: impl FnMut(&SseEvent) -> bool,
    ) -> Vec<SseEvent> {
        self.events_with(run_id, "", last_event_id, until).await
    }

    /// The event stream with a query string (`recent=N`).
    pub async fn events_with(
        &self,
        run_id: &str,
        query: &str,
        last_event_id: Option<u64>,
        until: impl FnMut(&SseEvent) -> bool,
    ) -> Vec<SseEvent> {
        let id = last_event_id.map(|id| id.to_string());
        let headers: Vec<(&str, &str)> =
            id.iter().map(|id| ("last-event-id", id.as_str())).collect();
        self.events_as(run_id, query, &headers, until).await
    }

    /// The event stream read with extra request headers (`authorization`,
    /// `last-event-id`).
    pub async fn events_as(
        &self,
        run_id: &str,
        query: &str,
        headers: &[(&str, &str)],
        mut until: impl FnMut(&SseEvent) -> bool,
    ) -> Vec<SseEvent> {
        let mut req = http::Request::builder()
            .uri(format!("{}/api/runs/{run_id}/events?{query}", self.base))
            .header("accept", "text/event-stream");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = self
            .client
            .request(req.body(Full::new(Bytes::new())).unwrap())
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        assert!(
            resp.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream")
        );
        let mut body = resp.into_body();
        let mut buf = String::new();
        let mut out = Vec::new();
        // A generous deadline so a broken stream fails the test instead of hanging it.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        loop {
            let frame = tokio::time::timeout_at(deadline, body.frame())
                .await
                .expect("the event stream stalled");
            let Some(frame) = frame else { break };
            let frame = frame.unwrap();
            let Ok(data) = frame.into_data() else {
                continue;
            };
            buf.push_str(&String::from_utf8_lossy(&data));
            while let Some(end) = buf.find("\n\n") {
                let block: String = buf.drain(..end + 2).collect();
                if let Some(e) = SseEvent::parse(&block) {
                    let stop = until(&e);
                    out.push(e);
                    if stop {
                        return out;
                    }
                }
            }
        }
        out
    }
}

#[derive(Debug, Clone)]
pub struct SseEvent {
    pub id: u64,
    pub name: String,
    pub data: serde_json::Value,
}

impl SseEvent {
    fn parse(block: &str) -> Option<SseEvent> {
        let mut id = None;
        let mut name = None;
        let mut data = String::new();
        for line in block.lines() {
            if let Some(v) = line
                .strip_prefix("id: ")
                .or_else(|| line.strip_prefix("id:"))
            {
                id = v.trim().parse().ok();
            } else if let Some(v) = line
                .strip_prefix("event: ")
                .or_else(|| line.strip_prefix("event:"))
            {
                name = Some(v.trim().to_string());
            } else if let Some(v) = line
                .strip_prefix("data: ")
                .or_else(|| line.strip_prefix("data:"))
            {
                data.push_str(v);
            }
        }
        Some(SseEvent {
            id: id?,
            name: name?,
            data: serde_json::from_str(&data).ok()?,
        })
    }
}
