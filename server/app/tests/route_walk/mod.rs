//! Walking every operation of the OpenAPI document a running `keystorm serve`
//! publishes (not a list kept here, so a route added later is walked too): each
//! operation with plausible values filled in, a server holding one finished run to call
//! them on, and raw HTTP/1.1 exchanges for the requests an HTTP client will not send
//! (a forged `Host`, an absolute request URI, a header twice).

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Child;

use serde_json::{Value, json};

use super::api_support;
use super::process_support::{keystorm, spawn_announcing, write_workload};

/// `keystorm serve --port 0 ARGS...` in a process of its own, its results holding one
/// finished run; killed when dropped.
pub struct Served {
    pub child: Child,
    /// `127.0.0.1:PORT`, whatever address it binds.
    pub addr: String,
    pub port: u16,
    pub run_id: String,
    pub workloads: PathBuf,
    pub results: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Serves a results folder holding one finished run of the workload `rounds` (also in
/// its workloads folder), with `args` and `env`; reached through 127.0.0.1.
pub fn serve_with_a_finished_run(args: &[&str], env: &[(&str, &str)]) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let workloads = dir.path().join("workloads");
    let results = dir.path().join("results");
    std::fs::create_dir_all(&workloads).unwrap();
    let file = write_workload(
        &workloads,
        "rounds",
        &api_support::rounds_workload("rounds", 1),
    );
    let run = keystorm(
        &["run", file.to_str().unwrap(), "--progress", "quiet"],
        &results,
    )
    .output()
    .unwrap();
    assert!(run.status.success(), "{run:?}");
    let run_id = only_run(&results);
    let mut command = keystorm(
        &[
            "serve",
            "--port",
            "0",
            "--workloads",
            workloads.to_str().unwrap(),
        ],
        &results,
    );
    command.args(args);
    command
        .env_remove("KEYSTORM_TOKEN")
        .env_remove("KEYSTORM_READ_TOKEN")
        .env_remove("KEYSTORM_ALLOWED_HOSTS")
        .env_remove("KEYSTORM_PUBLIC_URL")
        .envs(env.iter().copied());
    let (child, url) = spawn_announcing(&mut command, "keystorm serving ");
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    Served {
        child,
        addr: format!("127.0.0.1:{port}"),
        port,
        run_id,
        workloads,
        results,
        _dir: dir,
    }
}

/// The one run folder's name under `results`.
pub fn only_run(results: &Path) -> String {
    let runs: Vec<String> = std::fs::read_dir(results)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

/// One operation of the document, with plausible values filled in.
pub struct Operation {
    pub method: String,
    /// The path as the document writes it, e.g. `/api/runs/{id}`.
    pub template: String,
    /// The path to call: parameters filled, required query parameters added.
    pub path: String,
    pub body: Option<(Vec<u8>, &'static str)>,
}

impl Operation {
    pub fn changes_state(&self) -> bool {
        !matches!(self.method.as_str(), "GET" | "HEAD" | "OPTIONS")
    }

    /// The agent link's routes, which only agents (holding the full token) call.
    pub fn agent_link(&self) -> bool {
        self.template.starts_with("/api/agents/")
    }

    pub fn name(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// Every operation of the document: reads first, then the calls that change state,
/// deletions last (they remove the run the others are called on).
pub fn operations(doc: &Value, run_id: &str) -> Vec<Operation> {
    let mut out = Vec::new();
    for (template, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().unwrap() {
            if !METHODS.contains(&method.as_str()) {
                continue;
            }
            let mut path = template.clone();
            let mut query = Vec::new();
            for p in op["parameters"].as_array().into_iter().flatten() {
                let name = p["name"].as_str().unwrap();
                match p["in"].as_str().unwrap() {
                    "path" => {
                        path = path.replace(
                            &format!("{{{name}}}"),
                            &plausible_path_value(name, template, run_id),
                        )
                    }
                    "query" if p["required"] == true => query.push(format!(
                        "{name}={}",
                        plausible_query_value(name, template, run_id)
                    )),
                    _ => {}
                }
            }
            if !query.is_empty() {
                path = format!("{path}?{}", query.join("&"));
            }
            out.push(Operation {
                method: method.to_uppercase(),
                template: template.clone(),
                path,
                body: body_of(doc, op),
            });
        }
    }
    out.sort_by_key(|o| match o.method.as_str() {
        "DELETE" => 2,
        _ if o.changes_state() => 1,
        _ => 0,
    });
    out
}

const METHODS: [&str; 7] = ["get", "head", "options", "post", "put", "patch", "delete"];

/// How many operations the document lists.
pub fn operation_count(doc: &Value) -> usize {
    doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| {
            item.as_object()
                .unwrap()
                .keys()
                .filter(|k| METHODS.contains(&k.as_str()))
                .count()
        })
        .sum()
}

fn plausible_path_value(name: &str, template: &str, run_id: &str) -> String {
    match name {
        "name" => "rounds".to_string(),
        "id" if template.starts_with("/api/runs/") => run_id.to_string(),
        "id" => "no-such-agent".to_string(),
        "run" => run_id.to_string(),
        "local" => "shard-0".to_string(),
        "file" if template.contains("/export/") => "summary.csv".to_string(),
        "file" => "summary.json".to_string(),
        other => panic!("no plausible value for `{other}` of {template}: add one here"),
    }
}

fn plausible_query_value(name: &str, template: &str, run_id: &str) -> String {
    match name {
        "section" => "before".to_string(),
        "phase" => "fill".to_string(),
        "op" => "put".to_string(),
        // A comparison of the run with itself.
        "base" | "new" => run_id.to_string(),
        other => panic!("no plausible value for query `{other}` of {template}: add one here"),
    }
}

fn body_of(doc: &Value, op: &Value) -> Option<(Vec<u8>, &'static str)> {
    let content = op["requestBody"]["content"].as_object()?;
    if let Some(json) = content.get("application/json") {
        let body = example(doc, &json["schema"], "");
        return Some((body.to_string().into_bytes(), "application/json"));
    }
    if content.contains_key("application/octet-stream") {
        return Some((b"some bytes of a part".to_vec(), "application/octet-stream"));
    }
    panic!("no body for the content types {:?}", content.keys());
}

/// A value of `schema`: its required fields only, workload text where text is asked.
fn example(doc: &Value, schema: &Value, field: &str) -> Value {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap();
        return example(doc, &doc["components"]["schemas"][name], field);
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(first) = schema[key]
            .as_array()
            .and_then(|a| a.iter().find(|s| s["type"] != "null"))
        {
            return example(doc, first, field);
        }
    }
    let kind = match &schema["type"] {
        Value::String(t) => t.as_str(),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ => "object",
    };
    match kind {
        "object" => {
            let mut object = serde_json::Map::new();
            for name in schema["required"].as_array().into_iter().flatten() {
                let name = name.as_str().unwrap();
                let property = &schema["properties"][name];
                object.insert(name.to_string(), example(doc, property, name));
            }
            Value::Object(object)
        }
        "array" => json!([]),
        "string" if field == "text" => json!(api_support::rounds_workload("walked", 1)),
        "string" => json!("x"),
        "integer" | "number" => json!(schema["minimum"].as_u64().unwrap_or(0)),
        "boolean" => json!(false),
        _ => Value::Null,
    }
}

/// What a raw exchange brought back.
pub struct RawReply {
    pub status: u16,
    /// Header names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RawReply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `error` code of the API's JSON error, if the body is one.
    pub fn error_code(&self) -> Option<String> {
        let v: Value = serde_json::from_str(&self.body).ok()?;
        v["error"].as_str().map(str::to_string)
    }

    /// The status and the start of the body, for a failure's message.
    pub fn brief(&self) -> String {
        format!(
            "{} {}",
            self.status,
            self.body.chars().take(300).collect::<String>()
        )
    }
}

/// Sends `head` (the request line and headers, each line without its CRLF) and `body`
/// to `addr` with `Connection: close`, and reads the whole answer.
pub fn raw_exchange(addr: &str, head: &[String], body: &[u8]) -> RawReply {
    let mut request = Vec::new();
    for line in head {
        request.extend_from_slice(line.as_bytes());
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(format!("content-length: {}\r\n", body.len()).as_bytes());
    request.extend_from_slice(b"connection: close\r\n\r\n");
    request.extend_from_slice(body);
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    stream.write_all(&request).unwrap();
    let mut answer = Vec::new();
    // An answer that ends the connection early (a refusal before the body was read)
    // is still the answer.
    let _ = stream.read_to_end(&mut answer);
    parse_reply(&answer)
}

fn parse_reply(answer: &[u8]) -> RawReply {
    let text = String::from_utf8_lossy(answer);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no answer head: {text:?}"));
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {head:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect::<Vec<_>>();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_string()
    };
    RawReply {
        status,
        headers,
        body,
    }
}

/// The content of a chunked body.
fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || after.len() < size {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    out
}
