//! Picks from a key file, without S3: what a worker pays to find the key of its next
//! read in a file of 100,000 keys and in one of 5,000,000 — a uniform pick, a Zipf pick
//! (a rank shuffled over the positions), an epoch's pick (a keyed permutation) and a
//! sequential pass. A random pick finds one block and walks it to the key (stored as it
//! is, or decompressed first); a pass decodes each block once. Each is measured two ways
//! side by side: the block found in the file mapped into memory (what a run's picks
//! do), and read with `pread` (a pick: of its index entry and of its block; a pass:
//! 128 KiB ahead). Each file's
//! size is printed first, in bytes per key: its ETags are real MD5s (of each object's
//! content, as S3 gives a single-part PUT) and its times spread over a day, as a
//! fill's are; neither repeats from key to key, so the figure is what a listing of such
//! a bucket takes.

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use keystorm_engine::keyfile::{Cursor, KeyEntry, KeyFile, KeyFileWriter};
use keystorm_engine::keyset::{EpochPicks, KeySet};
use keystorm_results::Shard;
use md5::{Digest, Md5};

/// A key file of `n` keystorm-like keys (`k/` and 16 hex characters), each with the
/// MD5 ETag of a content of its own and a time of its own; its size is printed in
/// bytes per key.
fn key_file(dir: &Path, n: u64) -> std::path::PathBuf {
    let path = dir.join(format!("{n}.keys"));
    let mut w = KeyFileWriter::create(&path, dir).unwrap();
    for i in 0..n {
        let h = keystorm_engine::keyspace::mix64(5, i);
        let content = format!("object {i} of the key file benchmark");
        w.push(KeyEntry {
            key: format!("k/{h:016x}"),
            size: content.len() as u64,
            etag: Some(hex::encode(Md5::digest(content.as_bytes()))),
            // Written over a day in an order of their own, as a fill's objects are.
            last_modified_ms: Some(
                1_790_000_000_000 + keystorm_engine::keyspace::mix64(6, i) % 86_400_000,
            ),
        })
        .unwrap();
    }
    let written = w.finish().unwrap();
    println!(
        "key file of {n} keys with MD5 ETags: {} bytes, {:.1} bytes a key",
        written.bytes,
        written.bytes as f64 / n as f64
    );
    path
}

fn picks(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    for n in [100_000u64, 5_000_000] {
        let path = key_file(dir.path(), n);
        let set = Arc::new(KeySet::open(&path, "b", None, Shard::WHOLE, 1).unwrap());
        let file = KeyFile::open(&path).unwrap();
        // The same picks side by side: blocks found in the mapped file, and blocks read
        // with pread (a pick's index entry and block; a pass reads ahead).
        let mut cursors = [
            ("mapped", file.mapped().unwrap().cursor().unwrap()),
            ("pread", file.cursor().unwrap()),
        ];
        let mut rng = fastrand::Rng::with_seed(3);
        let mut group = c.benchmark_group(format!("uniform pick of {n} keys"));
        for (name, cursor) in &mut cursors {
            group.bench_function(*name, |b| {
                b.iter(|| black_box(key_len(cursor, rng.u64(0..n))))
            });
        }
        group.finish();
        let mut group = c.benchmark_group(format!("zipf rank pick of {n} keys"));
        for (name, cursor) in &mut cursors {
            group.bench_function(*name, |b| {
                b.iter(|| black_box(key_len(cursor, set.hot(rng.u64(0..n)))))
            });
        }
        group.finish();
        let epochs = EpochPicks::new(n, u32::MAX, 9, 0);
        let mut group = c.benchmark_group(format!("epoch pick of {n} keys"));
        for (name, cursor) in &mut cursors {
            group.bench_function(*name, |b| {
                b.iter(|| {
                    let p = epochs.begin().unwrap();
                    let len = key_len(cursor, p.position);
                    epochs.finish(p.number);
                    black_box(len)
                })
            });
        }
        group.finish();
        let mut group = c.benchmark_group(format!("sequential pass over {n} keys"));
        for (name, cursor) in &mut cursors {
            let mut next = 0;
            group.bench_function(*name, |b| {
                b.iter(|| {
                    next = (next + 1) % n;
                    black_box(key_len(cursor, next))
                })
            });
        }
        group.finish();
    }
}

/// The length of key number `i`, read through `cursor`.
fn key_len(cursor: &mut Cursor, i: u64) -> usize {
    cursor.get(i).unwrap().unwrap().key.len()
}

criterion_group!(benches, picks);
criterion_main!(benches);
