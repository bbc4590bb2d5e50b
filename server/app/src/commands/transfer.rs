//! `keystorm download BUCKET DIR` and `keystorm upload DIR BUCKET`: many objects at
//! once, large ones in parallel parts, resuming where an earlier pass stopped; a
//! progress line on a terminal, and the aggregate and per-stream MiB/s at the end.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use keystorm_engine::listing::ListJob;
use keystorm_engine::transfer::{
    self, DownloadJob, RequestEvent, TransferError, TransferObserver, UploadJob,
};
use keystorm_results::ListMode;
use keystorm_results::TransferOutcome;
use keystorm_workload::plan::TransferSettings;
use tokio_util::sync::CancellationToken;

use crate::CliError;
use crate::cli::{DownloadArgs, TransferArgs, UploadArgs};
use keystorm_console::exit;

/// Bytes moved so far, for the progress line.
#[derive(Default)]
struct Moved(AtomicU64);

impl TransferObserver for Moved {
    fn request(&self, e: RequestEvent) {
        if let Ok(bytes) = e.outcome {
            self.0.fetch_add(bytes, Ordering::Relaxed);
        }
    }
}

fn settings(t: &TransferArgs) -> TransferSettings {
    TransferSettings {
        in_flight: t.in_flight,
        part_size: t.part_size,
        parts_above: t.parts_above,
        parts_in_flight: t.parts_in_flight,
        resume: !t.overwrite,
    }
}

fn pool(t: &TransferArgs) -> usize {
    (t.in_flight * t.parts_in_flight) as usize
}

pub async fn download(args: &DownloadArgs) -> Result<u8, CliError> {
    if args.dir.exists() && !args.dir.is_dir() {
        return Err(CliError::bad_input(format!(
            "{} is there and is not a folder",
            args.dir.display()
        )));
    }
    let client = super::target::connect(&args.target, pool(&args.transfer)).await?;
    super::target::require_bucket(&client, &args.target, &args.bucket).await?;
    let job = DownloadJob {
        list: ListJob {
            bucket: args.bucket.clone(),
            prefix: args.prefix.clone(),
            mode: ListMode::Adaptive { delimiter: None },
            listers: args.listers,
            page_size: 1000,
            retries: 3,
            report_depth: None,
            shard: Default::default(),
        },
        dir: args.dir.clone(),
        settings: settings(&args.transfer),
    };
    let moved = Arc::new(Moved::default());
    let (stop, ticker, ctrl_c) = start(&moved);
    let r = transfer::download(&client, &job, Arc::new(()), moved.clone(), stop.clone()).await;
    finish(r, &args.transfer, false, (stop, ticker, ctrl_c)).await
}

pub async fn upload(args: &UploadArgs) -> Result<u8, CliError> {
    if !args.dir.is_dir() {
        return Err(CliError::bad_input(format!(
            "{} is not a folder",
            args.dir.display()
        )));
    }
    let client = super::target::connect(&args.target, pool(&args.transfer)).await?;
    super::target::require_bucket(&client, &args.target, &args.bucket).await?;
    let job = UploadJob {
        dir: args.dir.clone(),
        bucket: args.bucket.clone(),
        prefix: args.prefix.clone(),
        settings: settings(&args.transfer),
        follow_symlinks: args.follow_symlinks,
    };
    let moved = Arc::new(Moved::default());
    let (stop, ticker, ctrl_c) = start(&moved);
    let r = transfer::upload(&client, &job, moved.clone(), stop.clone()).await;
    finish(
        r,
        &args.transfer,
        args.follow_symlinks,
        (stop, ticker, ctrl_c),
    )
    .await
}

type Tasks = (
    CancellationToken,
    tokio::task::JoinHandle<()>,
    tokio::task::JoinHandle<()>,
);

fn start(moved: &Arc<Moved>) -> Tasks {
    let stop = CancellationToken::new();
    let ticker = keystorm_console::output::spawn(show_progress(moved.clone(), stop.child_token()));
    let ctrl_c = super::target::stop_on_ctrl_c(&stop);
    (stop, ticker, ctrl_c)
}

async fn finish(
    result: Result<TransferOutcome, TransferError>,
    args: &TransferArgs,
    follow_symlinks: bool,
    (stop, ticker, ctrl_c): Tasks,
) -> Result<u8, CliError> {
    ctrl_c.abort();
    let interrupted = stop.is_cancelled();
    stop.cancel();
    let _ = ticker.await;
    let o = result.map_err(|e| CliError::failed(e.to_string()))?;
    if args.json {
        let text = serde_json::to_string_pretty(&o).map_err(|e| CliError::failed(e.to_string()))?;
        stdoutln!("{text}");
    } else {
        print_human(&o, follow_symlinks);
    }
    if interrupted {
        return Ok(exit::INTERRUPTED);
    }
    if o.failed > 0 {
        return Err(CliError::failed(format!(
            "{} objects failed (the first: {})",
            o.failed,
            o.failures.first().map_or("", String::as_str)
        )));
    }
    Ok(exit::OK)
}

/// A line a second on stderr (only on a terminal).
async fn show_progress(moved: Arc<Moved>, stop: CancellationToken) {
    if !keystorm_console::output::stderr_is_terminal() {
        return;
    }
    let start = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.tick().await;
    loop {
        tokio::select! {
            _ = tick.tick() => {
                let mib = moved.0.load(Ordering::Relaxed) as f64 / 1048576.0;
                let s = start.elapsed().as_secs_f64();
                stderr!("\r{mib:.1} MiB moved in {s:.0} s ({:.1} MiB/s)   ", mib / s);
            }
            _ = stop.cancelled() => {
                stderrln!();
                return;
            }
        }
    }
}

fn print_human(o: &TransferOutcome, follow_symlinks: bool) {
    stdoutln!(
        "{}: {} objects, {:.2} MiB in {:.2} s — {:.1} MiB/s; {} already complete ({:.2} MiB) skipped; {} failed",
        o.direction,
        o.objects,
        o.bytes as f64 / 1048576.0,
        o.seconds,
        o.mib_per_sec,
        o.skipped,
        o.skipped_bytes as f64 / 1048576.0,
        o.failed
    );
    let s = &o.per_stream;
    if s.streams > 0 {
        stdoutln!(
            "per stream (objects of 1 MiB or more, {}): min {:.1}, p50 {:.1}, p90 {:.1}, max {:.1} MiB/s",
            s.streams,
            s.min,
            s.p50,
            s.p90,
            s.max
        );
    }
    if o.symlinks_skipped > 0 {
        stdoutln!(
            "skipped {} symbolic link{}{}",
            o.symlinks_skipped,
            if o.symlinks_skipped == 1 { "" } else { "s" },
            if follow_symlinks {
                " leading back to a folder above them (a loop)"
            } else {
                ": --follow-symlinks uploads what they point to"
            }
        );
    }
    for f in &o.failures {
        stdoutln!("  failed: {f}");
    }
}
