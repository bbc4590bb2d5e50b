//! docs/api.md against the product: the fields it lists for `GET /api/status` are
//! exactly what a running server returns, and the fields it lists for the API's main
//! objects are exactly those of the OpenAPI document the server publishes, so the page
//! cannot drift from the code unnoticed.

mod api_support;

use std::collections::{BTreeMap, BTreeSet};

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
    for name in [
        "WorkloadInfo",
        "RunInfo",
        "Problem",
        "RowIntervals",
        "Comparison",
        "Change",
    ] {
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

/// The `{...}` that follows `start` in the page, braces balanced.
fn object_after(doc: &str, start: &str) -> String {
    let at = doc
        .find(start)
        .unwrap_or_else(|| panic!("docs/api.md has no {start:?}"));
    let rest = &doc[at + start.len()..];
    let mut depth = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return rest[..=i].replace('\n', " ");
                }
            }
            _ => {}
        }
    }
    panic!("the object after {start:?} is not closed")
}

/// A schema's properties, those of the schemas it is made of (`allOf`, `$ref`)
/// included, each with whether it is deprecated.
fn properties(openapi: &serde_json::Value, schema: &serde_json::Value) -> BTreeMap<String, bool> {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        return properties(openapi, &openapi["components"]["schemas"][name]);
    }
    let mut all = BTreeMap::new();
    for part in schema["allOf"].as_array().into_iter().flatten() {
        all.extend(properties(openapi, part));
    }
    for (name, p) in schema["properties"].as_object().into_iter().flatten() {
        all.insert(name.clone(), p["deprecated"] == true);
    }
    all
}

/// The data of the run event named `event`.
fn event_data<'a>(openapi: &'a serde_json::Value, event: &str) -> &'a serde_json::Value {
    openapi["components"]["schemas"]["RunEvent"]["oneOf"]
        .as_array()
        .expect("RunEvent is one of its events")
        .iter()
        .find(|v| v["properties"]["event"]["enum"][0] == event)
        .map(|v| &v["properties"]["data"])
        .unwrap_or_else(|| panic!("no {event} event in the OpenAPI document"))
}

/// Each name once: the page lists a listing's, a scan's and a phase start's fields
/// under their names as the OpenAPI document has them, without the deprecated old
/// ones, which the page's table of renamed fields lists, each in the document once
/// as deprecated.
#[test]
fn the_listing_and_event_fields_in_the_api_page_are_the_schemas_without_the_old_names() {
    let doc = api_doc();
    let openapi: serde_json::Value =
        serde_json::from_str(&keystorm_server::api::openapi_json()).unwrap();
    let schema = |name: &str| openapi["components"]["schemas"][name].clone();
    let cases = [
        (
            "lines",
            object_after(&doc, "lines: ["),
            properties(&openapi, &schema("ScalingLine")),
        ),
        (
            "metadata_scans",
            object_after(&doc, "metadata_scans: ["),
            properties(&openapi, &schema("MetadataScanRecord")),
        ),
        (
            "metadata_scan",
            snippet_after(&doc, "| `metadata_scan` | `"),
            properties(&openapi, event_data(&openapi, "metadata_scan")),
        ),
        (
            "phase_started",
            snippet_after(&doc, "| `phase_started` | `"),
            properties(&openapi, event_data(&openapi, "phase_started")),
        ),
    ];
    let renamed = &doc[doc
        .find("## Renamed fields")
        .expect("a table of renamed fields")..];
    let renamed = &renamed[..renamed[3..].find("\n## ").map_or(renamed.len(), |e| e + 3)];
    let mut old_names = BTreeSet::new();
    for (what, documented, props) in cases {
        let current: BTreeSet<String> = props
            .iter()
            .filter(|(_, deprecated)| !**deprecated)
            .map(|(n, _)| n.clone())
            .collect();
        assert_eq!(fields(&documented), current, "docs/api.md's {what}");
        for (old, _) in props.iter().filter(|(_, deprecated)| **deprecated) {
            assert!(
                renamed.contains(&format!("| `{old}` |")),
                "{what}: the renamed fields do not list `{old}`"
            );
            old_names.insert(old.clone());
        }
    }
    assert_eq!(
        old_names,
        ["concurrency", "head_concurrency"].map(String::from).into(),
        "the old names the API still sends"
    );
    // The listing outcome's listers: the new name, and the old one deprecated.
    let outcome = properties(&openapi, &schema("ListOutcome"));
    assert_eq!(outcome.get("listers"), Some(&false));
    assert_eq!(outcome.get("concurrency"), Some(&true));
}

#[test]
fn field_lists_are_read_at_the_top_level_only() {
    assert_eq!(
        fields("{a, b: [{c, d}], e?: {f, g}, \"h\": 1}"),
        ["a", "b", "e", "h"].map(String::from).into()
    );
}
