//! Opt-in cleanup after a completed run: objects of the live window (keys keystorm
//! wrote) and buckets this run created — never anything else.
//!
//! Objects go in DeleteObjects batches of up to 1000 keys (a billion-object fill would
//! take a billion single DELETEs), with progress reported every second; keys a
//! DeleteObjects answer reports as failed for a passing reason (InternalError,
//! SlowDown) are sent again; a target without multi-object delete (501/405) gets single
//! DELETEs instead. Stopping the run (Ctrl-C) ends cleanup after the requests in
//! flight and keeps the buckets.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::context::RunContext;
use crate::keyspace::{Keyspace, Window};
use keystorm_results::RunEvent;
use keystorm_results::{CleanupEvent, Manifest};
use keystorm_s3::S3Client;
use keystorm_types::{ErrorClass, OpError};
use tokio_util::sync::CancellationToken;

/// Keys per DeleteObjects request: S3's limit.
const BATCH: usize = 1000;
/// Keys a worker gathers at most (over all buckets) before it sends some.
const HELD_PER_WORKER: usize = 4 * BATCH;
/// Delete requests in flight.
const WORKERS: usize = 16;
/// Attempts per request on errors that may pass (503, 5xx, timeouts, resets), and per
/// key that a DeleteObjects answer reports as failed for such a reason.
const ATTEMPTS: u32 = 3;

/// Per-key error codes of a DeleteObjects answer worth sending the key again for.
fn passing(code: &str) -> bool {
    matches!(
        code,
        "InternalError" | "SlowDown" | "ServiceUnavailable" | "RequestTimeout" | "OperationAborted"
    )
}

#[derive(Default)]
struct Counters {
    deleted: AtomicU64,
    failed: AtomicU64,
    requests: AtomicU64,
    single: AtomicBool,
    /// Why the first object that could not be deleted was not.
    first_error: std::sync::Mutex<Option<String>>,
}

impl Counters {
    fn fail(&self, objects: u64, why: impl FnOnce() -> String) {
        self.failed.fetch_add(objects, Ordering::Relaxed);
        let mut first = self.first_error.lock().unwrap_or_else(|p| p.into_inner());
        if first.is_none() {
            *first = Some(why());
        }
    }

    fn event(&self, objects: u64, started: Instant) -> CleanupEvent {
        CleanupEvent {
            objects,
            deleted: self.deleted.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            requests: self.requests.load(Ordering::Relaxed),
            single_deletes: self.single.load(Ordering::Relaxed),
            buckets_deleted: 0,
            seconds: started.elapsed().as_secs_f64(),
            done: false,
        }
    }
}

/// What went wrong in a cleanup that ran (objects not deleted, a stop before its end,
/// buckets not deleted), said one after the other.
#[derive(Debug, thiserror::Error)]
#[error("{}", .problems.join("; "))]
pub(crate) struct CleanupError {
    problems: Vec<String>,
}

/// Deletes what the workload's `cleanup` section asks for: the final record (none
/// without a `cleanup` section), and what went wrong, if anything.
pub(crate) async fn run(
    ctx: &RunContext,
    manifest: &Manifest,
) -> (Option<CleanupEvent>, Result<(), CleanupError>) {
    let cleanup = ctx.plan.cleanup;
    if !cleanup.objects && !cleanup.buckets {
        return (None, Ok(()));
    }
    let started = Instant::now();
    let mut problems = Vec::new();
    let counters = Arc::new(Counters::default());
    let objects = if cleanup.objects {
        ctx.window.state().len()
    } else {
        0
    };
    if cleanup.objects && objects > 0 {
        ctx.emit(RunEvent::Cleanup(counters.event(objects, started)));
        let workers = WORKERS.min(objects.div_ceil(BATCH as u64) as usize);
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..workers {
            let deleter = Deleter {
                window: ctx.window.clone(),
                // `retried` below retries and counts every request itself.
                client: ctx.client.without_retries(),
                keyspace: ctx.keyspace.clone(),
                buckets: ctx.plan.buckets.names.clone(),
                counters: counters.clone(),
                stop: ctx.cancel.clone(),
            };
            set.spawn(deleter.run());
        }
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.tick().await;
        loop {
            tokio::select! {
                joined = set.join_next() => match joined {
                    Some(Ok(())) => {}
                    Some(Err(e)) => problems.push(format!("a delete worker stopped: {e}")),
                    None => break,
                },
                _ = tick.tick() => {
                    ctx.emit(RunEvent::Cleanup(counters.event(objects, started)));
                }
            }
        }
    }
    let mut buckets_deleted = 0;
    if ctx.cancel.is_cancelled() {
        problems.push(format!(
            "stopped before cleanup ended: {} of {objects} objects deleted; the buckets are kept",
            counters.deleted.load(Ordering::Relaxed)
        ));
    } else if cleanup.buckets {
        for name in &manifest.created_buckets {
            match ctx.client.delete_bucket(name).await {
                Ok(()) => buckets_deleted += 1,
                Err(e) => problems.push(format!("bucket {name}: {e}")),
            }
        }
    }
    let mut last = counters.event(objects, started);
    last.buckets_deleted = buckets_deleted;
    last.done = true;
    if last.failed > 0 {
        let first = counters
            .first_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .unwrap_or_default();
        problems.insert(
            0,
            format!(
                "{} objects could not be deleted (the first: {first})",
                last.failed
            ),
        );
    }
    ctx.emit(RunEvent::Cleanup(last.clone()));
    let outcome = if problems.is_empty() {
        Ok(())
    } else {
        Err(CleanupError { problems })
    };
    (Some(last), outcome)
}

/// One delete worker: takes live indices and gathers their keys per bucket, deleting
/// a bucket's keys whenever [`BATCH`] are gathered, and the rest at the end.
struct Deleter {
    window: Arc<Window>,
    client: S3Client,
    keyspace: Keyspace,
    buckets: Vec<String>,
    counters: Arc<Counters>,
    /// Stopping the run (Ctrl-C) stops cleanup after the batches in flight.
    stop: CancellationToken,
}

impl Deleter {
    async fn run(self) {
        let mut by_bucket: Vec<Vec<String>> = vec![Vec::new(); self.buckets.len()];
        let mut held = 0;
        while !self.stop.is_cancelled() {
            let Some(i) = self.window.begin_delete(None).await else {
                break;
            };
            let b = self.keyspace.bucket_index(i);
            by_bucket[b].push(self.keyspace.key(i));
            held += 1;
            // A full batch goes; with many buckets, the fullest goes before a worker
            // holds more than a few batches' worth.
            let full = if by_bucket[b].len() == BATCH {
                Some(b)
            } else if held == HELD_PER_WORKER {
                (0..by_bucket.len()).max_by_key(|&b| by_bucket[b].len())
            } else {
                None
            };
            if let Some(f) = full {
                self.delete(&self.buckets[f], &by_bucket[f]).await;
                held -= by_bucket[f].len();
                by_bucket[f].clear();
            }
        }
        for (bucket, keys) in self.buckets.iter().zip(&by_bucket) {
            if !keys.is_empty() {
                self.delete(bucket, keys).await;
            }
        }
    }

    /// Deletes `keys` of `bucket`: DeleteObjects (keys it reports as failed for a
    /// passing reason go again), or one DELETE each once the target turned out not to
    /// have it.
    async fn delete(&self, bucket: &str, keys: &[String]) {
        let c = &self.counters;
        if !c.single.load(Ordering::Relaxed) {
            match self.delete_many(bucket, keys).await {
                Err(e) if unsupported(&e) => c.single.store(true, Ordering::Relaxed),
                Err(e) => return c.fail(keys.len() as u64, || e.to_string()),
                Ok(()) => return,
            }
        }
        for key in keys {
            match retried(c, &self.stop, || self.client.delete_object(bucket, key)).await {
                Ok(()) => {
                    c.deleted.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => c.fail(1, || format!("{key:?}: {e}")),
            }
        }
    }

    /// DeleteObjects of `keys`, then of the keys that failed for a passing reason, up to
    /// [`ATTEMPTS`] rounds; what still failed is counted. An error of a whole request is
    /// returned as it is (nothing of it was counted).
    async fn delete_many(&self, bucket: &str, keys: &[String]) -> Result<(), OpError> {
        let c = &self.counters;
        let mut again: Vec<String> = Vec::new();
        for round in 1..=ATTEMPTS {
            let batch = if round == 1 { keys } else { again.as_slice() };
            let out =
                match retried(c, &self.stop, || self.client.delete_objects(bucket, batch)).await {
                    Ok(out) => out,
                    // Keys already deleted in earlier rounds are counted; these are not.
                    Err(e) if round > 1 => {
                        c.fail(batch.len() as u64, || e.to_string());
                        return Ok(());
                    }
                    Err(e) => return Err(e),
                };
            c.deleted.fetch_add(out.deleted, Ordering::Relaxed);
            let last = round == ATTEMPTS || self.stop.is_cancelled();
            let mut retry = Vec::new();
            for (key, code) in out.errors {
                if passing(&code) && !last {
                    retry.push(key);
                } else {
                    c.fail(1, || format!("{key:?}: {code}"));
                }
            }
            if retry.is_empty() {
                return Ok(());
            }
            again = retry;
            if !pause(&self.stop, round).await {
                c.fail(again.len() as u64, || {
                    format!("{:?}: stopped before it could be sent again", again[0])
                });
                return Ok(());
            }
        }
        Ok(())
    }
}

/// A target without multi-object delete answers it like this.
fn unsupported(e: &OpError) -> bool {
    matches!(e.class, ErrorClass::Http(501 | 405))
}

/// `send` until it succeeds, fails for good (a 4xx or 501), ran out of attempts, or
/// the run was stopped during a back-off.
async fn retried<T, F, Fut>(
    counters: &Counters,
    stop: &CancellationToken,
    mut send: F,
) -> Result<T, OpError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, OpError>>,
{
    let mut attempt = 0;
    loop {
        counters.requests.fetch_add(1, Ordering::Relaxed);
        attempt += 1;
        match send().await {
            Ok(v) => return Ok(v),
            Err(e) => {
                let lasting = matches!(e.class, ErrorClass::Http(s) if s < 500 || s == 501);
                if lasting || attempt >= ATTEMPTS || !pause(stop, attempt).await {
                    return Err(e);
                }
            }
        }
    }
}

/// The back-off after attempt `n` (0.4 s, 0.8 s, …); false when the run was stopped
/// meanwhile.
async fn pause(stop: &CancellationToken, n: u32) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_millis(200 << n)) => true,
        _ = stop.cancelled() => false,
    }
}
