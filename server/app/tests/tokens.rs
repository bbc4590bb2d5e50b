//! The tokens of `keystorm serve`, walked over every operation of the OpenAPI document
//! the server publishes (not a list kept here, so a route added later is walked too):
//! bound to every address with a token and a read-only token, each operation is 401
//! without a token and with a wrong one, 403 with the read-only token when it changes
//! state or belongs to the agent link, and reached with the right token. `/metrics`,
//! the event stream and the document itself need a token as well; the UI's files do
//! not. On loopback without a token everything stays open. The document is checked to
//! list every route the router has.

mod api_support;
mod process_support;
mod route_walk;

use std::collections::BTreeSet;

use api_support::{Http, Reply};
use route_walk::{Operation, Served, operation_count, operations, serve_with_a_finished_run};
use serde_json::{Value, json};

const TOKEN: &str = "full-token-0123456789";
const READ_TOKEN: &str = "read-token-0123456789";
const WRONG_TOKEN: &str = "some-other-token-0123";

/// `keystorm serve --port 0 ARGS...` with `env`, its results holding one finished run,
/// and a client reaching it through 127.0.0.1 whatever address it binds. Bound beyond
/// loopback it serves plain HTTP, so these tests are about tokens alone (TLS has tests
/// of its own in tls.rs).
fn serve(args: &[&str], env: &[(&str, &str)]) -> (Served, Http) {
    let mut args = args.to_vec();
    if args.contains(&"0.0.0.0") {
        args.push("--insecure-http");
    }
    let s = serve_with_a_finished_run(&args, env);
    let http = Http::new(format!("http://{}", s.addr));
    (s, http)
}

/// Whether the read-only token opens `op`: a read that is not the agent link's.
fn read_token_opens(op: &Operation) -> bool {
    !op.changes_state() && !op.agent_link()
}

/// Calls `op` with `token` (if any) as its bearer token.
async fn call(op: &Operation, http: &Http, token: Option<&str>) -> Reply {
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut headers: Vec<(&str, &str)> = Vec::new();
    if let Some(a) = &auth {
        headers.push(("authorization", a));
    }
    if let Some((_, content_type)) = &op.body {
        headers.push(("content-type", content_type));
    }
    let body = op.body.as_ref().map(|(b, _)| b.as_slice());
    http.request(&op.method, &op.path, body, &headers).await
}

/// The call got past the guards to its handler (which may refuse the values).
fn assert_reached(op: &Operation, reply: &Reply, who: &str) {
    let what = format!("{} {who}: {} {}", op.name(), reply.status, brief(reply));
    assert!(reply.status < 500, "{what}");
    assert!(!matches!(reply.status, 401 | 403 | 405), "{what}");
    if reply.status == 404 {
        let detail = reply.json()["detail"].as_str().unwrap_or("").to_string();
        assert!(!detail.starts_with("no API route"), "{what}");
    }
}

/// The start of the reply's body, for a failure's message.
fn brief(reply: &Reply) -> String {
    reply.text().chars().take(300).collect()
}

fn assert_unauthorized(op: &str, reply: &Reply) {
    assert_eq!(reply.status, 401, "{op}: {}", brief(reply));
    assert_eq!(reply.error_code(), "unauthorized", "{op}");
    let challenge = reply.headers["www-authenticate"].to_str().unwrap();
    assert!(challenge.starts_with("Bearer"), "{op}: {challenge}");
}

async fn read_document(http: &Http, token: Option<&str>) -> Value {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("authorization", a.as_str())).collect();
    let reply = http
        .request("GET", "/api/openapi.json", None, &headers)
        .await;
    assert_eq!(reply.status, 200, "{}", brief(&reply));
    reply.json()
}

/// The schemes the document says open the operation.
fn documented_schemes(doc: &Value, op: &Operation) -> BTreeSet<String> {
    doc["paths"][&op.template][op.method.to_lowercase()]["security"]
        .as_array()
        .unwrap_or_else(|| panic!("{} documents no security", op.name()))
        .iter()
        .flat_map(|requirement| requirement.as_object().unwrap().keys().cloned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_loopback_every_operation_needs_a_token_and_the_read_token_only_reads() {
    let (s, http) = serve(
        &["--bind", "0.0.0.0"],
        &[
            ("KEYSTORM_TOKEN", TOKEN),
            ("KEYSTORM_READ_TOKEN", READ_TOKEN),
        ],
    );
    let http = &http;
    // The document itself needs a token too.
    for token in [None, Some(WRONG_TOKEN)] {
        let auth = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("authorization", a.as_str())).collect();
        let reply = http
            .request("GET", "/api/openapi.json", None, &headers)
            .await;
        assert_unauthorized("GET /api/openapi.json", &reply);
    }
    let doc = read_document(http, Some(READ_TOKEN)).await;
    assert_eq!(doc, read_document(http, Some(TOKEN)).await);
    let ops = operations(&doc, &s.run_id);
    assert_eq!(ops.len(), operation_count(&doc));
    assert!(
        ops.len() >= 27,
        "the document lists {} operations",
        ops.len()
    );

    let mut refused_to_reader = 0;
    for op in &ops {
        assert_unauthorized(&op.name(), &call(op, http, None).await);
        assert_unauthorized(&op.name(), &call(op, http, Some(WRONG_TOKEN)).await);
        let reply = call(op, http, Some(READ_TOKEN)).await;
        if read_token_opens(op) {
            assert_reached(op, &reply, "with the read-only token");
        } else {
            assert_eq!(reply.status, 403, "{}: {}", op.name(), brief(&reply));
            assert_eq!(reply.error_code(), "read_only_token", "{}", op.name());
            let detail = reply.json()["detail"].as_str().unwrap().to_string();
            assert!(
                detail.contains("read-only token cannot")
                    && detail.contains(&format!(
                        "{} {}",
                        op.method,
                        op.path.split('?').next().unwrap()
                    )),
                "{}: {detail}",
                op.name()
            );
            refused_to_reader += 1;
        }
        // What the document says opens the operation is what does (an agent's own
        // calls need its key beside the token: the agent link's tests check that).
        let expected: BTreeSet<String> = if read_token_opens(op) {
            ["token", "read_token"].map(String::from).into()
        } else if op.template.starts_with("/api/agents/{id}/") {
            ["token", "agent_key"].map(String::from).into()
        } else {
            ["token"].map(String::from).into()
        };
        assert_eq!(documented_schemes(&doc, op), expected, "{}", op.name());
    }
    assert!(
        refused_to_reader > 10,
        "state changes and the agent link: {refused_to_reader}"
    );
    // With the full token every operation is reached, the changes last.
    for op in &ops {
        assert_reached(op, &call(op, http, Some(TOKEN)).await, "with the token");
    }

    // /metrics: either token, nothing else.
    for token in [None, Some(WRONG_TOKEN)] {
        let auth = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("authorization", a.as_str())).collect();
        let reply = http.request("GET", "/metrics", None, &headers).await;
        assert_unauthorized("GET /metrics", &reply);
    }
    for token in [READ_TOKEN, TOKEN] {
        let auth = format!("Bearer {token}");
        let reply = http
            .request("GET", "/metrics", None, &[("authorization", &auth)])
            .await;
        assert_eq!(reply.status, 200);
        assert!(reply.text().contains("keystorm_run_running"));
    }

    // The UI's files hold no data: the page loads without a token to ask for it.
    let page = http.get("/runs").await;
    assert_eq!(page.status, 200);
    assert!(
        page.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );

    // A state change with the full token from another site is still refused.
    let auth = format!("Bearer {TOKEN}");
    let reply = http
        .request(
            "POST",
            "/api/workloads/validate",
            Some(json!({"text": "x"}).to_string().as_bytes()),
            &[("authorization", &auth), ("sec-fetch-site", "cross-site")],
        )
        .await;
    assert_eq!(
        (reply.status, reply.error_code().as_str()),
        (403, "cross_site_request")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_and_the_event_stream_open_with_either_token() {
    let (s, http) = serve(
        &["--bind", "0.0.0.0"],
        &[
            ("KEYSTORM_TOKEN", TOKEN),
            ("KEYSTORM_READ_TOKEN", READ_TOKEN),
        ],
    );
    let http = &http;
    for (token, access) in [(READ_TOKEN, "read"), (TOKEN, "write")] {
        let auth = format!("Bearer {token}");
        let status = http
            .request("GET", "/api/status", None, &[("authorization", &auth)])
            .await
            .json();
        assert_eq!(status["access"], access);
        assert_eq!(status["token_required"], true);

        let events = http
            .events_as(&s.run_id, "", &[("authorization", &auth)], |e| {
                e.name == "finished"
            })
            .await;
        assert_eq!(events.first().unwrap().name, "started");
        assert_eq!(events.last().unwrap().data["status"], "completed");
        // A reconnect resumes after the last event seen, the token sent again.
        let resumed = http
            .events_as(
                &s.run_id,
                "",
                &[("authorization", &auth), ("last-event-id", "2")],
                |e| e.name == "finished",
            )
            .await;
        assert_eq!(resumed.first().unwrap().id, 3);
        assert_eq!(resumed.len(), events.len() - 3);
    }
    let path = format!("/api/runs/{}/events", s.run_id);
    assert_unauthorized(&path, &http.get(&path).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_loopback_without_a_token_everything_stays_open() {
    let (s, http) = serve(&[], &[]);
    let http = &http;
    let doc = read_document(http, None).await;
    let ops = operations(&doc, &s.run_id);
    assert_eq!(ops.len(), operation_count(&doc));
    for op in &ops {
        assert_reached(op, &call(op, http, None).await, "without a token");
    }
    assert_eq!(http.get("/metrics").await.status, 200);
    let status = http.get("/api/status").await.json();
    assert_eq!(status["access"], "open");
    assert_eq!(status["token_required"], false);
}

/// The routes of the router (`.route("PATH", get(..).put(..))` in server/server/src/api/mod.rs) as
/// (method, path) pairs.
fn routed() -> BTreeSet<(String, String)> {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../server/src/api/mod.rs"
    ))
    .unwrap();
    let mut out = BTreeSet::new();
    let mut rest = source.as_str();
    while let Some(at) = rest.find(".route(") {
        let after = &rest[at + ".route(".len()..];
        let mut depth = 1;
        let end = after
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map(|(i, _)| i)
            .expect("a closed .route(...)");
        let call = &after[..end];
        let path = call.split('"').nth(1).expect("a route's path");
        for method in ["get", "post", "put", "patch", "delete"] {
            let called = call.match_indices(&format!("{method}(")).any(|(i, _)| {
                !call[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
            });
            if called {
                out.insert((method.to_uppercase(), path.to_string()));
            }
        }
        rest = &after[end..];
    }
    out
}

#[test]
fn the_document_lists_every_route_of_the_router() {
    let doc: Value = serde_json::from_str(&keystorm_server::api::openapi_json()).unwrap();
    let documented: BTreeSet<(String, String)> = operations(&doc, "some-run")
        .into_iter()
        .map(|o| (o.method, o.template))
        .collect();
    let routed = routed();
    assert!(routed.len() > 20, "{routed:?}");
    let mut api_routes = BTreeSet::new();
    for (method, path) in routed {
        // Outside the document: /metrics and the document itself, each checked above
        // to need a token like the rest.
        if path == "/metrics" || path == "/openapi.json" {
            continue;
        }
        api_routes.insert((method, format!("/api{path}")));
    }
    let undocumented: Vec<_> = api_routes.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "routes the OpenAPI document leaves out (so the walk above would miss them): \
         {undocumented:?}"
    );
    let unrouted: Vec<_> = documented.difference(&api_routes).collect();
    assert!(
        unrouted.is_empty(),
        "operations of the document not found in server/src/api/mod.rs: {unrouted:?}"
    );
}

#[test]
fn a_read_only_token_alone_short_or_equal_to_the_token_is_refused() {
    let refused = |args: &[&str], env: &[(&str, &str)]| {
        let out = std::process::Command::new(process_support::BIN)
            .args(["serve", "--port", "0"])
            .args(args)
            .env_remove("KEYSTORM_TOKEN")
            .env_remove("KEYSTORM_READ_TOKEN")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let alone = refused(&["--read-token", READ_TOKEN], &[]);
    assert!(
        alone.contains("--read-token") && alone.contains("beside --token"),
        "{alone}"
    );
    let from_env = refused(&[], &[("KEYSTORM_READ_TOKEN", READ_TOKEN)]);
    assert!(from_env.contains("KEYSTORM_READ_TOKEN"), "{from_env}");
    let short = refused(&["--token", TOKEN, "--read-token", "short"], &[]);
    assert!(short.contains("at least 16 characters"), "{short}");
    let same = refused(&["--token", TOKEN, "--read-token", TOKEN], &[]);
    assert!(same.contains("must differ from --token"), "{same}");
}
