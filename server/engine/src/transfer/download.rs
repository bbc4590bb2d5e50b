//! Download: a listing feeds the keys under a prefix, through a bounded queue, to
//! workers that GET each object into `DIR/<key relative to the prefix>` — large ones as
//! parallel ranged GETs written at their offsets — into a `.keystorm-partial` file that
//! is renamed once every byte is there, so an interrupted download never leaves a file
//! that looks complete.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::object_error::ObjectError;
use super::settings::{PARTIAL_SUFFIX, QUEUE_PER_WORKER, ranges};
use super::tally::{RequestEvent, Tally, TransferError, TransferObserver, TransferOutcome};
use super::{etag, paths};
use crate::listing::{self, ListJob, ListOutputs, PageObserver};
use crate::plan::TransferSettings;
use crate::pool::{QueueWorker, spawn_pool};
use keystorm_s3::S3Client;
use keystorm_types::ListEntry;
use keystorm_types::OpKind;

#[derive(Debug, Clone)]
pub struct DownloadJob {
    /// What to list: bucket, prefix (stripped from the paths), listing mode.
    pub list: ListJob,
    pub dir: PathBuf,
    pub settings: TransferSettings,
}

/// Downloads every object the job's listing finds.
pub async fn download(
    client: &S3Client,
    job: &DownloadJob,
    pages: Arc<dyn PageObserver>,
    observer: Arc<dyn TransferObserver>,
    stop: CancellationToken,
) -> Result<TransferOutcome, TransferError> {
    let created = create_dir(&job.dir).map_err(|e| {
        TransferError::Folder(std::io::Error::new(
            e.kind(),
            format!("cannot create {}: {e}", job.dir.display()),
        ))
    })?;
    let tally = Arc::new(Tally::new());
    let workers = (0..job.settings.in_flight.max(1) as usize)
        .map(|worker| Worker {
            worker,
            client: client.clone(),
            bucket: job.list.bucket.clone(),
            prefix: job.list.prefix.clone(),
            dir: job.dir.clone(),
            settings: job.settings,
            observer: observer.clone(),
            tally: tally.clone(),
        })
        .collect();
    let (tx, mut set) = spawn_pool(workers, QUEUE_PER_WORKER, &stop);
    let outputs = ListOutputs {
        keys_file: None,
        entries: Some(tx),
        checkpoint: None,
    };
    let listed = listing::list(client, &job.list, pages, outputs, stop.clone()).await;
    while set.join_next().await.is_some() {}
    if listed.is_err() {
        remove_if_empty(&created);
    }
    listed?;
    Ok(tally.outcome("download", !stop.is_cancelled()))
}

/// Creates `dir` and its missing parents up front (so a folder that cannot be made is
/// one error, not one per object); returns the folders it created, innermost first.
fn create_dir(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let created: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && std::fs::symlink_metadata(d).is_err())
        .map(Path::to_path_buf)
        .collect();
    std::fs::create_dir_all(dir)?;
    Ok(created)
}

/// Removes the folders a failed download created, as long as they are empty: a
/// download that never got going leaves nothing behind, and nothing else is touched.
fn remove_if_empty(created: &[PathBuf]) {
    for d in created {
        if std::fs::remove_dir(d).is_err() {
            return;
        }
    }
}

struct Worker {
    worker: usize,
    client: S3Client,
    bucket: String,
    prefix: String,
    dir: PathBuf,
    settings: TransferSettings,
    observer: Arc<dyn TransferObserver>,
    tally: Arc<Tally>,
}

impl QueueWorker<ListEntry> for Worker {
    type Done = ();

    async fn one(&mut self, entry: ListEntry) -> bool {
        self.handle(&entry).await;
        true
    }

    fn done(self) {}
}

impl Worker {
    async fn handle(&self, entry: &ListEntry) {
        let rel = entry.key.strip_prefix(&self.prefix).unwrap_or(&entry.key);
        let path = match paths::key_to_path(&self.dir, rel)
            .and_then(|p| paths::check_no_symlinks(&self.dir, &p).map(|()| p))
        {
            Ok(p) => p,
            Err(e) => return self.tally.failed(e.to_string()),
        };
        if self.settings.resume
            && let Some(etag) = entry.etag.clone()
        {
            let (p, size, part) = (path.clone(), entry.size, self.settings.part_size);
            let same = tokio::task::spawn_blocking(move || etag::matches(&p, size, &etag, part))
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or(false);
            if same {
                return self.tally.skipped(entry.size);
            }
        }
        let started = Instant::now();
        match self.fetch(entry, &path).await {
            Ok(()) => self.tally.moved(entry.size, started),
            Err(e) => self.tally.failed(format!("{}: {e}", entry.key)),
        }
    }

    /// GETs the object into its partial file, then renames it into place.
    async fn fetch(&self, entry: &ListEntry, path: &Path) -> Result<(), ObjectError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| ObjectError::Create {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let mut partial = path.as_os_str().to_owned();
        partial.push(PARTIAL_SUFFIX);
        let partial = PathBuf::from(partial);
        let file = std::fs::File::create(&partial).map_err(|source| ObjectError::Create {
            path: partial.clone(),
            source,
        })?;
        let result = if entry.size > self.settings.parts_above {
            self.ranged(entry, file).await
        } else {
            self.whole(entry, file).await
        };
        match result {
            Ok(()) => std::fs::rename(&partial, path).map_err(|source| ObjectError::Rename {
                path: path.to_path_buf(),
                source,
            }),
            Err(e) => {
                let _ = std::fs::remove_file(&partial);
                Err(e)
            }
        }
    }

    async fn whole(&self, entry: &ListEntry, mut file: std::fs::File) -> Result<(), ObjectError> {
        use std::io::Write;
        let start = Instant::now();
        let r = self
            .client
            .get_object_to(&self.bucket, &entry.key, None, &mut |chunk| {
                file.write_all(chunk)
            })
            .await;
        self.record(start, r.as_ref().map(|g| g.bytes).map_err(|e| e.class));
        let got = r?.bytes;
        if got != entry.size {
            return Err(ObjectError::Short {
                got,
                size: entry.size,
            });
        }
        file.sync_data().map_err(ObjectError::Local)
    }

    /// Ranged GETs, `parts_in_flight` at a time, each written at its offset.
    async fn ranged(&self, entry: &ListEntry, file: std::fs::File) -> Result<(), ObjectError> {
        file.set_len(entry.size).map_err(ObjectError::Local)?;
        let file = Arc::new(file);
        let mut pending = ranges(entry.size, self.settings.part_size);
        let mut running = JoinSet::new();
        let mut failure = None;
        loop {
            while failure.is_none() && running.len() < self.settings.parts_in_flight.max(1) as usize
            {
                let Some((a, b)) = pending.next() else { break };
                let (client, bucket, key) =
                    (self.client.clone(), self.bucket.clone(), entry.key.clone());
                let (file, observer, worker) = (file.clone(), self.observer.clone(), self.worker);
                running.spawn(async move {
                    let start = Instant::now();
                    let mut at = a;
                    let r = client
                        .get_object_to(&bucket, &key, Some((a, b)), &mut |chunk| {
                            file.write_all_at(chunk, at)?;
                            at += chunk.len() as u64;
                            Ok(())
                        })
                        .await;
                    observer.request(RequestEvent {
                        worker,
                        op: OpKind::Get,
                        start,
                        end: Instant::now(),
                        outcome: r.as_ref().map(|g| g.bytes).map_err(|e| e.class),
                    });
                    match r {
                        Ok(g) if g.bytes == b - a + 1 => Ok(()),
                        Ok(g) => Err(ObjectError::ShortRange {
                            first: a,
                            last: b,
                            got: g.bytes,
                        }),
                        Err(source) => Err(ObjectError::Range {
                            first: a,
                            last: b,
                            source,
                        }),
                    }
                });
            }
            match running.join_next().await {
                None => break,
                Some(Ok(Ok(()))) => {}
                Some(Ok(Err(e))) => {
                    failure.get_or_insert(e);
                }
                Some(Err(e)) => {
                    failure.get_or_insert(ObjectError::Task {
                        what: "a ranged GET",
                        source: e,
                    });
                }
            }
        }
        match failure {
            Some(e) => Err(e),
            None => file.sync_data().map_err(ObjectError::Local),
        }
    }

    fn record(&self, start: Instant, outcome: Result<u64, keystorm_types::ErrorClass>) {
        self.observer.request(RequestEvent {
            worker: self.worker,
            op: OpKind::Get,
            start,
            end: Instant::now(),
            outcome,
        });
    }
}
