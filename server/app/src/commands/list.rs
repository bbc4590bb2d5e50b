//! `keystorm list BUCKET`: count (and optionally write out and break down) every key of
//! a bucket with one of the three listing modes, with a progress line on stderr and
//! the page latency and client CPU it cost; with `--head`, HEAD every object for its
//! user metadata as the listing streams. `--keys FILE` writes every key as JSON lines,
//! a key file or a Parquet or CSV inventory.

use keystorm_types::old_names;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use keystorm_engine::inventory::{self, Format, InventoryWriter};
use keystorm_engine::keyfile;
use keystorm_engine::listing::{self, ListCheckpoint, ListJob, PageEvent, PageObserver};
use keystorm_engine::metrics::process_cpu_time;
use keystorm_engine::scan::{self, HeadEvent, HeadObserver, ScanJob, ScanOutcome};
use keystorm_results::metrics::{Percentiles, micros, new_histogram};
use keystorm_results::{ListMode, ListOutcome};
use keystorm_s3::S3Client;
use tokio_util::sync::CancellationToken;

use super::key_output::{KeyOutput, key_output};
use super::list_report::{HeadReport, InventoryReport, KeyFileReport, ListReport, human};
use crate::CliError;
use crate::cli::{ListArgs, ListModeArg};
use keystorm_console::exit;

/// Counts keys for the progress line and request latency for the report.
struct Progress {
    keys: AtomicU64,
    heads: AtomicU64,
    latency: Mutex<Histogram<u64>>,
    head_latency: Mutex<Histogram<u64>>,
}

impl PageObserver for Progress {
    fn page(&self, e: PageEvent) {
        if let Ok(keys) = e.outcome {
            self.keys.fetch_add(keys, Ordering::Relaxed);
            record(&self.latency, e.start, e.end);
        }
    }
}

impl HeadObserver for Progress {
    fn head(&self, e: HeadEvent) {
        if e.outcome.is_ok() {
            self.heads.fetch_add(1, Ordering::Relaxed);
            record(&self.head_latency, e.start, e.end);
        }
    }
}

fn record(h: &Mutex<Histogram<u64>>, start: Instant, end: Instant) {
    let _ = h
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .record(micros(end.duration_since(start)));
}

pub async fn list(args: &ListArgs) -> Result<u8, CliError> {
    let out = keys_out(args)?;
    let job = job(args, &out)?;
    let resume = match &args.checkpoint {
        Some(path) => resume_from(path, &job, matches!(out, KeysOut::Lines(_)))?,
        None => None,
    };
    let pool = args.listers + if args.head { args.head_workers } else { 0 };
    let client = super::target::connect(&args.target, pool as usize).await?;
    super::target::require_bucket(&client, &args.target, &args.bucket).await?;

    let keys_out = key_lines(out, resume.as_ref())?;
    // Created before the listing starts, so that an unwritable path fails first.
    let inventory = match out {
        KeysOut::Inventory(path, format) => Some(
            InventoryWriter::create(path, format, args.head)
                .map_err(|e| CliError::bad_input(e.to_string()))?,
        ),
        _ => None,
    };
    let keys_before = resume.as_ref().map_or(0, |r| r.keys);
    if let Some(r) = &resume {
        stderrln!(
            "resuming: {} keys were listed in {:.1} s before; {} ranges left",
            r.keys,
            r.seconds,
            r.todo.len()
        );
    }
    let checkpoint = args.checkpoint.as_ref().map(|path| listing::Checkpointing {
        path: path.clone(),
        every: Duration::from_secs(args.checkpoint_every),
        resume,
        on_save: None,
        keep_complete: false,
        consumer: None,
    });
    let progress = Arc::new(Progress {
        keys: AtomicU64::new(0),
        heads: AtomicU64::new(0),
        latency: Mutex::new(new_histogram()),
        head_latency: Mutex::new(new_histogram()),
    });
    let stop = CancellationToken::new();
    let ticker =
        keystorm_console::output::spawn(show_progress(progress.clone(), keys_before, stop.clone()));
    let on_ctrl_c = super::target::stop_on_ctrl_c(&stop);
    let cpu_before = process_cpu_time();
    let listing = Listing {
        args,
        client: &client,
        job,
        progress: progress.clone(),
        stop: stop.clone(),
    };
    let result = listing.run(out, keys_out, inventory, checkpoint).await;
    let cpu = process_cpu_time().saturating_sub(cpu_before).as_secs_f64();
    on_ctrl_c.abort();
    let interrupted = stop.is_cancelled();
    stop.cancel();
    let _ = ticker.await;
    let report = report(args, result?, &progress, cpu, keys_before);
    let head_errors = report.head.as_ref().map_or(0, |h| h.errors);
    print_report(args, &report, out)?;
    if interrupted {
        if let Some(path) = &args.checkpoint {
            stderrln!("{}", saved_to(path));
        }
        return Ok(exit::INTERRUPTED);
    }
    if head_errors > 0 {
        return Err(CliError::failed(format!(
            "{head_errors} HEAD requests failed: their objects' metadata is missing from the output"
        )));
    }
    Ok(exit::OK)
}

/// Where JSON lines of every key go: standard output, or a file made (or, resuming,
/// cut back to the checkpoint) for them; none for other outputs.
fn key_lines(
    out: KeysOut<'_>,
    resume: Option<&ListCheckpoint>,
) -> Result<Option<listing::KeySink>, CliError> {
    Ok(match out {
        KeysOut::Stdout => {
            let sink: listing::KeySink = Arc::new(Mutex::new(std::io::BufWriter::with_capacity(
                1 << 16,
                keystorm_console::output::Stdout,
            )));
            Some(sink)
        }
        KeysOut::Lines(path) => {
            let file = match resume {
                Some(r) => r
                    .reopen_key_file(path)
                    .map_err(|e| CliError::bad_input(e.to_string()))?,
                None => std::fs::File::create(path).map_err(|e| {
                    CliError::bad_input(format!("cannot create {}: {e}", path.display()))
                })?,
            };
            let sink: listing::KeySink =
                Arc::new(Mutex::new(std::io::BufWriter::with_capacity(1 << 20, file)));
            Some(sink)
        }
        KeysOut::None | KeysOut::KeyFile(_) | KeysOut::Inventory(..) => None,
    })
}

/// What a listing gave: its outcome, the HEAD scan's (with `--head`), and the key
/// file or inventory it wrote.
struct Listed {
    outcome: ListOutcome,
    scanned: Option<ScanOutcome>,
    key_file: Option<keyfile::Written>,
    inventory: Option<inventory::Written>,
}

impl Listed {
    fn of(outcome: ListOutcome, scanned: Option<ScanOutcome>) -> Listed {
        Listed {
            outcome,
            scanned,
            key_file: None,
            inventory: None,
        }
    }
}

/// A listing about to run: of what, through which client, counted by `progress`.
struct Listing<'a> {
    args: &'a ListArgs,
    client: &'a S3Client,
    job: ListJob,
    progress: Arc<Progress>,
    stop: CancellationToken,
}

impl Listing<'_> {
    /// Runs the kind of listing the output asks for: into an inventory, into a key
    /// file, with a HEAD scan, or a listing alone.
    async fn run(
        self,
        out: KeysOut<'_>,
        keys_out: Option<listing::KeySink>,
        inventory: Option<InventoryWriter>,
        checkpoint: Option<listing::Checkpointing>,
    ) -> Result<Listed, CliError> {
        if let Some(inventory) = inventory {
            self.into_inventory(inventory).await
        } else if let KeysOut::KeyFile(path) = out {
            self.into_key_file(path, checkpoint).await
        } else if self.args.head {
            self.scan(keys_out).await
        } else {
            self.alone(keys_out, checkpoint).await
        }
    }

    /// Writes every key (and with `--head` its metadata) into `inventory`.
    async fn into_inventory(self, inventory: InventoryWriter) -> Result<Listed, CliError> {
        let Listing {
            args,
            client,
            job,
            progress,
            stop,
        } = self;
        if args.head {
            let scan_job = ScanJob {
                list: job,
                head_workers: args.head_workers,
            };
            scan::scan_into(
                client,
                &scan_job,
                progress.clone(),
                progress,
                inventory,
                stop,
            )
            .await
            .map(|(s, written)| Listed {
                inventory: written,
                ..Listed::of(s.listing.clone(), Some(s))
            })
            .map_err(|e| CliError::failed(e.to_string()))
        } else {
            inventory::list_into(client, &job, progress, inventory, stop)
                .await
                .map(|(l, written)| Listed {
                    inventory: written,
                    ..Listed::of(l, None)
                })
                .map_err(|e| CliError::failed(e.to_string()))
        }
    }

    /// Writes every key into the key file at `path` (resumable with a checkpoint).
    async fn into_key_file(
        self,
        path: &Path,
        checkpoint: Option<listing::Checkpointing>,
    ) -> Result<Listed, CliError> {
        let Listing {
            client,
            job,
            progress,
            stop,
            ..
        } = self;
        let spill = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let listed = match checkpoint {
            // Its runs beside the file are cut with each checkpoint.
            Some(c) => keyfile::list_into_resumable(client, &job, progress, path, c, stop).await,
            None => keyfile::list_into(client, &job, progress, path, spill, stop).await,
        };
        listed
            .map(|(l, written)| Listed {
                key_file: written,
                ..Listed::of(l, None)
            })
            .map_err(|e| CliError::failed(e.to_string()))
    }

    /// Lists with a HEAD of every object, the keys (if asked) to `keys_out`.
    async fn scan(self, keys_out: Option<listing::KeySink>) -> Result<Listed, CliError> {
        let scan_job = ScanJob {
            list: self.job,
            head_workers: self.args.head_workers,
        };
        let progress = self.progress;
        scan::scan(
            self.client,
            &scan_job,
            progress.clone(),
            progress,
            keys_out,
            None,
            self.stop,
        )
        .await
        .map(|s| Listed::of(s.listing.clone(), Some(s)))
        .map_err(|e| CliError::failed(e.to_string()))
    }

    /// Lists alone, the keys (if asked) to `keys_out`, saving progress to `checkpoint`.
    async fn alone(
        self,
        keys_out: Option<listing::KeySink>,
        checkpoint: Option<listing::Checkpointing>,
    ) -> Result<Listed, CliError> {
        let outputs = listing::ListOutputs {
            keys_file: keys_out,
            entries: None,
            checkpoint,
        };
        listing::list(self.client, &self.job, self.progress, outputs, self.stop)
            .await
            .map(|l| Listed::of(l, None))
            .map_err(|e| match &self.args.checkpoint {
                // A failed checkpoint saved nothing to point to.
                Some(path) if !matches!(e, listing::ListError::Checkpoint(_)) => {
                    CliError::failed(format!("{e}\n{}", saved_to(path)))
                }
                _ => CliError::failed(e.to_string()),
            })
    }
}

/// The report of what was listed: rates, latency and client CPU (`cpu` seconds, over
/// the keys listed after the `keys_before` a resume started from), what was written.
fn report(
    args: &ListArgs,
    listed: Listed,
    progress: &Progress,
    cpu: f64,
    keys_before: u64,
) -> ListReport {
    let Listed {
        outcome,
        scanned,
        key_file,
        inventory,
    } = listed;
    let latency = progress.latency.lock().unwrap_or_else(|p| p.into_inner());
    let head = scanned.map(|s| HeadReport {
        heads: s.heads,
        errors: s.head_errors,
        missing: s.missing,
        head_workers: s.head_workers,
        concurrency: old_names::LIST_JSON_HEAD_CONCURRENCY
            .old_if_taken()
            .map(|_| s.head_workers),
        heads_per_sec: s.heads_per_sec(),
        latency_us: Percentiles::of(
            &progress
                .head_latency
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        ),
        metadata: s.metadata,
    });
    let written_to = || {
        args.keys
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    };
    ListReport {
        inventory: inventory.map(|w| InventoryReport {
            path: written_to(),
            format: w.format.name(),
            rows: w.rows,
            bytes: w.bytes,
        }),
        key_file: key_file.map(|w| KeyFileReport {
            path: written_to(),
            keys: w.keys,
            bytes: w.bytes,
            bytes_per_key: w.bytes as f64 / w.keys.max(1) as f64,
            repeated: w.repeated,
        }),
        keys_per_sec: outcome.keys_per_sec(),
        client_cpu_s: cpu,
        client_cpu_us_per_1000_keys: if outcome.keys > keys_before {
            cpu * 1e6 / (outcome.keys - keys_before) as f64 * 1000.0
        } else {
            0.0
        },
        page_latency_us: Percentiles::of(&latency),
        outcome,
        head,
    }
}

/// Prints the report, as JSON with `--json`; on standard error when the keys go to
/// standard output, so the two do not mix.
fn print_report(args: &ListArgs, report: &ListReport, out: KeysOut<'_>) -> Result<(), CliError> {
    let text = if args.json {
        serde_json::to_string_pretty(report).map_err(|e| CliError::failed(e.to_string()))? + "\n"
    } else {
        human(report)
    };
    // With the keys on standard output, the report must not mix with them.
    if matches!(out, KeysOut::Stdout) {
        stderr!("{text}");
    } else {
        stdout!("{text}");
    }
    Ok(())
}

/// Where a stopped listing's progress went, and how to go on.
fn saved_to(path: &Path) -> String {
    format!(
        "progress saved to {}: run the same command again to resume",
        path.display()
    )
}

/// The checkpoint at `path` if there is one, checked to be of this listing.
fn resume_from(
    path: &Path,
    job: &ListJob,
    keys_file: bool,
) -> Result<Option<ListCheckpoint>, CliError> {
    let checkpoint = ListCheckpoint::read(path).map_err(|e| CliError::bad_input(e.to_string()))?;
    if let Some(c) = &checkpoint {
        c.check_matches(job, keys_file, path)
            .map_err(|e| CliError::bad_input(e.to_string()))?;
    }
    Ok(checkpoint)
}

/// Where `--keys` writes every key.
#[derive(Clone, Copy)]
enum KeysOut<'a> {
    None,
    /// `--keys -`: JSON lines on standard output, the report on standard error.
    Stdout,
    /// JSON lines (`.jsonl`, any other extension, or `--format jsonl`).
    Lines(&'a Path),
    /// A key file (sorted, compressed, for reads): `.keys` or `--format keys`.
    KeyFile(&'a Path),
    /// A Parquet or CSV inventory.
    Inventory(&'a Path, Format),
}

fn keys_out(args: &ListArgs) -> Result<KeysOut<'_>, CliError> {
    let Some(path) = args.keys.as_deref() else {
        return Ok(KeysOut::None);
    };
    let named = key_output(path, args.format);
    if path == Path::new("-") {
        return match named {
            None | Some(KeyOutput::Table(Format::Jsonl)) => Ok(KeysOut::Stdout),
            Some(_) => Err(CliError::bad_input(
                "--keys - writes JSON lines to standard output: name a file for another --format",
            )),
        };
    }
    Ok(match named {
        Some(KeyOutput::KeyFile) => KeysOut::KeyFile(path),
        Some(KeyOutput::Table(Format::Jsonl)) | None => KeysOut::Lines(path),
        Some(KeyOutput::Table(format)) => KeysOut::Inventory(path, format),
    })
}

fn job(args: &ListArgs, out: &KeysOut<'_>) -> Result<ListJob, CliError> {
    if args.bucket.trim().is_empty() {
        return Err(CliError::bad_input("the bucket name is empty"));
    }
    if matches!(out, KeysOut::KeyFile(_)) && args.head {
        return Err(CliError::bad_input(
            "a .keys file holds what a listing returns (keys, sizes, ETags, times), not \
             metadata: leave out --head, or write an inventory (--keys FILE.parquet) or JSON \
             lines (--keys FILE.jsonl)",
        ));
    }
    if let KeysOut::Inventory(_, format) = out
        && args.checkpoint.is_some()
    {
        return Err(CliError::bad_input(format!(
            "a {} inventory is put in place once the listing is complete and cannot be \
             resumed: leave out --checkpoint, or write JSON lines (--keys FILE.jsonl)",
            format.name()
        )));
    }
    if matches!(out, KeysOut::Stdout) && args.checkpoint.is_some() {
        return Err(CliError::bad_input(
            "--checkpoint needs --keys FILE, not -: a resumed listing cuts its key file back \
             to the checkpoint, which standard output cannot be",
        ));
    }
    let mode = match args.mode {
        ListModeArg::Serial => ListMode::Serial,
        ListModeArg::Prefix => {
            if args.alphabet.is_empty() {
                return Err(CliError::bad_input("--alphabet is empty"));
            }
            ListMode::Prefix {
                depth: args.depth,
                alphabet: args.alphabet.clone(),
            }
        }
        ListModeArg::Adaptive => ListMode::Adaptive {
            delimiter: (!args.delimiter.is_empty()).then(|| args.delimiter.clone()),
        },
    };
    Ok(ListJob {
        bucket: args.bucket.clone(),
        prefix: args.prefix.clone(),
        mode,
        listers: args.listers,
        page_size: args.page_size,
        retries: args.retries,
        report_depth: args.report.then_some(args.report_depth),
        shard: Default::default(),
    })
}

/// One line a second on stderr while listing (only on a terminal); a
/// resumed listing counts the `keys_before` it had listed, its rate is this run's.
async fn show_progress(progress: Arc<Progress>, keys_before: u64, stop: CancellationToken) {
    if !keystorm_console::output::stderr_is_terminal() {
        return;
    }
    let start = std::time::Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.tick().await;
    loop {
        tokio::select! {
            _ = tick.tick() => {
                let keys = progress.keys.load(Ordering::Relaxed);
                let heads = progress.heads.load(Ordering::Relaxed);
                let s = start.elapsed().as_secs_f64();
                if heads > 0 {
                    stderr!("\r{keys} keys listed, {heads} HEADs in {s:.0} s ({:.0} HEAD/s)   ", heads as f64 / s);
                } else {
                    stderr!(
                        "\r{} keys listed in {s:.0} s ({:.0} keys/s)   ",
                        keys_before + keys,
                        keys as f64 / s
                    );
                }
            }
            _ = stop.cancelled() => {
                stderrln!();
                return;
            }
        }
    }
}
