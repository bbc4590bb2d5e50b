//! The workspace's crates depend on each other one way, in layers: the precise timer and
//! the shared vocabulary (operation kinds, error classes) at the bottom, the S3 clients
//! and the results model on the vocabulary, the workload model (format, validation,
//! plan) on the results model, the engine on those, the simulator beside them (on the
//! timer); then the programs: what they print (console), the link between a controller
//! and its agents, the API and controller (server) and the agent, each of the two on the
//! link and neither on the other, and the command line on top. The results model and
//! the workload model must stay readable without the engine or an S3 client (a
//! controller merging agents' runs reads results, it drives no phases and needs no AWS
//! SDK), what prints and what carries the agent link build without them too, and the
//! engine must not carry the test simulator.
//!
//! The graph checked is cargo's own (`cargo metadata`), and it is the real one: each
//! crate names in its code exactly the crates it declares, and no crate passes another
//! crate's items on (`pub use keystorm_…`), so what a crate uses is what its manifest
//! says. Library dependencies only: tests may use anything.

mod rust_text;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use rust_text::{code_only, rust_files};

const CRATES: [&str; 13] = [
    "timer", "types", "s3", "results", "workload", "engine", "sim", "embedded", "console", "link",
    "server", "agent", "app",
];

type Graph = BTreeMap<String, BTreeSet<String>>;

fn server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The short name of a workspace package (`keystorm-engine` is `engine`, `keystorm` the app).
fn short(package: &str) -> Option<String> {
    match package {
        "keystorm" => Some("app".into()),
        p => p.strip_prefix("keystorm-").map(str::to_string),
    }
}

/// Each workspace crate's library dependencies on other workspace crates, as cargo reads
/// the manifests.
fn cargo_graph() -> Graph {
    let out = cargo(&["metadata", "--no-deps", "--format-version", "1"]);
    let meta: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut graph = Graph::new();
    for package in meta["packages"].as_array().unwrap() {
        let Some(name) = short(package["name"].as_str().unwrap()) else {
            continue;
        };
        let arrows = package["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| short(d["name"].as_str().unwrap()))
            .collect();
        graph.insert(name, arrows);
    }
    graph
}

/// What `cargo <args> --offline` prints, run in the workspace.
fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .arg("--offline")
        .current_dir(server())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn reaches(graph: &Graph, from: &str, to: &str) -> bool {
    let mut stack = vec![from.to_string()];
    let mut seen = BTreeSet::new();
    while let Some(at) = stack.pop() {
        if !seen.insert(at.clone()) {
            continue;
        }
        for next in graph.get(&at).into_iter().flatten() {
            if next == to {
                return true;
            }
            stack.push(next.clone());
        }
    }
    false
}

/// Every `.rs` file under `server/<dir>/src`.
fn sources(dir: &str) -> Vec<PathBuf> {
    rust_files(&server().join(dir).join("src"))
}

/// The workspace crates whose paths the code of `text` names (`keystorm_results::…`;
/// comments and literals do not count).
fn named_crates(text: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    for line in code_only(text).lines() {
        for krate in CRATES {
            let ident = format!("keystorm_{krate}");
            let mut rest = line;
            while let Some(at) = rest.find(&ident) {
                let before = rest[..at].chars().next_back();
                let after = rest[at + ident.len()..].chars().next();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                if !word(before) && !word(after) {
                    named.insert(krate.to_string());
                }
                rest = &rest[at + ident.len()..];
            }
        }
    }
    named
}

#[test]
fn each_crate_depends_only_on_the_layers_below_it() {
    let graph = cargo_graph();
    let expected: BTreeMap<&str, &[&str]> = BTreeMap::from([
        ("timer", &[][..]),
        ("types", &[][..]),
        ("s3", &["types"][..]),
        ("results", &["types"][..]),
        ("workload", &["results", "types"][..]),
        (
            "engine",
            &["results", "s3", "timer", "types", "workload"][..],
        ),
        ("sim", &["timer", "types"][..]),
        ("embedded", &["sim", "types", "workload"][..]),
        ("console", &["results", "types", "workload"][..]),
        ("link", &["console", "results", "types"][..]),
        (
            "server",
            &[
                "console", "embedded", "engine", "link", "results", "types", "workload",
            ][..],
        ),
        (
            "agent",
            &["console", "engine", "link", "results", "types", "workload"][..],
        ),
        (
            "app",
            &[
                "agent", "console", "embedded", "engine", "link", "results", "s3", "server", "sim",
                "types", "workload",
            ][..],
        ),
    ]);
    let crates: BTreeSet<&str> = graph.keys().map(String::as_str).collect();
    assert_eq!(
        crates,
        CRATES.into_iter().collect(),
        "the workspace's crates"
    );
    for (krate, arrows) in &graph {
        let want: BTreeSet<String> = expected[krate.as_str()]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(arrows, &want, "library dependencies of keystorm-{krate}");
    }
    assert!(
        !reaches(&graph, "results", "engine"),
        "results needs the engine"
    );
    assert!(
        !reaches(&graph, "results", "s3"),
        "results builds an S3 client"
    );
    for light in ["workload", "console", "link"] {
        assert!(
            !reaches(&graph, light, "engine") && !reaches(&graph, light, "s3"),
            "keystorm-{light} needs the engine or an S3 client"
        );
    }
    assert!(
        !reaches(&graph, "engine", "sim"),
        "the engine carries the simulator"
    );
    assert!(
        !reaches(&graph, "agent", "server") && !reaches(&graph, "server", "agent"),
        "the agent and the controller depend on each other instead of on the link"
    );
    for krate in CRATES {
        assert!(
            !reaches(&graph, krate, krate),
            "keystorm-{krate} is in a cycle"
        );
    }
}

#[test]
fn each_crate_uses_exactly_the_crates_its_manifest_names() {
    let graph = cargo_graph();
    for krate in CRATES {
        let mut used = BTreeSet::new();
        for file in sources(krate) {
            used.extend(named_crates(&std::fs::read_to_string(&file).unwrap()));
        }
        used.remove(krate);
        assert_eq!(
            used, graph[krate],
            "keystorm-{krate}: crates named in its code against those its manifest declares"
        );
    }
}

#[test]
fn no_crate_passes_on_another_crates_items() {
    let mut found = Vec::new();
    for krate in CRATES {
        for file in sources(krate) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in code_only(&text).lines().enumerate() {
                if line.trim_start().starts_with("pub use keystorm_") {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "re-exports hide which crate a caller really uses:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_source_reader_sees_paths_and_only_whole_names() {
    let text = "use keystorm_results::Shard;\n\
                let x = keystorm_s3::S3Client::connect(c);\n\
                // keystorm_sim in a comment is no arrow\n\
                let s = \"keystorm_types in a string is none either\";\n\
                let keystorm_timers = 1; keystorm_engine_like();";
    let named = named_crates(text);
    assert_eq!(
        named,
        BTreeSet::from(["results".to_string(), "s3".to_string()])
    );
}

/// The packages `cargo build -p PACKAGE` compiles that belong to an S3 client or an
/// HTTP stack (the AWS SDK, hyper, rustls), first few only.
fn heavy_packages(package: &str) -> Vec<String> {
    let tree = cargo(&["tree", "-p", package, "-e", "normal", "--prefix", "none"]);
    assert!(tree.contains("keystorm-types"), "{tree}");
    tree.lines()
        .filter(|l| l.starts_with("aws-") || l.starts_with("hyper") || l.starts_with("rustls"))
        .filter(|l| !l.ends_with("(*)"))
        .take(5)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_results_and_workload_models_build_without_the_aws_sdk() {
    // A controller merging agents' runs, and anything that reads or checks a workload,
    // compiles no AWS SDK and no HTTP client.
    for package in ["keystorm-results", "keystorm-workload"] {
        let heavy = heavy_packages(package);
        assert!(heavy.is_empty(), "{package} builds {heavy:?}");
    }
}

#[test]
fn what_prints_and_the_agent_link_build_without_the_s3_sdk() {
    // The link carries HTTP(S) of its own (hyper, rustls on aws-lc-rs), but neither it
    // nor the console may pull in the AWS SDK or an S3 client through the engine.
    for package in ["keystorm-console", "keystorm-link"] {
        let tree = cargo(&["tree", "-p", package, "-e", "normal", "--prefix", "none"]);
        let sdk: Vec<&str> = tree
            .lines()
            .filter(|l| {
                [
                    "aws-sdk",
                    "aws-smithy",
                    "aws-config",
                    "keystorm-engine",
                    "keystorm-s3",
                ]
                .iter()
                .any(|p| l.starts_with(p))
            })
            .take(5)
            .collect();
        assert!(sdk.is_empty(), "{package} builds {sdk:?}");
    }
}
