//! The docs against the product. The workloads they show are workloads keystorm
//! accepts: every ```yaml block in README.md and docs/*.md validates — a whole workload
//! as written, a fragment (a few top-level sections) on top of a minimal workload — and
//! the README's demo is exactly workloads/demo.yaml (outlines that are not YAML are
//! fenced as `text`, another program's YAML as ```yaml FILE, e.g. `yaml
//! prometheus.yml`). Every table has its header, so none renders as stray text, the
//! phase table lists every operation keystorm accepts, and each count's row gives the
//! default and the limit the workload model defines for it.

use std::path::{Path, PathBuf};

use keystorm_workload::spec::parse_workload;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The documents whose YAML blocks are checked.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![repo().join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    docs.extend(pages);
    docs
}

/// One fenced ```yaml block: where it starts (1-based line of its first line) and text.
struct Block {
    line: usize,
    text: String,
}

fn yaml_blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in markdown.lines().enumerate() {
        match &mut open {
            None if line.trim_start() == "```yaml" => {
                open = Some(Block {
                    line: i + 2,
                    text: String::new(),
                })
            }
            Some(_) if line.trim_start().starts_with("```") => blocks.push(open.take().unwrap()),
            Some(b) => {
                b.text.push_str(line);
                b.text.push('\n');
            }
            None => {}
        }
    }
    assert!(open.is_none(), "an unclosed ```yaml block");
    blocks
}

/// The top-level keys of a YAML block (lines that start with `key:`).
fn top_level_keys(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with([' ', '#', '-']) && !l.trim().is_empty())
        .filter_map(|l| l.split_once(':').map(|(k, _)| k.trim().to_string()))
        .collect()
}

/// A minimal workload a fragment is laid over: the fragment's sections replace these.
const BASE: &[(&str, &str)] = &[
    ("name", "name: docs-fragment\n"),
    ("buckets", "buckets: { names: [docs-fragment] }\n"),
    (
        "before",
        "before:\n  - { name: fill, op: put, operations: 10 }\n",
    ),
];

fn as_workload(block: &Block) -> String {
    let keys = top_level_keys(&block.text);
    if keys.iter().any(|k| k == "name") {
        return block.text.clone();
    }
    // The fragment comes first, so its line numbers in errors are its own.
    let mut text = block.text.clone();
    for (key, section) in BASE {
        if !keys.iter().any(|k| k == key) {
            text.push_str(section);
        }
    }
    text
}

#[test]
fn every_yaml_block_in_the_docs_is_a_valid_workload_or_fragment() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for doc in documents() {
        let markdown = std::fs::read_to_string(&doc).unwrap();
        let name = doc
            .strip_prefix(repo())
            .unwrap_or(&doc)
            .display()
            .to_string();
        for block in yaml_blocks(&markdown) {
            checked += 1;
            if let Err(e) = parse_workload(&as_workload(&block), "block") {
                // Line L of the block is line block.line + L - 1 of the document.
                let (line, message) = match &e {
                    keystorm_workload::spec::SpecError::Invalid { line, message, .. } => {
                        (block.line + line - 1, message.clone())
                    }
                    other => (block.line, other.to_string()),
                };
                failures.push(format!("{name}:{line}: {message}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 6, "only {checked} yaml blocks found");
}

#[test]
fn the_readme_demo_is_workloads_demo_yaml() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let block = yaml_blocks(&readme)
        .into_iter()
        .find(|b| b.text.starts_with("name: demo"))
        .expect("the README shows the demo workload");
    let (shown, _) = parse_workload(&block.text, "README.md").unwrap();
    let file = std::fs::read_to_string(repo().join("workloads/demo.yaml")).unwrap();
    let (demo, _) = parse_workload(&file, "workloads/demo.yaml").unwrap();
    assert_eq!(
        serde_json::to_value(&shown).unwrap(),
        serde_json::to_value(&demo).unwrap(),
        "README.md's demo and workloads/demo.yaml differ"
    );
}

#[test]
fn a_broken_fragment_is_caught() {
    let block = Block {
        line: 1,
        text: "objects: { size: 1KiB-4KiB, sise: 3 }\n".into(),
    };
    assert!(parse_workload(&as_workload(&block), "x").is_err());
    let block = Block {
        line: 1,
        text: "objects: { size: 1KiB-4KiB }\n".into(),
    };
    assert!(parse_workload(&as_workload(&block), "x").is_ok());
}

/// The markdown tables of a document: runs of lines that start with `|`, with the line
/// each starts at.
fn tables(markdown: &str) -> Vec<(usize, Vec<&str>)> {
    let mut tables: Vec<(usize, Vec<&str>)> = Vec::new();
    let mut in_code = false;
    let mut previous_was_row = false;
    for (i, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        let row = !in_code && line.starts_with('|');
        if row && previous_was_row {
            tables.last_mut().unwrap().1.push(line);
        } else if row {
            tables.push((i + 1, vec![line]));
        }
        previous_was_row = row;
    }
    tables
}

#[test]
fn every_table_in_the_docs_starts_with_a_header() {
    let mut broken = Vec::new();
    for doc in documents() {
        let markdown = std::fs::read_to_string(&doc).unwrap();
        let name = doc
            .strip_prefix(repo())
            .unwrap_or(&doc)
            .display()
            .to_string();
        for (line, rows) in tables(&markdown) {
            let separator = rows.get(1).is_some_and(|r| {
                r.trim_matches('|').split('|').all(|cell| {
                    cell.trim().trim_matches(':').chars().all(|c| c == '-')
                        && !cell.trim().is_empty()
                })
            });
            if !separator {
                broken.push(format!(
                    "{name}:{line}: a table without a header row: {}",
                    rows[0]
                ));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn a_table_split_by_a_blank_line_is_caught() {
    let split = "| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n";
    let found = tables(split);
    assert_eq!(found.len(), 2);
    assert_eq!(found[1], (5, vec!["| 3 | 4 |"]));
}

#[test]
fn the_phase_table_lists_every_operation_keystorm_accepts() {
    // The accepted operations, as keystorm itself names them when it refuses one.
    let refused = parse_workload(
        "name: ops\nbuckets: { names: [ops-check] }\nbefore:\n  - { op: no-such-op }\n",
        "ops",
    )
    .unwrap_err()
    .to_string();
    let accepted: Vec<&str> = refused
        .split_once("use one of ")
        .unwrap_or_else(|| panic!("no list of operations in {refused:?}"))
        .1
        .split(", ")
        .map(str::trim)
        .collect();
    assert!(accepted.len() >= 7, "{accepted:?}");
    let page = std::fs::read_to_string(repo().join("docs/workload-format.md")).unwrap();
    let op_row = page
        .lines()
        .find(|l| l.starts_with("| `op` |"))
        .expect("docs/workload-format.md has an `op` row");
    for op in accepted {
        assert!(
            op_row.contains(&format!("`{op}`")),
            "the `op` row does not list {op}: {op_row}"
        );
    }
}

/// The fields a workload section accepts, as the parser names them when refusing an
/// unknown one (the raw types' own list, so a new field is seen here).
fn accepted_fields(workload_with_unknown: &str) -> Vec<String> {
    let err = parse_workload(workload_with_unknown, "w.yaml")
        .expect_err("an unknown field is refused")
        .to_string();
    let list = err
        .split("expected one of: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no field list in {err:?}"));
    let list = list.split(&['(', '\n'][..]).next().unwrap();
    list.split(',')
        .map(|f| f.trim().trim_matches('`').trim_end_matches(')').to_string())
        .filter(|f| !f.is_empty())
        .collect()
}

/// The names in the first column of the first table after `heading` in
/// docs/workload-format.md, one entry per row (a row may name several).
fn documented_fields(heading: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("docs/workload-format.md")).unwrap();
    let after = text
        .split_once(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no heading {heading:?}"))
        .1;
    let mut names = Vec::new();
    let mut in_table = false;
    for line in after.lines() {
        if line.starts_with('|') {
            in_table = true;
            let cell = line.split('|').nth(1).unwrap_or("");
            names.extend(
                cell.split('`')
                    .skip(1)
                    .step_by(2)
                    .map(|name| name.split('.').next().unwrap().to_string()),
            );
        } else if in_table {
            break;
        }
    }
    names
}

/// Fields still read under their old names for one release, documented in prose as
/// renamed rather than as rows of their own.
const RENAMED: [&str; 3] = ["concurrency", "list_concurrency", "part_concurrency"];

#[test]
fn the_docs_list_each_workload_field_once() {
    let phase =
        "name: w\nbuckets: { name: bkt }\nbefore:\n  - { op: put, operations: 1, zz_unknown: 1 }\n";
    let keyspace = "name: w\nbuckets: { name: bkt }\nkeyspace: { zz_unknown: 1 }\nbefore:\n  - { op: put, operations: 1 }\n";
    let objects = "name: w\nbuckets: { name: bkt }\nobjects: { zz_unknown: 1 }\nbefore:\n  - { op: put, operations: 1 }\n";
    for (heading, workload) in [
        ("## Phases", phase),
        ("## keyspace", keyspace),
        ("## objects", objects),
    ] {
        let accepted = accepted_fields(workload);
        let rows = documented_fields(heading);
        for field in &accepted {
            let times = rows.iter().filter(|r| *r == field).count();
            if RENAMED.contains(&field.as_str()) {
                assert_eq!(
                    times, 0,
                    "{heading}: renamed `{field}` has a row of its own"
                );
            } else {
                assert_eq!(times, 1, "{heading}: `{field}` is listed {times} times");
            }
        }
        for row in &rows {
            assert!(
                accepted.contains(row),
                "{heading}: `{row}` is documented but not a field ({accepted:?})"
            );
        }
    }
    // `target` documents nested fields on rows of their own (`tls.ca_file`): each of its
    // fields has at least one.
    let target = "name: w\ntarget: { zz_unknown: 1 }\nbuckets: { name: bkt }\nbefore:\n  - { op: put, operations: 1 }\n";
    let rows = documented_fields("## target");
    for field in accepted_fields(target) {
        assert!(
            rows.contains(&field),
            "## target: `{field}` is not documented"
        );
    }
    let text = std::fs::read_to_string(repo().join("docs/workload-format.md")).unwrap();
    for old in RENAMED {
        assert!(
            text.contains(&format!("`{old}`")),
            "the renamed `{old}` is not mentioned"
        );
    }
}

#[test]
fn each_counts_row_gives_its_default_and_its_limit() {
    let text = std::fs::read_to_string(repo().join("docs/workload-format.md")).unwrap();
    for count in keystorm_workload::counts::ALL {
        let start = format!("| `{}` |", count.name);
        let row = text
            .lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_else(|| panic!("docs/workload-format.md has no row for {}", count.name));
        assert!(
            row.starts_with(&format!("{start} `{}` |", count.default)),
            "{row}"
        );
        assert!(row.contains(&format!("(1-{})", count.max)), "{row}");
    }
}

/// Every file keystorm ships for people to copy: the README, the docs, the example
/// workloads, the deploy files and the scripts.
fn shipped_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut files = documents();
    for dir in ["workloads", "deploy", "scripts"] {
        walk(&repo().join(dir), &mut files);
    }
    files
}

/// Where `word` stands in `text` as a whole name: not inside a longer one.
fn stands_alone(text: &str, word: &str) -> Option<usize> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    text.match_indices(word).map(|(at, _)| at).find(|&at| {
        !text[..at].chars().next_back().is_some_and(is_name)
            && !text[at + word.len()..].chars().next().is_some_and(is_name)
    })
}

#[test]
fn nothing_shipped_uses_an_old_name() {
    use keystorm_types::old_names::{Place, RENAMED};
    let mut found = Vec::new();
    for file in shipped_files() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for r in RENAMED {
                // A workload field as YAML writes it, a flag as a command line does.
                let used = match r.place {
                    Place::Workload => stands_alone(line, &format!("{}:", r.old)).is_some(),
                    Place::Flag(_) => stands_alone(line, r.old).is_some(),
                    _ => false,
                };
                if used {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    found.dedup();
    assert!(found.is_empty(), "old names shipped:\n{}", found.join("\n"));
    assert_eq!(
        stands_alone("  - { concurrency: 4 }", "concurrency:"),
        Some(6)
    );
    assert_eq!(stands_alone("list_concurrency: 4", "concurrency:"), None);
    assert_eq!(stands_alone("--head-concurrency 8", "--concurrency"), None);
}
