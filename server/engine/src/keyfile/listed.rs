//! A listing written into a key file: the listers (any mode) hand their entries to one
//! consumer that feeds the writer, and the file is put in place once the listing is
//! complete (a listing that failed or was stopped leaves no key file).

use std::path::Path;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::entry::KeyEntry;
use super::error::KeyFileError;
use super::writer::{KeyFileWriter, Written};
use crate::listing::{self, ListError, ListJob, ListOutcome, ListOutputs, PageObserver};
use crate::s3::{ListEntry, S3Client};

/// Listed entries waiting for the writer.
const QUEUE: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum ListedError {
    #[error(transparent)]
    List(#[from] ListError),
    #[error(transparent)]
    KeyFile(#[from] KeyFileError),
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
    let writer = consumer.await.map_err(|e| {
        KeyFileError::io(
            path,
            std::io::Error::other(format!("the writer stopped: {e}")),
        )
    })??;
    let outcome = listed?;
    if !outcome.complete {
        return Ok((outcome, None));
    }
    let path = path.to_path_buf();
    let written = tokio::task::spawn_blocking(move || writer.finish())
        .await
        .map_err(|e| {
            KeyFileError::io(
                &path,
                std::io::Error::other(format!("the writer stopped: {e}")),
            )
        })??;
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
