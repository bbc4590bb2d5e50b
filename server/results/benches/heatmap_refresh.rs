//! What a live page's heatmap refresh costs against reading the run's whole histogram
//! log again, on a two-hour log: 7,200 one-second intervals of four operations, each
//! a histogram of a few hundred distinct latencies. The refresh is a builder that has
//! read the log taking in one more second's lines, and copying out its grid as an
//! answer does.

use std::hint::black_box;
use std::io::Write;
use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use hdrhistogram::Histogram;
use keystorm_results::{HeatmapBuilder, HlogWriter, heatmap, metrics::new_histogram};

const SECONDS: u64 = 7_200;
const OPS: [&str; 4] = ["put", "get", "head", "delete"];
/// What the run page asks for.
const COLUMNS: usize = 1_200;

/// One second's lines, one per operation.
fn second(writer: &mut HlogWriter, rng: &mut fastrand::Rng, s: u64, out: &mut impl Write) {
    for (i, op) in OPS.iter().enumerate() {
        writer
            .write(
                out,
                &format!("round.1.mixed.{op}"),
                s as f64,
                1.0,
                &histogram(rng, i),
            )
            .unwrap();
    }
}

/// A second of one operation: 400 latencies spread log-normally around a few
/// milliseconds (more for the `i`th operation), with a tail.
fn histogram(rng: &mut fastrand::Rng, i: usize) -> Histogram<u64> {
    let mut h = new_histogram();
    for _ in 0..400 {
        // Box–Muller: a normal deviate from two uniform ones.
        let z =
            (-2.0 * (1.0 - rng.f64()).ln()).sqrt() * (2.0 * std::f64::consts::PI * rng.f64()).cos();
        let us = (2_000.0 * (i as f64 + 1.0) * (0.8 * z).exp()) as u64;
        h.record(us.max(1)).unwrap();
    }
    h
}

fn is_get(tag: &str) -> bool {
    tag.ends_with(".get")
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("histograms.hlog");
    let mut rng = fastrand::Rng::with_seed(7);
    let mut writer = HlogWriter::default();
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    HlogWriter::header(&mut out, 0.0).unwrap();
    for s in 0..SECONDS {
        second(&mut writer, &mut rng, s, &mut out);
    }
    drop(out);
    let size = std::fs::metadata(&path).unwrap().len();
    let mut read = HeatmapBuilder::new(COLUMNS);
    read.feed(&path, is_get).unwrap();
    append_second(&path, &mut writer, &mut rng);
    eprintln!(
        "log: {SECONDS} s, {} lines of ~{} distinct latencies, {:.1} MiB; refresh reads {} bytes",
        SECONDS * OPS.len() as u64,
        histogram(&mut rng, 1).iter_recorded().count(),
        size as f64 / (1 << 20) as f64,
        std::fs::metadata(&path).unwrap().len() - size
    );

    let mut group = c.benchmark_group("heatmap of one operation, 2 h log");
    group.sample_size(10);
    group.bench_function("one-shot read of the whole log", |b| {
        b.iter(|| black_box(heatmap(&path, is_get, COLUMNS).unwrap()))
    });
    group.bench_function("refresh after one more second", |b| {
        b.iter_batched(
            || read.clone(),
            |mut builder| {
                builder.feed(&path, is_get).unwrap();
                black_box(builder.grid())
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn append_second(path: &Path, writer: &mut HlogWriter, rng: &mut fastrand::Rng) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    second(writer, rng, SECONDS, &mut file);
}

criterion_group!(benches, bench);
criterion_main!(benches);
