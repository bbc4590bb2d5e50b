//! The listers: each takes a range from the queue, pages through it (continuation
//! tokens, as any S3 client does), keeps the keys the range owns, and — in adaptive
//! mode — hands the rest of its range to waiting listers after every page.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::checkpoint::{CheckpointError, Checkpointing, ListCheckpoint};
use super::density::keys_left;
use super::error::ListError;
use super::job::{ListJob, ListMode, ListOutcome};
use super::outputs::{KeySink, ListOutputs, PageEvent, PageObserver};
use super::queue::Queue;
use super::queue_start::FirstQueue;
use super::range::{KeyRange, Verdict};
use super::split::CharSet;
use super::totals::Totals;
use keystorm_results::space_report::ReportBuilder;
use keystorm_s3::{ListPage, ListRequest, S3Client};
use keystorm_types::ErrorClass;
use keystorm_types::ListEntry;

/// Pause before retry `n` (1-based) of a failed page.
fn backoff(n: u32) -> std::time::Duration {
    std::time::Duration::from_millis(100u64 << n.min(6))
}

/// Every how many keys of a page one is sampled for the cut characters.
const SAMPLE_EVERY: usize = 16;
/// Pages a range must still look to hold before a lister shares it.
const MIN_PAGES_TO_CUT: f64 = 3.0;
/// A range's last page asks for this many times the keys it looks to have left...
const LAST_PAGE_MARGIN: f64 = 1.25;
/// ... plus this many.
const LAST_PAGE_EXTRA: u32 = 16;

/// Lists `job.bucket` under `job.prefix` completely (or until `stop`), from the
/// checkpoint `outputs.checkpoint` resumes if it has one, saving progress to it as it
/// goes if asked.
pub async fn list(
    client: &S3Client,
    job: &ListJob,
    observer: Arc<dyn PageObserver>,
    outputs: ListOutputs,
    stop: CancellationToken,
) -> Result<ListOutcome, ListError> {
    // Every page request is one page event: the listers retry a failed page themselves
    // (`job.retries` times, after a back-off), so the client makes one attempt per call.
    let client = &client.without_retries();
    let started = Instant::now();
    let now_s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let resume = outputs.checkpoint.as_ref().and_then(|c| c.resume.clone());
    let started_unix_s = resume.as_ref().map_or(now_s, |r| r.started_unix_s);
    let seconds_before = resume.as_ref().map_or(0.0, |r| r.seconds);
    let listers = match job.mode {
        ListMode::Serial => 1,
        _ => job.listers.max(1),
    };
    let first = FirstQueue {
        job,
        listers: listers as usize,
        started_unix_s,
    };
    let queue = Arc::new(match resume {
        Some(r) => first.resumed(r),
        None => first.fresh(client, observer.as_ref()).await,
    });
    let checkpoint = ListCheckpoint::of(job, outputs.keys_file.is_some(), started_unix_s);
    let saving = CancellationToken::new();
    let saver = outputs.checkpoint.as_ref().map(|c| {
        tokio::spawn(save_every(
            queue.clone(),
            c.clone(),
            checkpoint.clone(),
            outputs.keys_file.clone(),
            (started, seconds_before),
            saving.clone(),
            stop.clone(),
        ))
    });
    let tasks = spawn_listers(&first, client, &queue, &observer, &outputs, &stop);
    let (totals, failure) = join_listers(tasks, &queue).await;
    saving.cancel();
    if let Some(saver) = saver {
        let _ = saver.await;
    }
    drop(outputs.entries);
    if let Some(out) = &outputs.keys_file {
        out.lock()
            .unwrap_or_else(|e| e.into_inner())
            .flush()
            .map_err(ListError::KeyFile)?;
    }
    let seconds = seconds_before + started.elapsed().as_secs_f64();
    let complete = failure.is_none() && !stop.is_cancelled();
    if let Some(c) = &outputs.checkpoint {
        let keys_file = outputs.keys_file.as_ref();
        save_last_checkpoint(c, &queue, checkpoint, seconds, keys_file, complete)?;
    }
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(outcome(job, &queue, totals, listers, seconds, complete))
}

/// Starts the listing's listers on `queue`, each adding up its own counts.
fn spawn_listers(
    first: &FirstQueue<'_>,
    client: &S3Client,
    queue: &Arc<Queue>,
    observer: &Arc<dyn PageObserver>,
    outputs: &ListOutputs,
    stop: &CancellationToken,
) -> JoinSet<Result<Totals, (Totals, ListError)>> {
    let mut tasks = JoinSet::new();
    for id in 0..first.listers {
        let lister = Lister {
            id,
            client: client.clone(),
            job: first.job.clone(),
            queue: queue.clone(),
            observer: observer.clone(),
            outputs: outputs.clone(),
            stop: stop.clone(),
            totals: Totals {
                report: first.report(None),
                ..Totals::default()
            },
            chars: CharSet::default(),
            line: String::new(),
        };
        tasks.spawn(lister.run());
    }
    tasks
}

/// Waits for every lister; what they counted, and the first failure, if any.
async fn join_listers(
    mut tasks: JoinSet<Result<Totals, (Totals, ListError)>>,
    queue: &Queue,
) -> (Totals, Option<ListError>) {
    let mut totals = Totals::default();
    let mut failure = None;
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(Ok(t)) => totals.merge(t),
            Ok(Err((t, e))) => {
                totals.merge(t);
                failure.get_or_insert(e);
            }
            Err(e) => {
                queue.close();
                failure.get_or_insert(ListError::Page {
                    range: "?".into(),
                    attempts: 0,
                    message: format!("a lister stopped unexpectedly: {e}"),
                });
            }
        }
    }
    (totals, failure)
}

/// At the end: the checkpoint goes once the listing is complete (unless kept), else it
/// is saved where the listing stopped; a consumer's is left to the consumer.
fn save_last_checkpoint(
    c: &Checkpointing,
    queue: &Queue,
    mut checkpoint: ListCheckpoint,
    seconds: f64,
    keys_file: Option<&KeySink>,
    complete: bool,
) -> Result<(), ListError> {
    if c.consumer.is_some() {
        // Its consumer saves the last cut once it has finished every key.
    } else if complete && !c.keep_complete {
        remove_checkpoint(&c.path)?;
    } else {
        checkpoint.seconds = seconds;
        queue
            .checkpoint(&mut checkpoint, keys_file)
            .map_err(ListError::KeyFile)?;
        checkpoint.write(&c.path)?;
    }
    Ok(())
}

/// The listing's outcome: what the queue counted (ranges listed and cut, and what
/// the listers added up) over `seconds`.
fn outcome(
    job: &ListJob,
    queue: &Queue,
    totals: Totals,
    listers: u32,
    seconds: f64,
    complete: bool,
) -> ListOutcome {
    let mut counted = queue.take_counted();
    counted.merge(totals);
    let (ranges, cuts) = queue.counts();
    ListOutcome {
        bucket: job.bucket.clone(),
        prefix: job.prefix.clone(),
        mode: job.mode.clone(),
        listers,
        keys: counted.keys,
        bytes: counted.bytes,
        requests: counted.requests,
        errors: counted.errors,
        ranges,
        cuts,
        seconds,
        complete,
        report: counted.report.map(ReportBuilder::finish),
    }
}

/// Saves the listing's progress every `c.every` until `done`; a save that fails is
/// logged and tried again at the next tick (the final save, at the end, reports it).
async fn save_every(
    queue: Arc<Queue>,
    c: Checkpointing,
    mut checkpoint: ListCheckpoint,
    keys_file: Option<KeySink>,
    (started, seconds_before): (Instant, f64),
    done: CancellationToken,
    stop: CancellationToken,
) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(c.every) => {}
            _ = done.cancelled() => return,
        }
        // With a consumer, the cut waits until it has finished every key queued, and
        // no page is handed in meanwhile; a stop ends the wait (the consumer stops too).
        let pause = match &c.consumer {
            Some(consumer) => tokio::select! {
                p = consumer.quiesce.pause() => Some(p),
                _ = done.cancelled() => return,
                _ = stop.cancelled() => return,
            },
            None => None,
        };
        checkpoint.seconds = seconds_before + started.elapsed().as_secs_f64();
        let taken = queue.checkpoint(&mut checkpoint, keys_file.as_ref());
        checkpoint.consumer = c.consumer.as_ref().map(|consumer| (consumer.state)());
        drop(pause);
        let saved = match taken {
            Ok(()) => {
                let (snapshot, path) = (checkpoint.clone(), c.path.clone());
                match tokio::task::spawn_blocking(move || snapshot.write(&path)).await {
                    Ok(written) => written.map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                }
            }
            Err(e) => Err(format!("cannot flush the key file: {e}")),
        };
        match saved {
            Ok(()) => {
                if let Some(hook) = &c.on_save {
                    hook();
                }
            }
            Err(e) => tracing::warn!("listing checkpoint not saved: {e}"),
        }
    }
}

/// A finished listing has nothing to resume: its checkpoint goes.
fn remove_checkpoint(path: &std::path::Path) -> Result<(), ListError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(ListError::Checkpoint(CheckpointError::Write {
                path: path.display().to_string(),
                source: e,
            }))
        }
        _ => Ok(()),
    }
}

struct Lister {
    id: usize,
    client: S3Client,
    job: ListJob,
    queue: Arc<Queue>,
    observer: Arc<dyn PageObserver>,
    outputs: ListOutputs,
    stop: CancellationToken,
    totals: Totals,
    chars: CharSet,
    /// Key-file lines of the current page.
    line: String,
}

impl Lister {
    async fn run(mut self) -> Result<Totals, (Totals, ListError)> {
        while let Some(range) = self.queue.take(self.id).await {
            let r = self.list_range(range).await;
            self.queue.finish(self.id, matches!(r, Ok(true)));
            if let Err(e) = r {
                self.queue.close();
                return Err((self.totals, e));
            }
        }
        Ok(self.totals)
    }

    /// Lists `range`; `Ok(true)` once it is all listed, `Ok(false)` if stopped first.
    async fn list_range(&mut self, mut range: KeyRange) -> Result<bool, ListError> {
        let adaptive = matches!(self.job.mode, ListMode::Adaptive { .. });
        let mut token: Option<String> = None;
        let mut probe = range.probe_first;
        let mut page_size = self.job.page_size;
        loop {
            if self.stop.is_cancelled() {
                self.queue.close();
                return Ok(false);
            }
            let request = ListRequest {
                prefix: (!range.prefix.is_empty()).then(|| range.prefix.clone()),
                max_keys: Some(if probe { 1 } else { page_size }),
                start_after: if token.is_none() {
                    range.after.clone()
                } else {
                    None
                },
                continuation_token: token.take(),
                delimiter: None,
                keys_and_sizes_only: !self.needs_details(),
            };
            let (page, start, end) = self.fetch(&range, &request).await?;
            let ListPage {
                mut entries,
                is_truncated,
                next_continuation_token,
                ..
            } = page;
            // Only adaptive listers judge what is left of a range.
            let first = adaptive
                .then(|| entries.first().map(|e| e.key.clone()))
                .flatten();
            let last = entries.last().map(|e| e.key.clone());
            let received = entries.len();
            let (taken, stopped) = self.keep(&range, &mut entries);
            // A checkpoint that cuts the consumer too waits while a page is handed in
            // and its keys queued.
            let quiesce = self
                .outputs
                .checkpoint
                .as_ref()
                .and_then(|c| c.consumer.as_ref())
                .map(|c| c.quiesce.clone());
            let page = match &quiesce {
                Some(q) => Some(q.page().await),
                None => None,
            };
            self.queue
                .page_done(
                    self.id,
                    last.as_deref(),
                    &mut self.totals,
                    &self.line,
                    self.outputs.keys_file.as_ref(),
                )
                .map_err(ListError::KeyFile)?;
            if let Some(tx) = &self.outputs.entries {
                for e in entries {
                    if tx.send(e).await.is_err() {
                        // The consumer is gone (it stopped): so is the point of listing.
                        self.queue.close();
                        return Ok(false);
                    }
                    if let Some(q) = &quiesce {
                        q.queued();
                    }
                }
            }
            drop(page);
            self.observer.page(PageEvent {
                lister: self.id,
                start,
                end,
                outcome: Ok(taken),
            });
            if stopped || !is_truncated {
                return Ok(true);
            }
            token = next_continuation_token;
            match (&token, &last) {
                // Truncated, yet nothing to go on from: a broken server; stop here.
                (None, None) => {
                    return Err(ListError::Page {
                        range: describe(&range),
                        attempts: 1,
                        message: "a truncated page with no keys and no continuation token".into(),
                    });
                }
                // A server without tokens: go on after the last key.
                (None, Some(l)) => range.after = Some(l.clone()),
                _ => {}
            }
            probe = false;
            if adaptive && let (Some(first), Some(last)) = (&first, &last) {
                self.queue.learn(&self.chars);
                if self.worth_cutting(&range, first, last, received) {
                    self.queue.offer_cut(self.id, &mut range, last);
                }
                page_size = self.next_page_size(&range, first, last, received);
            }
        }
    }

    /// The page to ask for next: a full one, or — when the range's end looks less than
    /// a page away — about what is left (with a margin), so that the page crossing
    /// into the next range does not carry a full page of its keys, which both ends
    /// would pay for and this lister drop. Too small an estimate costs a page more.
    fn next_page_size(&self, range: &KeyRange, first: &str, last: &str, received: usize) -> u32 {
        let full = self.job.page_size;
        match range
            .end_key()
            .and_then(|end| keys_left(first, last, received, end))
        {
            Some(left) if left < f64::from(full) => {
                ((left * LAST_PAGE_MARGIN) as u32 + LAST_PAGE_EXTRA).min(full)
            }
            _ => full,
        }
    }

    /// Whether entries need ETags and dates: for the key file, the space report's age
    /// buckets, and whoever takes the entries (downloads compare ETags).
    fn needs_details(&self) -> bool {
        self.outputs.keys_file.is_some()
            || self.outputs.entries.is_some()
            || self.totals.report.is_some()
    }

    /// Whether what is left of `range` after a page of `received` keys from `first` to
    /// `last` looks long enough to share: open-ended ranges always are.
    fn worth_cutting(&self, range: &KeyRange, first: &str, last: &str, received: usize) -> bool {
        let Some(end) = range.end_key() else {
            return true;
        };
        keys_left(first, last, received, end)
            .is_none_or(|left| left >= MIN_PAGES_TO_CUT * f64::from(self.job.page_size))
    }

    /// One page, retried as the job allows; every attempt is reported.
    async fn fetch(
        &mut self,
        range: &KeyRange,
        request: &ListRequest,
    ) -> Result<(ListPage, Instant, Instant), ListError> {
        let mut attempt = 0;
        loop {
            let start = Instant::now();
            let r = self.client.list_objects_v2(&self.job.bucket, request).await;
            let end = Instant::now();
            self.totals.requests += 1;
            match r {
                Ok(page) => return Ok((page, start, end)),
                Err(e) => {
                    self.totals.errors += 1;
                    self.observer.page(PageEvent {
                        lister: self.id,
                        start,
                        end,
                        outcome: Err(e.class),
                    });
                    attempt += 1;
                    // A 4xx (no such bucket, access denied) will not change on retry.
                    let lasting = matches!(e.class, ErrorClass::Http(s) if s < 500);
                    if lasting || attempt > self.job.retries || self.stop.is_cancelled() {
                        return Err(ListError::Page {
                            range: describe(range),
                            attempts: attempt,
                            message: e.to_string(),
                        });
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(backoff(attempt)) => {}
                        _ = self.stop.cancelled() => {}
                    }
                }
            }
        }
    }

    /// Keeps in `entries` only the keys `range` owns, counting them (and making their
    /// key-file lines); returns how many and whether the page went past the range's end.
    fn keep(&mut self, range: &KeyRange, entries: &mut Vec<ListEntry>) -> (u64, bool) {
        let mut taken = 0;
        let mut stopped = false;
        self.line.clear();
        let skip = range.prefix.len();
        let keys_file = self.outputs.keys_file.is_some();
        let mut n = 0;
        entries.retain(|e| {
            n += 1;
            if stopped {
                return false;
            }
            match range.verdict(&e.key) {
                Verdict::Take => {
                    taken += 1;
                    self.totals.take(e);
                    if keys_file {
                        key_line(&mut self.line, e);
                    }
                    if (n - 1) % SAMPLE_EVERY == 0 {
                        self.chars.add_key(e.key.get(skip..).unwrap_or(""));
                    }
                    true
                }
                Verdict::Skip => false,
                Verdict::Stop => {
                    stopped = true;
                    false
                }
            }
        });
        (taken, stopped)
    }
}

/// One JSON line: key, size, ETag, last-modified.
fn key_line(out: &mut String, e: &ListEntry) {
    let json = serde_json::json!({
        "key": e.key,
        "size": e.size,
        "etag": e.etag,
        "last_modified": e.last_modified,
    });
    let _ = writeln!(out, "{json}");
}

fn describe(range: &KeyRange) -> String {
    let mut s = format!("prefix {:?}", range.prefix);
    if let Some(a) = &range.after {
        let _ = write!(s, " after {a:?}");
    }
    if let Some(e) = range.end_key() {
        let _ = write!(s, " up to {e:?}");
    }
    s
}
