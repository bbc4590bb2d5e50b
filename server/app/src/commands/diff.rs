//! `keystorm diff A B`: two listings — buckets, prefixes, endpoints, or a saved key
//! file — compared key by key in memory that does not grow with them; counts on the
//! terminal, every key that differs to a file on request, and an exit code like
//! `diff`'s: 0 equal, 1 different, 2 trouble.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use keystorm_engine::audit::BUDGET;
use keystorm_engine::audit::diff::{
    Change, DiffCounts, DiffError, DiffJob, DiffOutcome, DiffSource, Difference, OnDifference,
};
use keystorm_engine::listing::{ListJob, PageEvent, PageObserver};
use keystorm_results::ListMode;
use keystorm_results::Shard;
use tokio_util::sync::CancellationToken;

use crate::CliError;
use crate::cli::{DiffArgs, ListModeArg, TargetArgs};
use keystorm_console::exit;

/// Differences printed on the terminal when they are not written to a file.
const SHOWN: usize = 10;

/// Where one side's keys come from, as given.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Location {
    Bucket { bucket: String, prefix: String },
    KeyFile(PathBuf),
}

impl Location {
    fn parse(side: &str, text: &str) -> Result<Location, CliError> {
        if let Some(rest) = text.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(CliError::bad_input(format!(
                    "{side}: {text:?} names no bucket; write s3://BUCKET[/PREFIX]"
                )));
            }
            return Ok(Location::Bucket {
                bucket: bucket.to_string(),
                prefix: prefix.to_string(),
            });
        }
        let path = PathBuf::from(text);
        if !path.is_file() {
            return Err(CliError::bad_input(format!(
                "{side}: there is no key file {text:?}; a bucket is written s3://{}",
                text.trim_start_matches('/')
            )));
        }
        Ok(Location::KeyFile(path))
    }

    fn prefix(&self) -> &str {
        match self {
            Location::Bucket { prefix, .. } => prefix,
            Location::KeyFile(_) => "",
        }
    }

    fn describe(&self, endpoint: Option<&str>) -> String {
        match self {
            Location::Bucket { bucket, prefix } => match endpoint {
                Some(e) => format!("s3://{bucket}/{prefix} at {e}"),
                None => format!("s3://{bucket}/{prefix}"),
            },
            Location::KeyFile(p) => format!("key file {}", p.display()),
        }
    }
}

/// Keys listed so far by one side, for the progress line.
#[derive(Default)]
struct Listed(AtomicU64);

impl PageObserver for Listed {
    fn page(&self, e: PageEvent) {
        if let Ok(keys) = e.outcome {
            self.0.fetch_add(keys, Ordering::Relaxed);
        }
    }
}

pub async fn diff(args: &DiffArgs) -> Result<u8, CliError> {
    let a = Location::parse("A", &args.a)?;
    let b = Location::parse("B", &args.b)?;
    let endpoint_a = args.endpoint.clone();
    let endpoint_b = args.endpoint_b.clone().or_else(|| args.endpoint.clone());
    let source_a = source(
        args,
        &a,
        b.prefix(),
        endpoint_a.as_deref(),
        args.profile.as_ref(),
    )
    .await?;
    let profile_b = args.profile_b.as_ref().or(args.profile.as_ref());
    let source_b = source(args, &b, a.prefix(), endpoint_b.as_deref(), profile_b).await?;
    let spill_in = args.spill_dir.clone().unwrap_or_else(std::env::temp_dir);
    if !spill_in.is_dir() {
        return Err(CliError::bad_input(format!(
            "--spill-dir {}: no such folder",
            spill_in.display()
        )));
    }
    let to_stdout = args.out.as_deref() == Some(std::path::Path::new("-"));
    let (on, output, written, shown) = sink(args.out.as_ref(), to_stdout)?;
    let listed = [Arc::new(Listed::default()), Arc::new(Listed::default())];
    let stop = CancellationToken::new();
    let ticker = keystorm_console::output::spawn(show_progress(listed.clone(), stop.clone()));
    let on_ctrl_c = super::target::stop_on_ctrl_c(&stop);
    let [la, lb] = listed;
    let result = keystorm_engine::audit::diff::diff(
        DiffJob {
            a: source_a,
            b: source_b,
            etags: !args.no_etag,
            spill_in,
            budget: BUDGET,
        },
        [la, lb],
        on,
        stop.clone(),
    )
    .await;
    on_ctrl_c.abort();
    stop.cancel();
    let _ = ticker.await;
    // Any error is trouble, as diff(1) has it: exit 2.
    let outcome = result.map_err(|e: DiffError| CliError::bad_input(e.to_string()))?;
    if let Some(f) = output.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
        f.flush()
            .map_err(|e| CliError::bad_input(format!("cannot write --out: {e}")))?;
    }
    let written = written.load(Ordering::Relaxed);
    let text = if args.json {
        serde_json::to_string_pretty(&outcome).map_err(|e| CliError::failed(e.to_string()))? + "\n"
    } else {
        let shown = shown.lock().unwrap_or_else(|p| p.into_inner());
        human(
            &outcome,
            [
                a.describe(endpoint_a.as_deref()),
                b.describe(endpoint_b.as_deref()),
            ],
            &shown,
            args.out
                .as_ref()
                .filter(|_| !to_stdout)
                .map(|p| (p, written)),
        )
    };
    if to_stdout {
        stderr!("{text}");
    } else {
        stdout!("{text}");
    }
    Ok(if outcome.stopped {
        exit::INTERRUPTED
    } else if outcome.counts.equal() {
        exit::OK
    } else {
        exit::FAILED
    })
}

/// The diff's source for one side: a listing with its own client, or a key file
/// compared without the other side's prefix.
async fn source(
    args: &DiffArgs,
    location: &Location,
    other_prefix: &str,
    endpoint: Option<&str>,
    profile: Option<&String>,
) -> Result<DiffSource, CliError> {
    match location {
        Location::KeyFile(path) => Ok(DiffSource::KeyFile {
            path: path.clone(),
            strip: other_prefix.to_string(),
        }),
        Location::Bucket { bucket, prefix } => {
            let Some(endpoint) = endpoint else {
                return Err(CliError::bad_input(format!(
                    "s3://{bucket} needs an endpoint: --endpoint URL (or KEYSTORM_ENDPOINT)"
                )));
            };
            let target = TargetArgs {
                endpoint: endpoint.to_string(),
                region: args.region.clone(),
                virtual_hosted: args.virtual_hosted,
                profile: profile.cloned(),
                insecure: args.insecure,
                timeout: args.timeout,
            };
            let client = super::target::connect(&target, args.listers as usize).await?;
            super::target::require_bucket(&client, &target, bucket)
                .await
                .map_err(|e| CliError::bad_input(e.message))?;
            let mode = match args.mode {
                ListModeArg::Serial => ListMode::Serial,
                ListModeArg::Prefix => ListMode::Prefix {
                    depth: 1,
                    alphabet: keystorm_results::BASE62_ALPHABET.to_string(),
                },
                ListModeArg::Adaptive => ListMode::Adaptive {
                    delimiter: Some("/".to_string()),
                },
            };
            Ok(DiffSource::Listing {
                client,
                job: ListJob {
                    bucket: bucket.clone(),
                    prefix: prefix.clone(),
                    mode,
                    listers: args.listers,
                    page_size: args.page_size,
                    retries: args.retries,
                    report_depth: None,
                    shard: Shard::WHOLE,
                },
            })
        }
    }
}

type Shown = Arc<Mutex<Vec<Difference>>>;
type Output = Arc<Mutex<Option<Box<dyn std::io::Write + Send>>>>;

/// Where the differences go: a JSON-lines file (or standard output), flushed by the
/// caller at the end, and the first few kept for the terminal; with how many lines were
/// written.
fn sink(
    out: Option<&PathBuf>,
    to_stdout: bool,
) -> Result<(OnDifference, Output, Arc<AtomicU64>, Shown), CliError> {
    let written = Arc::new(AtomicU64::new(0));
    let shown: Shown = Arc::new(Mutex::new(Vec::new()));
    let file: Option<Box<dyn std::io::Write + Send>> = match out {
        None => None,
        Some(_) if to_stdout => Some(Box::new(std::io::BufWriter::new(
            keystorm_console::output::Stdout,
        ))),
        Some(path) => Some(Box::new(std::io::BufWriter::with_capacity(
            1 << 20,
            std::fs::File::create(path).map_err(|e| {
                CliError::bad_input(format!("cannot create {}: {e}", path.display()))
            })?,
        ))),
    };
    let output: Output = Arc::new(Mutex::new(file));
    let (n, keep, sink) = (written.clone(), shown.clone(), output.clone());
    let mut line = String::new();
    let on: OnDifference = Box::new(move |d: &Difference| {
        if let Some(f) = sink.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            line.clear();
            let _ = writeln!(
                line,
                "{}",
                serde_json::to_string(d).map_err(std::io::Error::other)?
            );
            f.write_all(line.as_bytes())?;
            n.fetch_add(1, Ordering::Relaxed);
        }
        let mut keep = keep.lock().unwrap_or_else(|p| p.into_inner());
        if keep.len() < SHOWN {
            keep.push(d.clone());
        }
        Ok(())
    });
    Ok((on, output, written, shown))
}

async fn show_progress(listed: [Arc<Listed>; 2], stop: CancellationToken) {
    if !keystorm_console::output::stderr_is_terminal() {
        return;
    }
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.tick().await;
    loop {
        tokio::select! {
            _ = tick.tick() => stderr!(
                "\rA: {} keys listed, B: {} keys listed   ",
                listed[0].0.load(Ordering::Relaxed),
                listed[1].0.load(Ordering::Relaxed)
            ),
            _ = stop.cancelled() => {
                stderrln!();
                return;
            }
        }
    }
}

/// The outcome for a person: each side, the verdict with its counts, the first keys
/// that differ, and where the rest went.
fn human(
    o: &DiffOutcome,
    names: [String; 2],
    shown: &[Difference],
    written: Option<(&PathBuf, u64)>,
) -> String {
    let mut out = String::new();
    for ((label, name), side) in ["A", "B"].iter().zip(&names).zip([&o.a, &o.b]) {
        let how = match &side.listing {
            Some(l) => format!(
                "{} keys listed in {:.1} s ({:.0} keys/s)",
                l.keys,
                l.seconds,
                l.keys_per_sec()
            ),
            None => format!("{} keys read in {:.1} s", side.entries, side.seconds),
        };
        let _ = writeln!(out, "{label}: {name}: {how}");
    }
    if o.stopped {
        let _ = writeln!(out, "stopped before both sides were read: nothing compared");
        return out;
    }
    let c: &DiffCounts = &o.counts;
    if c.equal() {
        let _ = writeln!(
            out,
            "equal: {} keys on both sides, each with the same size and ETag",
            c.same
        );
        return out;
    }
    let mut parts = vec![
        format!("{} only in A", c.only_a),
        format!("{} only in B", c.only_b),
        format!("{} with another size", c.size_changed),
        format!("{} with another ETag", c.etag_changed),
    ];
    if c.doubled_a > 0 {
        parts.push(format!("{} listed more than once in A", c.doubled_a));
    }
    if c.doubled_b > 0 {
        parts.push(format!("{} listed more than once in B", c.doubled_b));
    }
    let _ = writeln!(out, "differ: {}; {} the same", parts.join(", "), c.same);
    if let Some((path, lines)) = written {
        let _ = writeln!(
            out,
            "{lines} keys that differ written to {}",
            path.display()
        );
        return out;
    }
    let mut shown: Vec<&Difference> = shown.iter().collect();
    shown.sort_by(|x, y| (x.change as u8, &x.key).cmp(&(y.change as u8, &y.key)));
    for d in &shown {
        let _ = writeln!(out, "  {} {}: {}", change_name(d.change), d.key, what(d));
    }
    let total = c.only_a + c.only_b + c.size_changed + c.etag_changed + c.doubled_a + c.doubled_b;
    if total > shown.len() as u64 {
        let _ = writeln!(
            out,
            "  ({} more: --out FILE writes every one)",
            total - shown.len() as u64
        );
    }
    out
}

fn change_name(c: Change) -> &'static str {
    match c {
        Change::OnlyA => "only in A",
        Change::OnlyB => "only in B",
        Change::Size => "size",
        Change::Etag => "ETag",
        Change::DoubledA => "doubled in A",
        Change::DoubledB => "doubled in B",
    }
}

/// What the two sides hold of a key.
fn what(d: &Difference) -> String {
    let side = |o: &Option<keystorm_engine::audit::diff::Object>| match o {
        Some(o) => match &o.etag {
            Some(e) => format!("{} bytes, ETag {e}", o.size),
            None => format!("{} bytes", o.size),
        },
        None => "absent".to_string(),
    };
    let times = d.times.map(|n| format!(" ({n} times)")).unwrap_or_default();
    format!("A {}, B {}{times}", side(&d.a), side(&d.b))
}
