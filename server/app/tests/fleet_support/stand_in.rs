//! A stand-in agent: the test makes, over plain HTTP, the calls an agent makes to its
//! controller (register, heartbeat, send and fetch the files of its shard's folder, say
//! its shard is done), with the key the controller gave it, so a test can also make
//! the calls a real agent never would.

use std::io::{Read, Write};
use std::net::TcpStream;

use keystorm_link::protocol::AGENT_KEY_HEADER;

/// One call to the controller at `url` with `headers`: its status and its body.
pub fn call_with(
    url: &str,
    method: &str,
    path: &str,
    body: &[u8],
    headers: &[(&str, &str)],
) -> (u16, String) {
    let addr = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

/// One call without an agent's key.
pub fn call(url: &str, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    call_with(url, method, path, body, &[])
}

/// A JSON call without an agent's key: its status and its answer (null if not JSON).
pub fn json(
    url: &str,
    method: &str,
    path: &str,
    body: serde_json::Value,
) -> (u16, serde_json::Value) {
    let (status, text) = call(url, method, path, body.to_string().as_bytes());
    (status, serde_json::from_str(&text).unwrap_or_default())
}

/// An answer that is a JSON error: its status, `error` and `detail`.
pub fn refusal_of((status, text): (u16, String)) -> (u16, String, String) {
    let error: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status} {text}"));
    (
        status,
        error["error"].as_str().unwrap().to_string(),
        error["detail"].as_str().unwrap().to_string(),
    )
}

/// Registers agent `name` on `host`: the status and the answer.
pub fn register(url: &str, name: &str, host: &str) -> (u16, serde_json::Value) {
    json(
        url,
        "POST",
        "/api/agents/register",
        serde_json::json!({
            "name": name, "host": host, "version": env!("CARGO_PKG_VERSION"), "cores": 1
        }),
    )
}

/// A registered stand-in: its id and the key given with it.
pub struct StandIn {
    pub url: String,
    pub id: String,
    pub key: String,
}

impl StandIn {
    /// Registers agent `name` with the controller at `url`, and heartbeats once.
    pub fn register(url: &str, name: &str) -> StandIn {
        let (status, registered) = register(url, name, "h");
        assert_eq!(status, 200, "{registered}");
        let me = StandIn {
            url: url.to_string(),
            id: registered["agent_id"].as_str().unwrap().to_string(),
            key: registered["agent_key"].as_str().unwrap().to_string(),
        };
        let (status, text) = me.heartbeat(serde_json::json!({ "sent_ms": 1 }));
        assert_eq!(status, 200, "{text}");
        me
    }

    /// A call with this agent's key (whatever agent `path` names).
    pub fn call(&self, method: &str, path: &str, body: &[u8]) -> (u16, String) {
        call_with(
            &self.url,
            method,
            path,
            body,
            &[(AGENT_KEY_HEADER, &self.key)],
        )
    }

    /// `/api/agents/{id}/parts/{run}/{rest}` of this agent.
    pub fn part(&self, run: &str, rest: &str) -> String {
        format!("/api/agents/{}/parts/{run}/{rest}", self.id)
    }

    pub fn heartbeat(&self, beat: serde_json::Value) -> (u16, String) {
        let path = format!("/api/agents/{}/heartbeat", self.id);
        self.call("POST", &path, beat.to_string().as_bytes())
    }

    /// What the controller says it holds of folder `local` of run `run`: file names and
    /// lengths.
    pub fn listing(&self, run: &str, local: &str) -> Vec<(String, u64)> {
        let (status, text) = self.call("GET", &self.part(run, local), b"");
        assert_eq!(status, 200, "{text}");
        let listed: serde_json::Value = serde_json::from_str(&text).unwrap();
        listed["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let name = f["name"].as_str().unwrap().to_string();
                (name, f["length"].as_u64().unwrap())
            })
            .collect()
    }
}
