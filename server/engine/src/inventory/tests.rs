//! Every format read back with its own reader (arrow-rs's Parquet record reader, the
//! csv crate, serde_json): the rows written, awkward keys and missing values included.

use std::borrow::Cow;
use std::path::Path;

use ::parquet::file::reader::{FileReader, SerializedFileReader};
use ::parquet::record::Field;

use super::format::Format;
use super::row::Row;
use super::writer::InventoryWriter;

const KEYS: [&str; 8] = [
    "plain/key.bin",
    "a,comma",
    "a \"quoted\" key",
    "line\nbreak",
    "ünï côdé ☺",
    "%2B+&=?#",
    " leading space",
    "",
];

fn rows(n: usize, metadata: bool) -> Vec<Row> {
    (0..n)
        .map(|i| Row {
            key: format!("{}{i}", KEYS[i % KEYS.len()]),
            size: (i as u64) * 977,
            etag: (i % 5 != 1).then(|| format!("{:032x}", i * 31)),
            last_modified_ms: (i % 7 != 2).then_some(1_795_747_793_000 + i as u64),
            storage_class: match i % 3 {
                0 => Some(Cow::Borrowed("STANDARD")),
                1 => Some(Cow::Owned(format!("CLASS_{i}"))),
                _ => None,
            },
            metadata: match i % 4 {
                _ if !metadata => None,
                0 => None,
                1 => Some(vec![]),
                _ => Some(vec![
                    ("owner".to_string(), format!("team, \"{i}\"")),
                    ("z-last".to_string(), "ü".to_string()),
                ]),
            },
        })
        .collect()
}

fn write(path: &Path, format: Format, rows: &[Row], metadata: bool) -> super::Written {
    let mut w = InventoryWriter::create(path, format, metadata).unwrap();
    for r in rows {
        w.push(r.clone()).unwrap();
    }
    w.finish().unwrap()
}

/// A row as a reader of the text formats can tell it: an empty map and no map differ
/// only in Parquet and JSON lines.
fn ms_text(ms: Option<u64>) -> String {
    ms.map(super::row::rfc3339).unwrap_or_default()
}

#[test]
fn parquet_reads_back_row_for_row_over_several_row_groups() {
    for metadata in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inv.parquet");
        let rows = rows(150_000, metadata);
        let w = write(&path, Format::Parquet, &rows, metadata);
        assert_eq!(w.rows, rows.len() as u64);
        assert_eq!(w.bytes, std::fs::metadata(&path).unwrap().len());
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        assert_eq!(reader.metadata().num_row_groups(), 3);
        let mut read = Vec::with_capacity(rows.len());
        for row in reader.get_row_iter(None).unwrap() {
            read.push(parquet_row(&row.unwrap()));
        }
        assert_eq!(read.len(), rows.len());
        for (got, want) in read.iter().zip(&rows) {
            assert_eq!(got, want);
        }
        // Nothing else was left beside it.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

fn parquet_row(row: &::parquet::record::Row) -> Row {
    let mut out = Row {
        key: String::new(),
        size: 0,
        etag: None,
        last_modified_ms: None,
        storage_class: None,
        metadata: None,
    };
    for (name, field) in row.get_column_iter() {
        match (name.as_str(), field) {
            ("key", Field::Str(s)) => out.key = s.clone(),
            ("size", Field::Long(n)) => out.size = *n as u64,
            ("etag", Field::Str(s)) => out.etag = Some(s.clone()),
            ("last_modified", Field::TimestampMillis(t)) => out.last_modified_ms = Some(*t as u64),
            ("storage_class", Field::Str(s)) => out.storage_class = Some(Cow::Owned(s.clone())),
            ("metadata", Field::MapInternal(m)) => {
                out.metadata = Some(
                    m.entries()
                        .iter()
                        .map(|(k, v)| match (k, v) {
                            (Field::Str(k), Field::Str(v)) => (k.clone(), v.clone()),
                            other => panic!("metadata entry {other:?}"),
                        })
                        .collect(),
                )
            }
            (_, Field::Null) => {}
            other => panic!("unexpected column {other:?}"),
        }
    }
    out
}

#[test]
fn csv_quotes_what_needs_it_and_leaves_unknowns_empty() {
    for metadata in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inv.csv");
        let rows = rows(500, metadata);
        write(&path, Format::Csv, &rows, metadata);
        let mut reader = ::csv::Reader::from_path(&path).unwrap();
        let mut header = vec!["key", "size", "etag", "last_modified", "storage_class"];
        if metadata {
            header.push("metadata");
        }
        assert_eq!(reader.headers().unwrap(), header);
        let records: Vec<::csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(records.len(), rows.len());
        for (r, want) in records.iter().zip(&rows) {
            assert_eq!(&r[0], want.key);
            assert_eq!(r[1].parse::<u64>().unwrap(), want.size);
            assert_eq!(&r[2], want.etag.as_deref().unwrap_or(""));
            assert_eq!(r[3], ms_text(want.last_modified_ms));
            assert_eq!(&r[4], want.storage_class.as_deref().unwrap_or(""));
            if metadata {
                match &want.metadata {
                    None => assert_eq!(&r[5], ""),
                    Some(m) => {
                        let v: serde_json::Value = serde_json::from_str(&r[5]).unwrap();
                        assert_eq!(v.as_object().unwrap().len(), m.len());
                        for (k, val) in m {
                            assert_eq!(v[k], *val);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn json_lines_hold_one_object_per_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inv.jsonl");
    let rows = rows(500, true);
    write(&path, Format::Jsonl, &rows, true);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), rows.len());
    for (v, want) in lines.iter().zip(&rows) {
        assert_eq!(v["key"], want.key);
        assert_eq!(v["size"], want.size);
        assert_eq!(v["etag"].as_str(), want.etag.as_deref());
        assert_eq!(
            v["last_modified"].as_str().unwrap_or(""),
            ms_text(want.last_modified_ms)
        );
        assert_eq!(v["storage_class"].as_str(), want.storage_class.as_deref());
        match &want.metadata {
            None => assert!(v["metadata"].is_null()),
            Some(m) => assert_eq!(v["metadata"].as_object().unwrap().len(), m.len()),
        }
    }
    // Without metadata, no metadata field at all.
    let plain = dir.path().join("plain.jsonl");
    write(&plain, Format::Jsonl, &self::rows(3, false), false);
    let first: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&plain)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(first.get("metadata").is_none(), "{first}");
}

#[test]
fn an_unfinished_inventory_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    for format in [Format::Parquet, Format::Csv, Format::Jsonl] {
        let path = dir.path().join(format!("inv.{}", format.name()));
        let mut w = InventoryWriter::create(&path, format, false).unwrap();
        w.push(rows(1, false).remove(0)).unwrap();
        assert!(
            dir.path()
                .join(format!("inv.{}.partial", format.name()))
                .exists()
        );
        drop(w);
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // A folder that is not there is an error naming the file, not a panic.
    let e = InventoryWriter::create(&dir.path().join("no/such.csv"), Format::Csv, false)
        .err()
        .unwrap();
    assert!(e.to_string().contains("no/such.csv: "), "{e}");
}
