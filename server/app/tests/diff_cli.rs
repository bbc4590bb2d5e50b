//! `keystorm diff` as a user runs it against a live target: equal listings exit 0,
//! different ones exit 1 with the counts and the keys (every one with `--out`), a key
//! file saved by `keystorm list` compares like its bucket, and bad input exits 2 with
//! a message that says what to write instead.

use std::process::Command;

mod cli_support;

use keystorm_sim::{Object, SimHandle};

const BIN: &str = env!("CARGO_BIN_EXE_keystorm");

fn object(size: u64, etag: u8) -> Object {
    Object {
        size,
        etag: [etag; 16],
        last_modified_ms: keystorm_sim::now_ms(),
        content_type: None,
        metadata: Box::new([]),
        data: None,
        parts: 0,
    }
}

/// `src` with 300 keys under `data/`; `dst` a copy under `copy/` missing two, with one
/// resized, one rewritten and one of its own; `same` an exact copy under `data/`.
fn target() -> (tokio::runtime::Runtime, SimHandle) {
    let (rt, sim) = cli_support::signing_target("diff-key", "diff-secret");
    for b in ["src", "dst", "same"] {
        sim.store().create_bucket(b);
    }
    let (src, dst, same) = (
        sim.store().bucket("src").unwrap(),
        sim.store().bucket("dst").unwrap(),
        sim.store().bucket("same").unwrap(),
    );
    for i in 0..300u64 {
        let key = format!("{:02}/{i:05}", i % 7);
        src.put(format!("data/{key}").as_bytes(), object(i, 1))
            .unwrap();
        same.put(format!("data/{key}").as_bytes(), object(i, 1))
            .unwrap();
        let copy = match i {
            10 | 11 => continue,
            12 => object(i + 5, 1),
            13 => object(i, 9),
            _ => object(i, 1),
        };
        dst.put(format!("copy/{key}").as_bytes(), copy).unwrap();
    }
    dst.put(b"copy/new", object(1, 1)).unwrap();
    (rt, sim)
}

fn keystorm(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args)
        .env("AWS_ACCESS_KEY_ID", "diff-key")
        .env("AWS_SECRET_ACCESS_KEY", "diff-secret")
        .env_remove("KEYSTORM_ENDPOINT");
    c
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = keystorm(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn equal_listings_exit_0_and_different_ones_exit_1_with_every_key() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let (code, out, err) = run(&[
        "diff",
        "s3://src/data/",
        "s3://same/data/",
        "--endpoint",
        &endpoint,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("equal: 300 keys on both sides, each with the same size and ETag"),
        "{out}"
    );

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("d.jsonl");
    let (code, out, err) = run(&[
        "diff",
        "s3://src/data/",
        "s3://dst/copy/",
        "--endpoint",
        &endpoint,
        "--mode",
        "prefix",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("differ: 2 only in A, 1 only in B, 1 with another size, 1 with another ETag; 296 the same"),
        "{out}"
    );
    assert!(out.contains("5 keys that differ written to"), "{out}");
    let mut lines: Vec<serde_json::Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines.sort_by_key(|l| l["key"].as_str().unwrap().to_string());
    let brief: Vec<(String, String)> = lines
        .iter()
        .map(|l| {
            (
                l["key"].as_str().unwrap().into(),
                l["change"].as_str().unwrap().into(),
            )
        })
        .collect();
    let pair = |k: &str, c: &str| (k.to_string(), c.to_string());
    assert_eq!(
        brief,
        vec![
            pair("03/00010", "only_a"),
            pair("04/00011", "only_a"),
            pair("05/00012", "size"),
            pair("06/00013", "etag"),
            pair("new", "only_b"),
        ]
    );
    assert_eq!(lines[2]["a"]["size"], 12);
    assert_eq!(lines[2]["b"]["size"], 17);
    assert_eq!(lines[3]["b"]["etag"], "09090909090909090909090909090909");

    // Sizes only: the rewritten key is the same.
    let (code, out, _) = run(&[
        "diff",
        "s3://src/data/",
        "s3://dst/copy/",
        "--endpoint",
        &endpoint,
        "--no-etag",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("1 with another size, 0 with another ETag; 297 the same"),
        "{out}"
    );
    assert!(
        out.contains("  only in A 03/00010: A 10 bytes, B absent"),
        "{out}"
    );
}

#[test]
fn a_saved_key_file_compares_like_its_bucket() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("src.jsonl");
    let listed = keystorm(&[
        "list",
        "src",
        "--endpoint",
        &endpoint,
        "--prefix",
        "data/",
        "--keys",
        keys.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(listed.status.success());
    // The saved listing against the bucket it came from, and against the copy.
    let (code, out, err) = run(&[
        "diff",
        keys.to_str().unwrap(),
        "s3://src/data/",
        "--endpoint",
        &endpoint,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("A: key file"), "{out}");
    let (code, out, _) = run(&[
        "diff",
        keys.to_str().unwrap(),
        "s3://same/data/",
        "--endpoint",
        &endpoint,
        "--json",
    ]);
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["counts"]["same"], 300);
    assert_eq!(json["a"]["entries"], 300);
}

#[test]
fn bad_input_exits_2_and_says_what_to_write() {
    let (_rt, sim) = target();
    let endpoint = sim.endpoint();
    let cases: &[(&[&str], &str)] = &[
        (
            &["diff", "src", "s3://dst/"],
            "A: there is no key file \"src\"; a bucket is written s3://src",
        ),
        (&["diff", "s3://", "s3://dst/"], "names no bucket"),
        (
            &["diff", "s3://src/", "s3://dst/"],
            "s3://src needs an endpoint: --endpoint URL",
        ),
        (
            &[
                "diff",
                "s3://src/",
                "s3://nowhere/",
                "--endpoint",
                &endpoint,
            ],
            "bucket \"nowhere\" does not exist",
        ),
    ];
    for (args, needle) in cases {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // A saved listing that is not one is refused by name: JSON lines without a key, and
    // an empty or cut key file, never read as an empty listing (which would equal an
    // empty prefix).
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"key\":\"a\",\"size\":1}\n{\"size\":2}\n").unwrap();
    let empty = dir.path().join("empty.keys");
    std::fs::write(&empty, b"").unwrap();
    let cut = dir.path().join("cut.keys");
    std::fs::write(&cut, b"KSTMKEYS\x01\0\0\0\x80\0").unwrap();
    for (file, says) in [
        (&bad, "bad.jsonl: line 2: not a key line"),
        (&empty, "empty.keys is not a keystorm key file"),
        (&cut, "cut.keys is not a keystorm key file"),
    ] {
        let (code, out, err) = run(&[
            "diff",
            file.to_str().unwrap(),
            "s3://src/nothing-here/",
            "--endpoint",
            &endpoint,
        ]);
        assert_eq!(code, 2, "{says}: {out}{err}");
        assert!(err.contains(says), "{err}");
    }
}
