//! A listing written into a key file: the listers (any mode) hand their entries to one
//! consumer that feeds the writer, and the file is put in place once the listing is
//! complete (a listing that failed or was stopped leaves no key file).
//!
//! With a checkpoint the listing and the writer are cut together: each save pauses the
//! listers, lets the writer take every key handed in so far and save its buffer as a
//! run, and records the runs with the listing's progress; a resume after a crash takes
//! the writer's runs of that cut and lists only what is left, so every key is written
//! once.

use std::path::Path;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use std::sync::Mutex;

use super::entry::KeyEntry;
use super::error::KeyFileError;
use super::writer::{KeyFileWriter, KeysCut, Written};
use crate::listing::{
    self, CheckpointError, Checkpointing, ConsumerCut, ListCheckpoint, ListError, ListJob,
    ListOutcome, ListOutputs, PageObserver, Quiesce,
};
use keystorm_s3::S3Client;
use keystorm_types::ListEntry;

/// Listed entries waiting for the writer.
const QUEUE: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum ListedError {
    #[error(transparent)]
    List(#[from] ListError),
    #[error(transparent)]
    KeyFile(#[from] KeyFileError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
}

/// Lists `job` into a key file at `path` (sorting through `spill_in`); the listing's
/// outcome, and what was written when it completed.
pub async fn list_into(
    client: &S3Client,
    job: &ListJob,
    observer: Arc<dyn PageObserver>,
    path: &Path,
    spill_in: &Path,
    stop: CancellationToken,
) -> Result<(ListOutcome, Option<Written>), ListedError> {
    let writer = KeyFileWriter::create(path, spill_in)?;
    let (tx, rx) = tokio::sync::mpsc::channel::<ListEntry>(QUEUE);
    let consumer = tokio::task::spawn_blocking(move || consume(rx, writer));
    let outputs = ListOutputs {
        entries: Some(tx),
        ..ListOutputs::default()
    };
    let listed = listing::list(client, job, observer, outputs, stop).await;
    let writer = consumer.await.map_err(|e| stopped(path, e))??;
    let outcome = listed?;
    if !outcome.complete {
        return Ok((outcome, None));
    }
    let written = finish(writer, path).await?;
    Ok((outcome, Some(written)))
}

fn consume(
    mut rx: tokio::sync::mpsc::Receiver<ListEntry>,
    mut writer: KeyFileWriter,
) -> Result<KeyFileWriter, KeyFileError> {
    while let Some(e) = rx.blocking_recv() {
        writer.push(entry_of(e))?;
    }
    Ok(writer)
}

/// Lists `job` into a key file at `path` that survives a crash: the writer's runs are
/// kept beside the file and cut with the listing's checkpoint (`progress`, whose
/// `resume` is the checkpoint to go on from). Once the file is complete the checkpoint
/// and the runs are gone.
pub async fn list_into_resumable(
    client: &S3Client,
    job: &ListJob,
    observer: Arc<dyn PageObserver>,
    path: &Path,
    mut progress: Checkpointing,
    stop: CancellationToken,
) -> Result<(ListOutcome, Option<Written>), ListedError> {
    let cut: Option<KeysCut> = progress
        .resume
        .as_ref()
        .and_then(|r| r.consumer.clone())
        .and_then(|v| serde_json::from_value(v).ok());
    let writer = match cut
        .as_ref()
        .map(|c| KeyFileWriter::resumable(path, Some(c)))
        .transpose()?
        .flatten()
    {
        Some(w) => w,
        None => {
            // Nothing to go on from: the listing starts over too.
            progress.resume = None;
            KeyFileWriter::resumable(path, None)?.ok_or_else(|| {
                KeyFileError::io(path, std::io::Error::other("cannot start the key file"))
            })?
        }
    };
    let started_unix_s = progress
        .resume
        .as_ref()
        .map_or_else(now_unix_s, |r| r.started_unix_s);
    let writer = Arc::new(Mutex::new(writer));
    let quiesce = Arc::new(Quiesce::default());
    let cut_of = {
        let writer = writer.clone();
        move || lock(&writer).cut()
    };
    let checkpoint = Checkpointing {
        consumer: Some(ConsumerCut::saving(quiesce.clone(), cut_of.clone())),
        ..progress
    };
    let checkpoint_path = checkpoint.path.clone();
    let (tx, mut rx) = tokio::sync::mpsc::channel::<ListEntry>(QUEUE);
    let consumer = {
        let (writer, quiesce) = (writer.clone(), quiesce.clone());
        tokio::task::spawn_blocking(move || -> Result<(), KeyFileError> {
            while let Some(e) = rx.blocking_recv() {
                let mut w = lock(&writer);
                w.push(entry_of(e))?;
                quiesce.consumed();
                while let Ok(e) = rx.try_recv() {
                    w.push(entry_of(e))?;
                    quiesce.consumed();
                }
            }
            Ok(())
        })
    };
    let outputs = ListOutputs {
        entries: Some(tx),
        checkpoint: Some(checkpoint),
        ..ListOutputs::default()
    };
    let listed = listing::list(client, job, observer, outputs, stop).await;
    consumer.await.map_err(|e| stopped(path, e))??;
    let outcome = listed?;
    if !outcome.complete {
        // The last periodic cut stays: a resume lists from there.
        return Ok((outcome, None));
    }
    // Every page listed is in the writer: the last cut is the whole listing, saved
    // before the merge so a crash while merging does not list again.
    let cut = cut_of()?;
    ListCheckpoint::completed(
        job,
        &outcome,
        started_unix_s,
        serde_json::to_value(cut).ok(),
    )
    .write(&checkpoint_path)?;
    drop(cut_of);
    let writer = Arc::try_unwrap(writer)
        .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .map_err(|_| {
            KeyFileError::io(
                path,
                std::io::Error::other("the listing still holds the writer"),
            )
        })?;
    let written = finish(writer, path).await?;
    if let Err(e) = std::fs::remove_file(&checkpoint_path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        return Err(KeyFileError::io(&checkpoint_path, e).into());
    }
    Ok((outcome, Some(written)))
}

/// A writer task that ended without returning (it panicked or was cancelled).
fn stopped(path: &Path, e: tokio::task::JoinError) -> KeyFileError {
    KeyFileError::io(
        path,
        std::io::Error::other(format!("the writer stopped: {e}")),
    )
}

/// Merges the writer's runs into the file off the async threads.
async fn finish(writer: KeyFileWriter, path: &Path) -> Result<Written, KeyFileError> {
    tokio::task::spawn_blocking(move || writer.finish())
        .await
        .map_err(|e| stopped(path, e))?
}

fn lock(w: &Mutex<KeyFileWriter>) -> std::sync::MutexGuard<'_, KeyFileWriter> {
    w.lock().unwrap_or_else(|p| p.into_inner())
}

fn now_unix_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A listed entry as a key file keeps it.
pub fn entry_of(e: ListEntry) -> KeyEntry {
    KeyEntry {
        last_modified_ms: e.last_modified.as_deref().and_then(millis_of),
        etag: e.etag.map(|t| t.trim().trim_matches('"').to_string()),
        size: e.size,
        key: e.key,
    }
}

/// Milliseconds since the epoch of an RFC 3339 time (`2026-11-27T02:49:53.560Z`).
fn millis_of(text: &str) -> Option<u64> {
    let t = humantime::parse_rfc3339_weak(text.trim()).ok()?;
    let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
    u64::try_from(d.as_millis()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_entry_keeps_its_etag_bare_and_its_time_in_milliseconds() {
        let e = entry_of(ListEntry {
            key: "a b".into(),
            size: 3,
            etag: Some("\"abc-2\"".into()),
            last_modified: Some("2026-11-27T02:49:53.560Z".into()),
            storage_class: None,
        });
        assert_eq!(e.etag.as_deref(), Some("abc-2"));
        assert_eq!(e.last_modified_ms, Some(1_795_747_793_560));
        assert_eq!(millis_of("yesterday"), None);
    }
}
