//! The `use` graph between the modules of one crate, read from its source files: which
//! module uses items defined in which. A module is a file (`a/b.rs` or `a/b/mod.rs` is
//! `a::b`). An arrow goes from a file to the module that *defines* an item it names,
//! through `use` trees and through `crate::`, `super::`, `self::`, child-module and
//! imported-module paths in code; a name a module only re-exports (`pub use
//! child::Thing`) leads on to where it is defined, so a parent that re-exports its
//! children's items is not thereby in a cycle with them. Importing a module itself
//! (`use crate::results;`) is no arrow; the paths through it are. Test modules
//! (`#[cfg(test)] mod … { }`) are left out: they may look anywhere.
//!
//! This is a reader of Rust as text, good for the way this workspace is written (no
//! `#[path]`, no modules made by macros): it strips comments and literals, tracks
//! braces for inline modules and item definitions, and parses `use` trees in full.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::rust_text::{code_only, rust_files};

/// A module's path inside its crate (`[]` is the crate root).
pub type ModPath = Vec<String>;

/// Arrows between the modules of one crate.
#[derive(Debug, Default)]
pub struct Graph {
    pub edges: BTreeMap<ModPath, BTreeSet<ModPath>>,
}

/// The graph of the library crate rooted at `src/lib.rs`.
pub fn crate_graph(src: &Path) -> Graph {
    let files = module_files(src);
    let mut read: BTreeMap<ModPath, FileItems> = files
        .iter()
        .map(|(module, file)| {
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
            (
                module.clone(),
                read_file(&tokenize(&code_only(&text)), module),
            )
        })
        .collect();
    // Modules only tests compile are left out, with everything inside them.
    let tests: Vec<ModPath> = read
        .iter()
        .flat_map(|(module, items)| {
            items.test_children.iter().map(move |child| {
                let mut path = module.clone();
                path.push(child.clone());
                path
            })
        })
        .collect();
    read.retain(|module, _| !tests.iter().any(|t| module.starts_with(t)));
    let modules: BTreeSet<ModPath> = read.keys().cloned().collect();
    let crate_ = Crate {
        modules: &modules,
        files: &read,
    };
    let mut graph = Graph::default();
    for (module, items) in &read {
        // A glob import may use anything of its module.
        let globbed = items.globs.iter().filter(|m| modules.contains(*m)).cloned();
        let targets = items
            .uses
            .iter()
            .filter_map(|path| crate_.definer(path, 0))
            .chain(globbed)
            .filter(|target| target != module)
            .collect();
        graph.edges.insert(module.clone(), targets);
    }
    graph
}

/// What one file defines, imports and names.
#[derive(Debug, Default)]
struct FileItems {
    /// Items defined at its top level (and its inline modules, by name).
    defined: BTreeSet<String>,
    /// Names it imports, by the name they have in it: `use a::b::C as D` is D -> a::b::C.
    imported: BTreeMap<String, ModPath>,
    /// Modules whose every item it imports (`use a::*`).
    globs: Vec<ModPath>,
    /// Every path it names (absolute), through imports and in code.
    uses: Vec<ModPath>,
    /// Child modules in files of their own that only tests compile (`#[cfg(test)] mod x;`).
    test_children: Vec<String>,
}

struct Crate<'a> {
    modules: &'a BTreeSet<ModPath>,
    files: &'a BTreeMap<ModPath, FileItems>,
}

impl Crate<'_> {
    /// The module that defines what `path` names; `None` for a module itself or a path
    /// outside the crate.
    fn definer(&self, path: &[String], depth: usize) -> Option<ModPath> {
        let module = longest_module(self.modules, path)?;
        let name = path.get(module.len())?;
        if depth > 16 {
            return Some(module);
        }
        let items = &self.files[&module];
        if items.defined.contains(name) {
            return Some(module);
        }
        if let Some(source) = items.imported.get(name) {
            let mut source = source.clone();
            source.extend(path[module.len() + 1..].iter().cloned());
            return self.definer(&source, depth + 1).or(Some(module));
        }
        for glob in &items.globs {
            let mut source = glob.clone();
            source.extend(path[module.len()..].iter().cloned());
            if let Some(found) = self.definer(&source, depth + 1)
                && self.files[&found].defined.contains(&path[module.len()])
            {
                return Some(found);
            }
        }
        Some(module)
    }
}

/// Every module file of the crate, by module path.
fn module_files(src: &Path) -> BTreeMap<ModPath, PathBuf> {
    let mut files = BTreeMap::new();
    for path in rust_files(src) {
        let relative = path.strip_prefix(src).unwrap();
        let mut segments: Vec<String> = relative
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        match segments.last().map(String::as_str) {
            Some("main") if segments.len() == 1 => continue,
            Some("lib") if segments.len() == 1 => segments.clear(),
            Some("mod") => {
                segments.pop();
            }
            _ => {}
        }
        files.insert(segments, path);
    }
    files
}

fn longest_module(modules: &BTreeSet<ModPath>, path: &[String]) -> Option<ModPath> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| modules.contains(prefix))
}

/// Identifiers, `::` and single punctuation characters.
fn tokenize(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push("::".to_string());
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            tokens.push(c.to_string());
            i += 1;
        }
    }
    tokens
}

/// Keywords that define a named item.
const ITEM_KEYWORDS: [&str; 9] = [
    "struct", "enum", "fn", "trait", "type", "const", "static", "union", "mod",
];

/// What the file defines, imports and names, paths made absolute.
fn read_file(tokens: &[String], file_module: &ModPath) -> FileItems {
    // Child modules declared in the file (`mod x;` or a non-test `mod x { }`).
    let children: BTreeSet<&str> = tokens
        .windows(3)
        .filter(|w| w[0] == "mod" && (w[2] == ";" || w[2] == "{"))
        .map(|w| w[1].as_str())
        .collect();
    let mut items = FileItems::default();
    // Names of modules imported whole (`use crate::results;`), usable as path starts.
    let mut module_aliases: BTreeMap<String, ModPath> = BTreeMap::new();
    let mut i = 0;
    let mut depth = 0usize;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        match t {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
        // `#[cfg(test)] mod name { … }`: skipped whole.
        if t == "#" && tokens[i..].starts_with(&strs(&["#", "[", "cfg", "(", "test", ")", "]"])) {
            let mut j = i + 7;
            while tokens.get(j).is_some_and(|t| t == "#") {
                while tokens.get(j).is_some_and(|t| t != "]") {
                    j += 1;
                }
                j += 1;
            }
            if tokens.get(j).is_some_and(|t| t == "mod")
                && tokens.get(j + 2).is_some_and(|t| t == "{")
            {
                i = skip_block(tokens, j + 2);
                continue;
            }
            if tokens.get(j).is_some_and(|t| t == "mod")
                && tokens.get(j + 2).is_some_and(|t| t == ";")
            {
                items.test_children.push(tokens[j + 1].clone());
                i = j + 3;
                continue;
            }
        }
        if depth == 0
            && ITEM_KEYWORDS.contains(&t)
            && let Some(name) = tokens.get(i + 1).filter(|n| is_ident(n))
        {
            items.defined.insert(name.clone());
        }
        if t == "macro_rules"
            && let Some(name) = tokens.get(i + 2)
        {
            items.defined.insert(name.clone());
        }
        if t == "use" {
            let (trees, end) = use_tree(tokens, i + 1, Vec::new());
            for tree in trees {
                let Some(path) = resolve(&tree.path, file_module, &children, &module_aliases)
                else {
                    continue;
                };
                match tree.alias {
                    None => {
                        items.globs.push(path.clone());
                        items.uses.push(path);
                    }
                    Some(alias) => {
                        module_aliases.insert(alias.clone(), path.clone());
                        items.imported.insert(alias, path.clone());
                        items.uses.push(path);
                    }
                }
            }
            i = end;
            continue;
        }
        let starts_path = (t == "crate"
            || t == "super"
            || t == "self"
            || children.contains(t)
            || module_aliases.contains_key(t))
            && tokens.get(i + 1).is_some_and(|n| n == "::")
            && !(i > 0 && (tokens[i - 1] == "::" || tokens[i - 1] == "$"));
        if starts_path {
            let mut segments = vec![t.to_string()];
            let mut j = i + 1;
            while tokens.get(j).is_some_and(|n| n == "::")
                && tokens.get(j + 1).is_some_and(|n| is_ident(n))
            {
                segments.push(tokens[j + 1].clone());
                j += 2;
            }
            if let Some(p) = resolve(&segments, file_module, &children, &module_aliases) {
                items.uses.push(p);
            }
            i = j;
            continue;
        }
        i += 1;
    }
    items
}

fn strs(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn is_ident(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The index after the block whose `{` is at `open`.
fn skip_block(tokens: &[String], open: usize) -> usize {
    let mut depth = 0;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// One path of a `use` tree and the name it is known by (`None` for a glob).
struct UseTree {
    path: Vec<String>,
    alias: Option<String>,
}

/// The paths of a `use` tree starting at `i` (after `use`), prefixed by `prefix`, and
/// the index after it (past the `;`, or at the `,` or `}` that ends a subtree).
fn use_tree(tokens: &[String], mut i: usize, prefix: Vec<String>) -> (Vec<UseTree>, usize) {
    let mut path = prefix;
    let mut alias: Option<String> = None;
    let mut glob = false;
    let mut trees = Vec::new();
    let finish = |path: Vec<String>, alias: Option<String>, glob: bool| UseTree {
        alias: if glob {
            None
        } else {
            alias.or_else(|| path.last().cloned())
        },
        path,
    };
    loop {
        match tokens.get(i).map(String::as_str) {
            None => return (trees, i),
            Some(";") => {
                trees.push(finish(path, alias, glob));
                return (trees, i + 1);
            }
            Some(",") | Some("}") => {
                trees.push(finish(path, alias, glob));
                return (trees, i);
            }
            Some("::") => i += 1,
            Some("{") => {
                i += 1;
                loop {
                    let (sub, next) = use_tree(tokens, i, path.clone());
                    trees.extend(sub);
                    i = next;
                    match tokens.get(i).map(String::as_str) {
                        Some(",") => i += 1,
                        Some("}") => {
                            i += 1;
                            break;
                        }
                        _ => break,
                    }
                }
                // After the group: `;` or the end of an enclosing subtree.
                if tokens.get(i).is_some_and(|t| t == ";") {
                    i += 1;
                }
                return (trees, i);
            }
            Some("as") => {
                alias = tokens.get(i + 1).cloned();
                i += 2;
            }
            Some("*") => {
                glob = true;
                i += 1;
            }
            // `{self, …}`: the module itself, by its own name.
            Some("self") if !path.is_empty() => i += 1,
            Some(word) => {
                path.push(word.to_string());
                i += 1;
            }
        }
    }
}

/// `segments` as an absolute path in the crate, if it is one of the crate's.
fn resolve(
    segments: &[String],
    module: &ModPath,
    children: &BTreeSet<&str>,
    module_aliases: &BTreeMap<String, ModPath>,
) -> Option<ModPath> {
    let first = segments.first()?;
    let mut base: ModPath = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.clone(),
        "super" => {
            let mut base = module.clone();
            let mut rest = segments;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            return Some(base);
        }
        name if children.contains(name) => {
            let mut base = module.clone();
            base.push(name.to_string());
            base.extend(segments[1..].iter().cloned());
            return Some(base);
        }
        name if module_aliases.contains_key(name) => module_aliases[name].clone(),
        _ => return None,
    };
    base.extend(segments[1..].iter().cloned());
    Some(base)
}

impl Graph {
    /// Every cycle, each as the modules of one strongly connected component of more
    /// than one module (Tarjan's algorithm).
    pub fn cycles(&self) -> Vec<Vec<ModPath>> {
        let nodes: Vec<&ModPath> = self.edges.keys().collect();
        let index_of: BTreeMap<&ModPath, usize> =
            nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let adjacency: Vec<Vec<usize>> = nodes
            .iter()
            .map(|n| {
                self.edges[*n]
                    .iter()
                    .filter_map(|t| index_of.get(t).copied())
                    .collect()
            })
            .collect();
        let mut state = Tarjan {
            adjacency: &adjacency,
            index: vec![None; nodes.len()],
            low: vec![0; nodes.len()],
            on_stack: vec![false; nodes.len()],
            stack: Vec::new(),
            next: 0,
            components: Vec::new(),
        };
        for v in 0..nodes.len() {
            if state.index[v].is_none() {
                state.visit(v);
            }
        }
        state
            .components
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| c.into_iter().map(|i| nodes[i].clone()).collect())
            .collect()
    }
}

struct Tarjan<'a> {
    adjacency: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    components: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.next);
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for &w in &self.adjacency[v] {
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort();
            self.components.push(component);
        }
    }
}

/// `a::b`, or `crate` for the root.
pub fn name(module: &ModPath) -> String {
    if module.is_empty() {
        "crate".to_string()
    } else {
        module.join("::")
    }
}
