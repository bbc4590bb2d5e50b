//! The audit of one bucket: its listing (any mode, with its checkpoint) streamed into a
//! [`Comparer`] by one consumer, then the keys that must be there generated into it,
//! then the comparison. Memory is the comparer's buffers and one partition's map, at
//! any key count.
//!
//! The listed side is on disk, so an audit killed mid-listing resumes: each checkpoint
//! of the listing is cut together with the comparer's listed side (flushed, with each
//! partition's length), and a resume cuts the files back to those lengths and lists
//! what the checkpoint had not. The expected side is computed again, which costs no
//! listing.

use keystorm_results::StepKind;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use tokio_util::sync::CancellationToken;

use super::{AuditCounts, AuditExample, Comparer, ListedCut};
use crate::listing::{
    self, CheckpointError, Checkpointing, ConsumerCut, ListCheckpoint, ListError, ListJob,
    ListOutcome, ListOutputs, PageObserver, Quiesce,
};
use keystorm_s3::S3Client;
use keystorm_types::ListEntry;

/// Listed entries waiting for the consumer.
const QUEUE: usize = 4096;
/// Expected keys one partition may hold to be compared in memory (about 2 MB): the
/// audit's memory does not depend on the bucket's size.
pub const BUDGET: u64 = 16_384;

/// One bucket to audit.
#[derive(Debug, Clone)]
pub struct AuditJob {
    pub list: ListJob,
    /// The comparer's folder (kept between a stop and a resume, removed once compared).
    pub dir: PathBuf,
    pub budget: u64,
    /// Told how far the comparison has got (the keys written, then compared).
    pub meter: Arc<crate::step_meter::StepMeter>,
}

/// Feeds the keys that must be in the bucket, with their sizes, to the comparer.
pub type Expected = Box<dyn FnOnce(&mut Comparer) -> std::io::Result<()> + Send>;

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    List(#[from] ListError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error("cannot spill the audit to {dir}: {source}")]
    Spill { dir: String, source: std::io::Error },
}

/// What the audit of a bucket found.
#[derive(Debug, Clone)]
pub struct AuditOutcome {
    pub listing: ListOutcome,
    /// The comparison ran: the listing completed and the audit was not stopped.
    pub compared: bool,
    pub counts: AuditCounts,
    pub examples: Vec<AuditExample>,
    pub compare_seconds: f64,
}

/// Lists the job's bucket into a comparer and compares it with `expected`. A stopped
/// audit returns its listing (incomplete) and empty counts.
pub async fn audit(
    client: &S3Client,
    job: &AuditJob,
    expected: Expected,
    observer: Arc<dyn PageObserver>,
    progress: Option<Checkpointing>,
    stop: CancellationToken,
) -> Result<AuditOutcome, AuditError> {
    let spill = |source| AuditError::Spill {
        dir: job.dir.display().to_string(),
        source,
    };
    let (comparer, progress) = open(job, progress).map_err(spill)?;
    let started_unix_s = progress
        .as_ref()
        .and_then(|c| c.resume.as_ref())
        .map_or_else(now_unix_s, |r| r.started_unix_s);
    let comparer = Arc::new(Mutex::new(comparer));
    let quiesce = Arc::new(Quiesce::default());
    let cut_of = {
        let comparer = comparer.clone();
        move || lock(&comparer).listed_cut()
    };
    let checkpoint = progress.map(|c| Checkpointing {
        consumer: Some(ConsumerCut::saving(quiesce.clone(), cut_of.clone())),
        ..c
    });
    let (tx, rx) = tokio::sync::mpsc::channel::<ListEntry>(QUEUE);
    let consumer = {
        let (comparer, quiesce) = (comparer.clone(), quiesce.clone());
        tokio::task::spawn_blocking(move || consume(rx, &comparer, &quiesce))
    };
    let outputs = ListOutputs {
        keys_file: None,
        entries: Some(tx),
        checkpoint: checkpoint.clone(),
    };
    let listing = listing::list(client, &job.list, observer, outputs, stop.clone()).await;
    let consumed = consumer
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(format!("the consumer stopped: {e}"))));
    let listing = listing?;
    consumed.map_err(spill)?;
    if !listing.complete || stop.is_cancelled() {
        // The last periodic cut stays: a resume lists from there.
        return Ok(AuditOutcome {
            listing,
            compared: false,
            counts: AuditCounts::default(),
            examples: Vec::new(),
            compare_seconds: 0.0,
        });
    }
    if let Some(c) = &checkpoint {
        // Every page listed is in the comparer: the last cut is the whole listing.
        let cut = cut_of().map_err(spill)?;
        let value = serde_json::to_value(&cut).unwrap_or_default();
        ListCheckpoint::completed(&job.list, &listing, started_unix_s, Some(value))
            .write(&c.path)?;
    }
    drop((checkpoint, cut_of));
    let comparer = Arc::try_unwrap(comparer)
        .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .map_err(|_| {
            spill(std::io::Error::other(
                "the listing still holds the comparer",
            ))
        })?;
    let started = Instant::now();
    let (meter, bucket) = (job.meter.clone(), job.list.bucket.clone());
    let (counts, examples) = tokio::task::spawn_blocking(move || {
        meter.begin(StepKind::AuditExpected, &bucket, None);
        let mut comparer = comparer.metered(meter.clone());
        expected(&mut comparer)?;
        // The comparison goes partition by partition over the expected keys.
        let expected_keys = meter.done();
        meter.begin(StepKind::AuditCompare, &bucket, Some(expected_keys));
        let done = comparer.finish();
        meter.end();
        done
    })
    .await
    .unwrap_or_else(|e| {
        Err(std::io::Error::other(format!(
            "the comparison stopped: {e}"
        )))
    })
    .map_err(spill)?;
    Ok(AuditOutcome {
        listing,
        compared: true,
        counts,
        examples,
        compare_seconds: started.elapsed().as_secs_f64(),
    })
}

/// The comparer to list into: the one a resumed checkpoint's cut describes, or a new
/// one (and then the listing starts over too, its checkpoint not resumed).
fn open(
    job: &AuditJob,
    progress: Option<Checkpointing>,
) -> std::io::Result<(Comparer, Option<Checkpointing>)> {
    let Some(mut c) = progress else {
        return Ok((Comparer::create(&job.dir, job.budget)?, None));
    };
    let cut: Option<ListedCut> = c
        .resume
        .as_ref()
        .and_then(|r| r.consumer.clone())
        .and_then(|v| serde_json::from_value(v).ok());
    if let Some(cut) = cut
        && let Some(comparer) = Comparer::resume(&job.dir, job.budget, &cut)?
    {
        return Ok((comparer, Some(c)));
    }
    c.resume = None;
    Ok((Comparer::create(&job.dir, job.budget)?, Some(c)))
}

/// Spills every listed entry until the listing ends.
fn consume(
    mut rx: tokio::sync::mpsc::Receiver<ListEntry>,
    comparer: &Mutex<Comparer>,
    quiesce: &Quiesce,
) -> std::io::Result<()> {
    while let Some(entry) = rx.blocking_recv() {
        let mut c = lock(comparer);
        c.listed(&entry.key, entry.size)?;
        quiesce.consumed();
        // Whatever else is queued, under the same lock.
        while let Ok(entry) = rx.try_recv() {
            c.listed(&entry.key, entry.size)?;
            quiesce.consumed();
        }
    }
    Ok(())
}

fn lock(c: &Mutex<Comparer>) -> std::sync::MutexGuard<'_, Comparer> {
    c.lock().unwrap_or_else(|p| p.into_inner())
}

fn now_unix_s() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
