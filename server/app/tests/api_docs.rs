//! docs/api.md against the product: the fields it lists for `GET /api/status` are
//! exactly what a running server returns, and the fields it lists for the API's main
//! objects are exactly those of the OpenAPI document the server publishes, so the page
//! cannot drift from the code unnoticed.

mod api_support;

use std::collections::BTreeSet;

use api_support::Server;

fn api_doc() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/api.md");
    std::fs::read_to_string(path).expect("docs/api.md is readable")
}

/// The text between `start` and the next backtick, with line breaks joined.
fn snippet_after(doc: &str, start: &str) -> String {
    let at = doc
        .find(start)
        .unwrap_or_else(|| panic!("docs/api.md has no {start:?}"));
    let rest = &doc[at + start.len()..];
    let end = rest.find('`').expect("the snippet is closed by a backtick");
    rest[..end].replace('\n', " ")
}

/// The top-level field names of `{a, b: [..], c?: x}` or `{"a": 1, "b": null}`.
fn fields(object: &str) -> BTreeSet<String> {
    let inner = object
        .trim()
        .strip_prefix('{')
        .and_then(|s| s.trim_end().strip_suffix('}'))
        .unwrap_or_else(|| panic!("not an object: {object:?}"));
    let mut depth = 0i32;
    let mut parts = vec![String::new()];
    for c in inner.chars() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().unwrap().push(c);
    }
    parts
        .iter()
        .map(|p| {
            let name = p.split(':').next().unwrap_or("");
            name.trim()
                .trim_matches('"')
                .trim_end_matches('?')
                .to_string()
        })
        .filter(|n| !n.is_empty())
        .collect()
}

fn schema_fields(openapi: &serde_json::Value, name: &str) -> BTreeSet<String> {
    openapi["components"]["schemas"][name]["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("the OpenAPI document has no schema {name}"))
        .keys()
        .cloned()
        .collect()
}

#[test]
fn the_field_lists_in_the_api_page_match_the_openapi_schemas() {
    let doc = api_doc();
    let openapi: serde_json::Value =
        serde_json::from_str(&keystorm_server::api::openapi_json()).unwrap();
    for name in ["WorkloadInfo", "RunInfo", "Problem"] {
        let documented = fields(&snippet_after(&doc, &format!("`{name} = ")));
        assert_eq!(
            documented,
            schema_fields(&openapi, name),
            "docs/api.md's {name} differs from the OpenAPI document"
        );
    }
    let status = fields(&snippet_after(&doc, "`GET /api/status` → `"));
    assert_eq!(status, schema_fields(&openapi, "Status"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_fields_in_the_api_page_are_what_the_server_returns() {
    let doc = api_doc();
    let documented = fields(&snippet_after(&doc, "`GET /api/status` → `"));
    let s = Server::start().await;
    let reply = s.get("/api/status").await;
    assert_eq!(reply.status, 200);
    let returned: BTreeSet<String> = reply
        .json()
        .as_object()
        .expect("status is an object")
        .keys()
        .cloned()
        .collect();
    assert_eq!(documented, returned, "docs/api.md's /api/status fields");
}

#[test]
fn field_lists_are_read_at_the_top_level_only() {
    assert_eq!(
        fields("{a, b: [{c, d}], e?: {f, g}, \"h\": 1}"),
        ["a", "b", "e", "h"].map(String::from).into()
    );
}
