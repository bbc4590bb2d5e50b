//! Where a workload holds secrets: every scalar under a `credentials` block, at any
//! depth (the inline `access_key`, `secret_key`, `session_token`, and whatever else is
//! written there), but the variable names under `env` and the name of a `profile`.
//!
//! The text is read as YAML events, not into the workload's types, so that a text that
//! does not validate (or parse) is still covered, and an alias is followed: a secret
//! given as `secret_key: *s` is the value anchored at `&s`, wherever that is. Each
//! secret is kept as its value and as it is written (quoted with escapes, or a block
//! scalar's lines), so both are found in the text. Text the parser gives up on is read
//! line by line for `access_key:`, `secret_key:` and `session_token:` values.
//!
//! The same walk keeps every other scalar — the names, buckets, prefixes, descriptions
//! that results, the UI and the logs show — with where it stands, so that a workload
//! holding a secret's value outside `credentials` can be refused at the value.

use std::collections::HashMap;

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle};

/// How many events following aliases may replay, so that a text of nested aliases
/// (a "billion laughs") cannot make the scan expensive.
const REPLAY_BUDGET: usize = 100_000;

/// The inline secret values of `text`, each as its value and as written.
pub(super) fn secrets_of(text: &str) -> Vec<String> {
    walk(text, false).secrets
}

/// A scalar of the text outside every `credentials` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shown {
    pub value: String,
    /// Where it is written (1-based), or the alias that repeats it.
    pub line: usize,
    pub column: usize,
    /// Where it is in the document: `rounds.phases[1].name`.
    pub path: String,
}

/// What one walk over `text` found.
pub(super) struct Scanned {
    /// The inline secret values, each as its value and as written.
    pub secrets: Vec<String>,
    /// Every other scalar, keys included.
    pub shown: Vec<Shown>,
}

/// Walks `text` once: its secrets and every other scalar.
pub(super) fn scan(text: &str) -> Scanned {
    walk(text, true)
}

/// Walks `text`, keeping the scalars outside `credentials` only if `keep_shown` (the
/// redactor asks for the secrets alone, and more often).
fn walk(text: &str, keep_shown: bool) -> Scanned {
    let mut scan = Scan {
        keep_shown,
        ..Scan::default()
    };
    let mut parsed_to_end = false;
    for next in Parser::new_from_str(text) {
        let Ok((event, span)) = next else {
            break;
        };
        let at = (span.start.line(), span.start.col() + 1);
        let node = match event {
            Event::Scalar(value, style, anchor, _) => {
                let written = span.slice(text).map(|raw| unquoted(raw, style));
                (
                    Node::Scalar(value.into_owned(), written.map(str::to_string)),
                    anchor,
                )
            }
            Event::MappingStart(_, anchor, _) => (Node::MapStart, anchor),
            Event::SequenceStart(_, anchor, _) => (Node::SeqStart, anchor),
            Event::MappingEnd => (Node::End, 0),
            Event::SequenceEnd => (Node::End, 0),
            Event::Alias(id) => (Node::Alias(id), 0),
            Event::StreamEnd => {
                parsed_to_end = true;
                continue;
            }
            _ => continue,
        };
        scan.record(&node.0, node.1);
        scan.feed(&node.0, at);
    }
    let mut secrets = scan.secrets;
    if !parsed_to_end {
        secrets.extend(secret_lines(text));
    }
    Scanned {
        secrets,
        shown: scan.shown,
    }
}

/// A node event, owned so an anchored node can be replayed where an alias names it.
#[derive(Clone)]
enum Node {
    /// The value, and the scalar as written (when the text has it).
    Scalar(String, Option<String>),
    MapStart,
    SeqStart,
    End,
    Alias(usize),
}

/// What the nodes at a place in the document are.
#[derive(Clone, Copy, PartialEq)]
enum Scope {
    Plain,
    /// The mapping of a `credentials` block itself.
    Credentials,
    Secret,
    /// Variable or profile names.
    Names,
}

impl Scope {
    fn child(self, key: Option<&str>) -> Scope {
        match (self, key) {
            (Scope::Plain, Some("credentials")) => Scope::Credentials,
            (Scope::Plain, _) => Scope::Plain,
            (Scope::Credentials, Some("env" | "profile")) => Scope::Names,
            (Scope::Credentials | Scope::Secret, _) => Scope::Secret,
            (Scope::Names, _) => Scope::Names,
        }
    }

    fn holds_secrets(self) -> bool {
        matches!(self, Scope::Credentials | Scope::Secret)
    }
}

enum Frame {
    Map {
        scope: Scope,
        /// The key of the value coming next; `None` while a key is expected.
        key: Option<Option<String>>,
    },
    Seq {
        scope: Scope,
        /// The index of the item coming next.
        next: usize,
    },
}

#[derive(Default)]
struct Scan {
    frames: Vec<Frame>,
    /// The events of each anchored node, by anchor id.
    anchors: HashMap<usize, Vec<Node>>,
    /// Anchored collections still open: their id, events and depth.
    recording: Vec<(usize, Vec<Node>, usize)>,
    replayed: usize,
    secrets: Vec<String>,
    keep_shown: bool,
    shown: Vec<Shown>,
}

impl Scan {
    /// Keeps the events of anchored nodes for the aliases that name them.
    fn record(&mut self, node: &Node, anchor: usize) {
        for (_, events, depth) in &mut self.recording {
            events.push(node.clone());
            match node {
                Node::MapStart | Node::SeqStart => *depth += 1,
                Node::End => *depth -= 1,
                _ => {}
            }
        }
        while let Some((id, events, _)) = self.recording.pop_if(|(_, _, depth)| *depth == 0) {
            self.anchors.insert(id, events);
        }
        if anchor != 0 {
            match node {
                Node::Scalar(..) => {
                    self.anchors.insert(anchor, vec![node.clone()]);
                }
                Node::MapStart | Node::SeqStart => {
                    self.recording.push((anchor, vec![node.clone()], 1));
                }
                _ => {}
            }
        }
    }

    /// Takes one node, written at `at` (line, column), or repeated there by an alias.
    fn feed(&mut self, node: &Node, at: (usize, usize)) {
        match node {
            Node::Scalar(value, written) => {
                let secret = self.scope().holds_secrets();
                if !secret && self.keep_shown {
                    self.shown.push(Shown {
                        value: value.clone(),
                        line: at.0,
                        column: at.1,
                        path: self.path(),
                    });
                }
                if let Some(Frame::Map {
                    key: key @ None, ..
                }) = self.frames.last_mut()
                {
                    *key = Some(Some(value.clone()));
                    return;
                }
                if secret {
                    self.secrets.push(value.clone());
                    self.secrets.extend(written.iter().cloned());
                }
                self.node_done();
            }
            Node::MapStart => {
                let scope = self.scope();
                self.frames.push(Frame::Map { scope, key: None });
            }
            Node::SeqStart => {
                let scope = self.scope();
                self.frames.push(Frame::Seq { scope, next: 0 });
            }
            Node::End => {
                self.frames.pop();
                self.node_done();
            }
            Node::Alias(id) => {
                let Some(events) = self.anchors.get(id).cloned() else {
                    return;
                };
                if self.replayed + events.len() > REPLAY_BUDGET {
                    return;
                }
                self.replayed += events.len();
                for e in &events {
                    self.feed(e, at);
                }
            }
        }
    }

    /// Where the node starting now is in the document: `before[0].name`.
    fn path(&self) -> String {
        let mut path = String::new();
        for frame in &self.frames {
            match frame {
                Frame::Map {
                    key: Some(Some(key)),
                    ..
                } => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                }
                Frame::Map { .. } => {}
                Frame::Seq { next, .. } => path.push_str(&format!("[{next}]")),
            }
        }
        path
    }

    /// The scope of the node starting now.
    fn scope(&self) -> Scope {
        match self.frames.last() {
            None => Scope::Plain,
            Some(Frame::Seq { scope, .. }) => scope.child(None),
            // A key that is itself a collection: nothing in it is a secret.
            Some(Frame::Map { key: None, .. }) => Scope::Names,
            Some(Frame::Map {
                scope,
                key: Some(key),
            }) => scope.child(key.as_deref()),
        }
    }

    /// A node ended: a map now expects its next key, or the value of a complex key; a
    /// sequence its next item.
    fn node_done(&mut self) {
        match self.frames.last_mut() {
            Some(Frame::Map { key, .. }) => {
                *key = match key {
                    None => Some(None),
                    Some(_) => None,
                };
            }
            Some(Frame::Seq { next, .. }) => *next += 1,
            None => {}
        }
    }
}

/// The scalar as written, without its quotes.
fn unquoted(raw: &str, style: ScalarStyle) -> &str {
    match style {
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted if raw.len() >= 2 => {
            &raw[1..raw.len() - 1]
        }
        _ => raw,
    }
}

/// For text that is not YAML: the value after every `access_key:`, `secret_key:` and
/// `session_token:` (a variable name under `env` too: better hidden than a key shown).
fn secret_lines(text: &str) -> Vec<String> {
    const KEYS: [&str; 3] = ["access_key", "secret_key", "session_token"];
    let mut found = Vec::new();
    for line in text.lines() {
        for key in KEYS {
            for (at, _) in line.match_indices(key) {
                let Some(value) = line[at + key.len()..].trim_start().strip_prefix(':') else {
                    continue;
                };
                let value = value.trim_start();
                let end = value.find([',', '}', '#']).unwrap_or(value.len());
                let value = value[..end].trim().trim_matches(['"', '\'']);
                if !value.is_empty() {
                    found.push(value.to_string());
                }
            }
        }
    }
    found
}
