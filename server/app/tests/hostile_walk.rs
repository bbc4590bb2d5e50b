//! Every door of `keystorm serve` tried as a hostile web page would, over every
//! operation of the OpenAPI document it publishes, `/metrics` and the UI's files:
//!
//! - DNS rebinding: a page whose name comes to resolve to 127.0.0.1 sends its own
//!   `Host` and `Origin` with `Sec-Fetch-Site: same-origin` — 421 for every operation,
//!   reads included, and so for an absolute request URI or a second `Host` naming it, a
//!   look-alike of a loopback name, and a name with invisible Unicode in it;
//! - another site's page (`Origin` of another host or port, `null`, Fetch Metadata
//!   `cross-site` or `same-site`) — 403 for every call that changes state;
//! - afterwards nothing changed: the one run is there with its notes and labels, no run
//!   was started, no workload written;
//! - every answer, refusals included, carries the security headers;
//! - the server still answers to 127.0.0.1, localhost and [::1], and a page of its own
//!   origin may change state.
//!
//! Beyond loopback (with a token) the token does not open a name the server was not
//! given: an address and the names of `--allowed-host` are answered, others get 421
//! naming the flag.

mod api_support;
mod process_support;
mod route_walk;

use route_walk::{
    Operation, RawReply, Served, operation_count, operations, raw_exchange,
    serve_with_a_finished_run,
};
use serde_json::Value;

const TOKEN: &str = "full-token-0123456789";

/// A hostile page's name.
const EVIL: &str = "rebind.evil.example";

/// The lines of a request for `op` (without a body length), `host` as its `Host`,
/// then `extra` headers.
fn head(op: &Operation, target: &str, host: Option<&str>, extra: &[(&str, String)]) -> Vec<String> {
    let mut lines = vec![format!("{} {target} HTTP/1.1", op.method)];
    if let Some(host) = host {
        lines.push(format!("host: {host}"));
    }
    if let Some((_, content_type)) = &op.body {
        lines.push(format!("content-type: {content_type}"));
    }
    lines.extend(extra.iter().map(|(n, v)| format!("{n}: {v}")));
    lines
}

fn send(s: &Served, op: &Operation, head: Vec<String>) -> RawReply {
    let body = op.body.as_ref().map_or(&[][..], |(b, _)| b.as_slice());
    raw_exchange(&s.addr, &head, body)
}

fn bearer(token: Option<&str>) -> Vec<(&'static str, String)> {
    token
        .map(|t| vec![("authorization", format!("Bearer {t}"))])
        .unwrap_or_default()
}

/// The operations of the document, `/metrics` and the UI's page and an asset.
fn doors(s: &Served, token: Option<&str>) -> Vec<Operation> {
    let get = |path: &str| Operation {
        method: "GET".to_string(),
        template: path.to_string(),
        path: path.to_string(),
        body: None,
    };
    let doc_reply = send(
        s,
        &get("/api/openapi.json"),
        head(
            &get("/api/openapi.json"),
            "/api/openapi.json",
            Some(&s.addr),
            &bearer(token),
        ),
    );
    assert_eq!(doc_reply.status, 200, "{}", doc_reply.brief());
    let doc: Value = serde_json::from_str(&doc_reply.body).unwrap();
    let mut ops = operations(&doc, &s.run_id);
    assert_eq!(ops.len(), operation_count(&doc));
    assert!(ops.len() >= 25, "{} operations", ops.len());
    ops.insert(0, get("/metrics"));
    ops.insert(0, get("/assets/index.js"));
    ops.insert(0, get("/"));
    ops
}

/// The headers every answer carries, refusals included.
fn assert_guarded(op: &Operation, reply: &RawReply) {
    let what = format!("{}: {}", op.name(), reply.brief());
    let policy = reply.header("content-security-policy").unwrap_or_default();
    assert!(
        policy.contains("frame-ancestors 'none'"),
        "{what}: CSP {policy:?}"
    );
    if op.path.ends_with("/export/report.html") && reply.status == 200 {
        assert!(policy.contains("sandbox"), "{what}: CSP {policy:?}");
    } else {
        assert!(
            policy.contains("default-src 'self'"),
            "{what}: CSP {policy:?}"
        );
        assert!(!policy.contains("unsafe-inline"), "{what}: CSP {policy:?}");
    }
    assert_eq!(reply.header("x-frame-options"), Some("DENY"), "{what}");
    assert_eq!(
        reply.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(
        reply.header("referrer-policy"),
        Some("no-referrer"),
        "{what}"
    );
}

fn assert_misdirected(op: &Operation, trick: &str, reply: &RawReply) {
    assert_eq!(
        (reply.status, reply.error_code().as_deref()),
        (421, Some("host_not_allowed")),
        "{trick}: {}: {}",
        op.name(),
        reply.brief()
    );
    assert_guarded(op, reply);
}

fn assert_cross_site(op: &Operation, trick: &str, reply: &RawReply) {
    assert_eq!(
        (reply.status, reply.error_code().as_deref()),
        (403, Some("cross_site_request")),
        "{trick}: {}: {}",
        op.name(),
        reply.brief()
    );
    assert_guarded(op, reply);
}

/// Every trick a page under another name can play: each refused with 421.
fn rebinding_is_refused_everywhere(s: &Served, ops: &[Operation], token: Option<&str>) -> usize {
    let evil = format!("{EVIL}:{}", s.port);
    let auth = bearer(token);
    let with_auth = |mut more: Vec<(&'static str, String)>| {
        more.extend(auth.iter().cloned());
        more
    };
    let mut refused = 0;
    for op in ops {
        let page = with_auth(vec![
            ("origin", format!("http://{evil}")),
            ("sec-fetch-site", "same-origin".to_string()),
            ("sec-fetch-mode", "cors".to_string()),
        ]);
        let tricks: Vec<(&str, Vec<String>)> = vec![
            (
                "the page's own Host and Origin",
                head(op, &op.path, Some(&evil), &page),
            ),
            (
                "its Host without an Origin",
                head(op, &op.path, Some(&evil), &with_auth(Vec::new())),
            ),
            (
                "an absolute request URI naming it",
                head(
                    op,
                    &format!("http://{evil}{}", op.path),
                    Some(&s.addr),
                    &with_auth(Vec::new()),
                ),
            ),
            (
                "a second Host naming it",
                head(
                    op,
                    &op.path,
                    Some(&s.addr),
                    &with_auth(vec![("host", evil.clone())]),
                ),
            ),
            (
                "a look-alike of a loopback name",
                head(
                    op,
                    &op.path,
                    Some(&format!("localhost.evil.example:{}", s.port)),
                    &with_auth(Vec::new()),
                ),
            ),
            (
                "an address with invisible Unicode after it",
                head(
                    op,
                    &op.path,
                    Some(&format!("127.0.0.1\u{202e}:{}", s.port)),
                    &with_auth(Vec::new()),
                ),
            ),
        ];
        for (trick, lines) in tricks {
            let reply = send(s, op, lines);
            assert_misdirected(op, trick, &reply);
            refused += 1;
        }
    }
    refused
}

/// Every call that changes state sent by another site's page (with the server's own
/// `Host`): 403.
fn other_pages_cannot_change_state(s: &Served, ops: &[Operation]) -> usize {
    let mut refused = 0;
    for op in ops.iter().filter(|o| o.changes_state()) {
        let other_port = format!("http://127.0.0.1:{}", s.port.wrapping_add(1).max(1));
        let pages: [(&str, Vec<(&str, String)>); 5] = [
            (
                "another site's Origin",
                vec![("origin", "http://evil.example".to_string())],
            ),
            (
                "a page of another port of this machine",
                vec![("origin", other_port)],
            ),
            (
                "a sandboxed or file page (Origin: null)",
                vec![("origin", "null".to_string())],
            ),
            (
                "Fetch Metadata cross-site",
                vec![("sec-fetch-site", "cross-site".to_string())],
            ),
            (
                "Fetch Metadata same-site",
                vec![
                    ("sec-fetch-site", "same-site".to_string()),
                    ("origin", format!("http://{}", s.addr)),
                ],
            ),
        ];
        for (trick, headers) in pages {
            let reply = send(s, op, head(op, &op.path, Some(&s.addr), &headers));
            assert_cross_site(op, trick, &reply);
            refused += 1;
        }
    }
    refused
}

fn get(s: &Served, host: &str, path: &str, token: Option<&str>) -> RawReply {
    let op = Operation {
        method: "GET".to_string(),
        template: path.to_string(),
        path: path.to_string(),
        body: None,
    };
    let reply = send(s, &op, head(&op, path, Some(host), &bearer(token)));
    assert_guarded(&op, &reply);
    reply
}

/// Nothing the hostile calls tried happened.
fn nothing_changed(s: &Served, token: Option<&str>) {
    let run = get(s, &s.addr, &format!("/api/runs/{}", s.run_id), token);
    assert_eq!(run.status, 200, "the run is still there: {}", run.brief());
    let run: Value = serde_json::from_str(&run.body).unwrap();
    assert_eq!(run["info"]["notes"], "", "{run}");
    assert_eq!(run["info"]["labels"], serde_json::json!({}), "{run}");
    assert_eq!(
        route_walk::only_run(&s.results),
        s.run_id,
        "no run was started"
    );
    let workloads: Vec<_> = std::fs::read_dir(&s.workloads)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(workloads, ["rounds.yaml"], "no workload was written");
}

#[test]
fn on_loopback_no_page_under_another_name_or_of_another_site_gets_in() {
    let s = serve_with_a_finished_run(&[], &[]);
    let ops = doors(&s, None);
    let misdirected = rebinding_is_refused_everywhere(&s, &ops, None);
    let cross_site = other_pages_cannot_change_state(&s, &ops);
    nothing_changed(&s, None);
    let changing = ops.iter().filter(|o| o.changes_state()).count();
    assert!(changing >= 10, "{changing} operations change state");
    assert_eq!((misdirected, cross_site), (6 * ops.len(), 5 * changing));

    // The names the server is reached by still work, and its own page changes state.
    for host in [
        s.addr.clone(),
        format!("localhost:{}", s.port),
        format!("[::1]:{}", s.port),
    ] {
        for path in ["/", "/api/status", "/api/runs"] {
            let reply = get(&s, &host, path, None);
            assert_eq!(reply.status, 200, "{host} {path}: {}", reply.brief());
        }
        let edit = Operation {
            method: "PATCH".to_string(),
            template: "/api/runs/{id}".to_string(),
            path: format!("/api/runs/{}", s.run_id),
            body: Some((
                format!("{{\"notes\": \"edited through {host}\"}}").into_bytes(),
                "application/json",
            )),
        };
        let page = vec![
            ("origin", format!("http://{host}")),
            ("sec-fetch-site", "same-origin".to_string()),
        ];
        let reply = send(&s, &edit, head(&edit, &edit.path, Some(&host), &page));
        assert_eq!(reply.status, 200, "{host}: {}", reply.brief());
        assert_guarded(&edit, &reply);
    }
    // The offline report, fetched from here, is sandboxed.
    let report = get(
        &s,
        &s.addr,
        &format!("/api/runs/{}/export/report.html", s.run_id),
        None,
    );
    assert!(
        report.status == 200 || report.error_code().as_deref() == Some("report_not_built"),
        "{}",
        report.brief()
    );
}

#[test]
fn beyond_loopback_the_token_opens_only_the_names_the_server_was_given() {
    let s = serve_with_a_finished_run(
        &[
            "--bind",
            "0.0.0.0",
            "--insecure-http",
            "--allowed-host",
            "keystorm.test,.svc.test",
        ],
        &[("KEYSTORM_TOKEN", TOKEN)],
    );
    let ops = doors(&s, Some(TOKEN));
    rebinding_is_refused_everywhere(&s, &ops, Some(TOKEN));
    for host in [
        format!("keystorm.test:{}", s.port),
        format!("agent-facing.ns.svc.test:{}", s.port),
        format!("10.1.2.3:{}", s.port),
        format!("localhost:{}", s.port),
    ] {
        let reply = get(&s, &host, "/api/status", Some(TOKEN));
        assert_eq!(reply.status, 200, "{host}: {}", reply.brief());
    }
    let reply = get(
        &s,
        &format!("other.test:{}", s.port),
        "/api/status",
        Some(TOKEN),
    );
    assert_eq!(reply.status, 421, "{}", reply.brief());
    assert!(
        reply.body.contains("--allowed-host")
            && reply.body.contains("keystorm.test")
            && !reply.body.contains("  "),
        "{}",
        reply.body
    );
    nothing_changed(&s, Some(TOKEN));
}
