//! Inventories as a user writes them against a live target: `keystorm list --keys
//! FILE.parquet|.csv` (and `--format`), with `--head` the metadata column, `keystorm
//! keys convert` of a saved key file, each file read back with its format's own reader
//! (arrow-rs's Parquet reader, the csv crate, serde_json); and clear errors (exit 2)
//! for a bad format or path.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

mod cli_support;

use cli_support::json_of;
use keystorm_sim::{Object, SimHandle};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

const BIN: &str = env!("CARGO_BIN_EXE_keystorm");
const KEYS: u64 = 600;

/// Keys that break naive writers and readers: separators, quotes, URL characters,
/// non-ASCII, spaces at the ends.
const AWKWARD: [&str; 6] = [
    "plain",
    "with, comma",
    "say \"hi\"",
    "ünï côdé ☺",
    "%2B+&=?#",
    " spaced out ",
];

fn key(i: u64) -> String {
    format!("inv/{}/{i:04}", AWKWARD[(i % 6) as usize])
}

fn etag(i: u64) -> String {
    hex(&[i as u8; 16])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A quarter of the objects carry metadata, one value with a comma and quotes.
fn metadata(i: u64) -> Vec<(String, String)> {
    if i.is_multiple_of(4) {
        vec![
            ("note".to_string(), "a, \"b\"".to_string()),
            ("owner".to_string(), format!("team-{}", i % 3)),
        ]
    } else {
        vec![]
    }
}

fn target() -> (tokio::runtime::Runtime, SimHandle) {
    let (rt, sim) = cli_support::signing_target("inv-key", "inv-secret");
    sim.store().create_bucket("inv");
    let bucket = sim.store().bucket("inv").unwrap();
    for i in 0..KEYS {
        let object = Object {
            size: i * 13 % 1000,
            etag: [i as u8; 16],
            last_modified_ms: keystorm_sim::now_ms(),
            content_type: None,
            metadata: metadata(i)
                .into_iter()
                .map(|(k, v)| (k.into_boxed_str(), v.into_boxed_str()))
                .collect(),
            data: None,
            parts: 0,
        };
        bucket.put(key(i).as_bytes(), object).unwrap();
    }
    (rt, sim)
}

fn keystorm(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("AWS_ACCESS_KEY_ID", "inv-key")
        .env("AWS_SECRET_ACCESS_KEY", "inv-secret")
        .env_remove("KEYSTORM_ENDPOINT");
    c
}

/// One row as read back, whatever the format.
#[derive(Debug, Clone, PartialEq)]
struct Read {
    size: u64,
    etag: String,
    last_modified: bool,
    storage_class: String,
    metadata: Option<Vec<(String, String)>>,
}

/// Every row by key, failing on a key seen twice; and the keys in file order.
type Rows = (BTreeMap<String, Read>, Vec<String>);

fn add(rows: &mut Rows, key: String, read: Read) {
    assert!(rows.0.insert(key.clone(), read).is_none(), "{key:?} twice");
    rows.1.push(key);
}

fn read_parquet(path: &Path) -> Rows {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut rows = Rows::default();
    for row in reader.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let mut key = String::new();
        let mut read = Read {
            size: 0,
            etag: String::new(),
            last_modified: false,
            storage_class: String::new(),
            metadata: None,
        };
        for (name, field) in row.get_column_iter() {
            match (name.as_str(), field) {
                ("key", Field::Str(s)) => key = s.clone(),
                ("size", Field::Long(n)) => read.size = *n as u64,
                ("etag", Field::Str(s)) => read.etag = s.clone(),
                ("last_modified", Field::TimestampMillis(t)) => read.last_modified = *t > 0,
                ("storage_class", Field::Str(s)) => read.storage_class = s.clone(),
                ("metadata", Field::MapInternal(m)) => {
                    read.metadata = Some(
                        m.entries()
                            .iter()
                            .map(|(k, v)| (str_of(k), str_of(v)))
                            .collect(),
                    )
                }
                (_, Field::Null) => {}
                other => panic!("unexpected column {other:?}"),
            }
        }
        add(&mut rows, key, read);
    }
    rows
}

fn str_of(f: &Field) -> String {
    match f {
        Field::Str(s) => s.clone(),
        other => panic!("not a string: {other:?}"),
    }
}

fn read_csv(path: &Path) -> Rows {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let mut rows = Rows::default();
    for record in reader.records() {
        let r = record.unwrap();
        let metadata = (header.len() == 6).then(|| {
            let v: serde_json::Value = serde_json::from_str(&r[5]).unwrap();
            v.as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect()
        });
        let read = Read {
            size: r[1].parse().unwrap(),
            etag: r[2].to_string(),
            last_modified: r[3].ends_with('Z'),
            storage_class: r[4].to_string(),
            metadata,
        };
        add(&mut rows, r[0].to_string(), read);
    }
    rows
}

fn read_jsonl(path: &Path) -> Rows {
    let mut rows = Rows::default();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let read = Read {
            size: v["size"].as_u64().unwrap(),
            etag: v["etag"].as_str().unwrap().to_string(),
            last_modified: v["last_modified"].as_str().unwrap().ends_with('Z'),
            storage_class: v["storage_class"].as_str().unwrap_or("").to_string(),
            metadata: None,
        };
        add(&mut rows, v["key"].as_str().unwrap().to_string(), read);
    }
    rows
}

/// What every inventory of the bucket holds: each key once, its size and ETag.
fn assert_holds_the_bucket(rows: &Rows, storage_class: &str, with_metadata: bool) {
    assert_eq!(rows.0.len() as u64, KEYS);
    for i in 0..KEYS {
        let got = rows
            .0
            .get(&key(i))
            .unwrap_or_else(|| panic!("{:?} missing", key(i)));
        let want = Read {
            size: i * 13 % 1000,
            etag: etag(i),
            last_modified: true,
            storage_class: storage_class.to_string(),
            metadata: with_metadata.then(|| metadata(i)),
        };
        assert_eq!(got, &want, "{:?}", key(i));
    }
}

/// `keystorm list inv --keys PATH ARGS... --json`: its report, checked against the
/// schema.
fn list(endpoint: &str, path: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec![
        "list",
        "inv",
        "--endpoint",
        endpoint,
        "--concurrency",
        "8",
        "--page-size",
        "50",
        "--json",
        "--keys",
        path.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    json_of(&keystorm(&all).output().unwrap(), "list-output.schema.json")
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn parquet_and_csv_inventories_hold_every_key_once_with_its_size_and_etag() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    for (name, format, args) in [
        ("inv.parquet", "parquet", &[][..]),
        ("inv.csv", "csv", &[][..]),
        // The flag wins over the extension.
        ("inv.out", "parquet", &["--format", "parquet"][..]),
        (
            "listing.txt",
            "csv",
            &["--format", "csv", "--mode", "prefix"][..],
        ),
    ] {
        let path = dir.path().join(name);
        let report = list(&endpoint, &path, args);
        assert_eq!(report["keys"], KEYS);
        let inv = &report["inventory"];
        assert_eq!(inv["format"], format, "{name}");
        assert_eq!(inv["rows"], KEYS, "{name}");
        assert_eq!(
            inv["bytes"],
            std::fs::metadata(&path).unwrap().len(),
            "{name}"
        );
        assert_eq!(inv["path"], path.to_str().unwrap());
        let rows = if format == "parquet" {
            read_parquet(&path)
        } else {
            read_csv(&path)
        };
        // The embedded target lists every object as STANDARD.
        assert_holds_the_bucket(&rows, "STANDARD", false);
    }
    // Nothing beside them (no partial file, no spill).
    assert_eq!(
        files_in(dir.path()),
        ["inv.csv", "inv.out", "inv.parquet", "listing.txt"]
    );

    // The human report names the inventory.
    let path = dir.path().join("again.parquet");
    let out = keystorm(&[
        "list",
        "inv",
        "--endpoint",
        &endpoint,
        "--keys",
        path.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&format!(
            "inventory {} (parquet): {KEYS} rows",
            path.display()
        )),
        "{text}"
    );
}

#[test]
fn head_adds_each_objects_metadata() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    for name in ["meta.parquet", "meta.csv"] {
        let path = dir.path().join(name);
        let report = list(&endpoint, &path, &["--head", "--head-concurrency", "8"]);
        assert_eq!(report["head"]["heads"], KEYS);
        assert_eq!(report["inventory"]["rows"], KEYS);
        let rows = if name.ends_with(".parquet") {
            read_parquet(&path)
        } else {
            read_csv(&path)
        };
        assert_holds_the_bucket(&rows, "STANDARD", true);
    }
}

#[test]
fn a_key_file_converts_to_every_format_in_key_order() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("inv.keys");
    let report = list(&endpoint, &keys, &[]);
    assert_eq!(report["key_file"]["keys"], KEYS);
    let mut sorted: Vec<String> = (0..KEYS).map(key).collect();
    sorted.sort();
    for (name, args) in [
        ("k.parquet", &[][..]),
        ("k.csv", &[][..]),
        ("k.jsonl", &[][..]),
        ("k.table", &["--format", "csv"][..]),
    ] {
        let out_path = dir.path().join(name);
        let mut all = vec![
            "keys",
            "convert",
            keys.to_str().unwrap(),
            out_path.to_str().unwrap(),
            "--json",
        ];
        all.extend_from_slice(args);
        let out = keystorm(&all).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["rows"], KEYS, "{name}");
        assert_eq!(
            summary["bytes"],
            std::fs::metadata(&out_path).unwrap().len(),
            "{name}"
        );
        let rows = match summary["format"].as_str().unwrap() {
            "parquet" => read_parquet(&out_path),
            "csv" => read_csv(&out_path),
            _ => read_jsonl(&out_path),
        };
        // A key file keeps no storage class.
        assert_holds_the_bucket(&rows, "", false);
        assert_eq!(rows.1, sorted, "{name}: in key order");
    }

    // The one-line summary.
    let out_path = dir.path().join("line.csv");
    let out = keystorm(&[
        "keys",
        "convert",
        keys.to_str().unwrap(),
        out_path.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!(
            "wrote {KEYS} rows to {} (csv, ",
            out_path.display()
        )),
        "{text}"
    );
}

/// Runs the binary; its exit code and standard error.
fn fails(args: &[&str]) -> (Option<i32>, String) {
    let out = keystorm(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    (out.status.code(), err)
}

#[test]
fn a_bad_format_or_path_exits_2_with_a_message() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    let inv = dir.path().join("x.parquet");
    let inv = inv.to_str().unwrap();
    let list = |extra: &[&str]| {
        let mut all = vec!["list", "inv", "--endpoint", &endpoint];
        all.extend_from_slice(extra);
        fails(&all)
    };

    let (code, err) = list(&["--keys", inv, "--format", "xlsx"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("xlsx") && err.contains("parquet"), "{err}");

    let (code, err) = list(&["--keys", "/nonexistent/folder/x.parquet"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("cannot write the inventory /nonexistent/folder/x.parquet"),
        "{err}"
    );

    let checkpoint = dir.path().join("cp.json");
    let (code, err) = list(&["--keys", inv, "--checkpoint", checkpoint.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("leave out --checkpoint"), "{err}");

    let (code, err) = list(&["--keys", "-", "--format", "csv"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--keys - writes JSON lines"), "{err}");

    // Nothing was written by any of them.
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );

    let missing = dir.path().join("missing.keys");
    let (code, err) = fails(&["keys", "convert", missing.to_str().unwrap(), inv]);
    assert_eq!(code, Some(2));
    assert!(err.contains("missing.keys"), "{err}");

    let not_keys = dir.path().join("not.keys");
    std::fs::write(&not_keys, "key,size\na,1\n").unwrap();
    let (code, err) = fails(&["keys", "convert", not_keys.to_str().unwrap(), inv]);
    assert_eq!(code, Some(2));
    assert!(err.contains("is not a keystorm key file"), "{err}");

    let (code, err) = fails(&["keys", "convert", not_keys.to_str().unwrap(), "out.xlsx"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("cannot tell what to write out.xlsx as"),
        "{err}"
    );

    let (code, err) = fails(&["keys", "convert", not_keys.to_str().unwrap(), "copy.keys"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("would be a key file"), "{err}");

    assert_eq!(files_in(dir.path()), ["not.keys"]);
}
