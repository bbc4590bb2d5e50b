//! Each arrow between the modules of a crate points one way: no module names items of a
//! module that (directly or through others) names items of it. A cycle makes the two
//! ends one unit that cannot be understood, tested or split apart alone.

mod module_graph;
mod rust_text;

use std::path::Path;

use module_graph::{crate_graph, name};

fn crate_src(dir: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir)
        .join("src")
}

#[test]
fn no_crate_of_the_workspace_has_a_module_cycle() {
    let mut found = Vec::new();
    let mut modules = 0;
    for krate in [
        "types", "s3", "results", "workload", "engine", "sim", "embedded", "console", "link",
        "server", "agent", "app",
    ] {
        let graph = crate_graph(&crate_src(krate));
        assert!(!graph.edges.is_empty(), "{krate}: no module read");
        modules += graph.edges.len();
        for cycle in graph.cycles() {
            let names: Vec<String> = cycle.iter().map(name).collect();
            found.push(format!("{krate}: {}", names.join(" <-> ")));
        }
    }
    assert!(modules > 200, "only {modules} modules read");
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}

#[test]
fn the_reader_sees_a_cycle_through_use_trees_and_paths_in_code() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |path: &str, text: &str| {
        let p = src.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "lib.rs",
        "//! root\nmod a;\nmod b;\nmod c;\n#[cfg(test)]\nmod tests;\npub use a::Thing;\n",
    );
    write("tests.rs", "use crate::a::Thing;\n");
    write(
        "a/mod.rs",
        "mod inner;\nuse crate::{b::{self, Other as O}, c};\npub struct Thing;\n\
         fn f() { c::h(); }\n#[cfg(test)]\nmod tests { use crate::c::Loop; }\n",
    );
    write(
        "a/inner.rs",
        "pub fn f() { let s = \"crate::b::X\"; crate::Thing; }\n",
    );
    write(
        "b.rs",
        "pub struct Other;\n// use crate::a;\nfn g() { crate::c::h(); }\n",
    );
    write(
        "c.rs",
        "pub fn h() { let _ = r#\"use crate::b;\"#; }\npub struct Loop;\n",
    );
    let graph = crate_graph(src);
    let to = |from: &[&str]| -> Vec<String> {
        let key: Vec<String> = from.iter().map(|s| s.to_string()).collect();
        graph.edges[&key].iter().map(name).collect()
    };
    assert_eq!(to(&[]), ["a"]);
    assert!(
        !graph.edges.contains_key(&vec!["tests".to_string()]),
        "test modules are left out"
    );
    assert!(
        !graph.edges.contains_key(&vec!["tests".to_string()]),
        "test module left out"
    );
    // Importing module c is no arrow; calling c::h through it is.
    assert_eq!(to(&["a"]), ["b", "c"]);
    // crate::Thing is a's, re-exported by the root: the arrow goes to a.
    assert_eq!(to(&["a", "inner"]), ["a"]);
    assert_eq!(to(&["b"]), ["c"]);
    assert!(to(&["c"]).is_empty(), "strings and comments are not paths");
    assert!(graph.cycles().is_empty());

    // c naming an item of a closes a -> c -> a; inner naming its parent adds nothing
    // (the parent does not name inner's items).
    write("c.rs", "pub fn h() { crate::a::Thing; }\n");
    let cycles = crate_graph(src).cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let names: Vec<String> = cycles[0].iter().map(name).collect();
    assert!(
        names.contains(&"a".to_string()) && names.contains(&"c".to_string()),
        "{names:?}"
    );
    assert!(!names.contains(&"a::inner".to_string()), "{names:?}");
}
