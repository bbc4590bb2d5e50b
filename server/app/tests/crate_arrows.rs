//! The workspace's crates depend on each other one way, in layers: the precise timer
//! and the S3 clients at the bottom, the results model on the clients, the engine on
//! all three, the simulator beside them (on the timer), the app on top. The results model must stay readable without the engine (a
//! controller merging agents' runs reads results, it drives no phases), and the engine
//! must not carry the test simulator. Library dependencies only: tests may use anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const CRATES: [&str; 7] = ["timer", "s3", "results", "engine", "sim", "embedded", "app"];

/// The `keystorm-*` crates listed under `[dependencies]` of `server/<dir>/Cargo.toml`.
fn library_arrows(dir: &str) -> BTreeSet<String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir)
        .join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let mut section = String::new();
    let mut arrows = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
        } else if section == "[dependencies]"
            && let Some(rest) = line.strip_prefix("keystorm-")
        {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            arrows.insert(name);
        }
    }
    arrows
}

fn graph() -> BTreeMap<&'static str, BTreeSet<String>> {
    CRATES.iter().map(|c| (*c, library_arrows(c))).collect()
}

fn reaches(graph: &BTreeMap<&'static str, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut stack = vec![from.to_string()];
    let mut seen = BTreeSet::new();
    while let Some(at) = stack.pop() {
        if !seen.insert(at.clone()) {
            continue;
        }
        for next in graph.get(at.as_str()).into_iter().flatten() {
            if next == to {
                return true;
            }
            stack.push(next.clone());
        }
    }
    false
}

#[test]
fn each_crate_depends_only_on_the_layers_below_it() {
    let graph = graph();
    let expected: BTreeMap<&str, &[&str]> = BTreeMap::from([
        ("timer", &[][..]),
        ("s3", &[][..]),
        ("results", &["s3"][..]),
        ("engine", &["results", "s3", "timer"][..]),
        ("sim", &["timer"][..]),
        ("embedded", &["engine", "sim"][..]),
        ("app", &["embedded", "engine", "sim"][..]),
    ]);
    for (krate, arrows) in &graph {
        let want: BTreeSet<String> = expected[krate].iter().map(|s| s.to_string()).collect();
        assert_eq!(arrows, &want, "library dependencies of keystorm-{krate}");
    }
    assert!(
        !reaches(&graph, "results", "engine"),
        "results needs the engine"
    );
    assert!(
        !reaches(&graph, "engine", "sim"),
        "the engine carries the simulator"
    );
    for krate in CRATES {
        assert!(
            !reaches(&graph, krate, krate),
            "keystorm-{krate} is in a cycle"
        );
    }
}

#[test]
fn the_manifest_reader_sees_every_arrow_of_the_app() {
    // The app's manifest names its dependencies in two spellings
    // (`keystorm-engine = { ... }` and `keystorm-sim.workspace = true`).
    let app = library_arrows("app");
    assert!(app.contains("engine") && app.contains("sim"), "{app:?}");
    assert!(!library_arrows("engine").contains("sim"));
}
