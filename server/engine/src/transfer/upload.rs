//! Upload: a walk of the folder feeds its files, through a bounded queue, to workers
//! that PUT each one under `prefix + <path relative to the folder>` — files above the
//! multipart threshold as parallel parts, aborted if any part fails. With `resume`, a
//! HEAD first: an object of the same size and locally computed ETag is left alone.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::object_error::ObjectError;
use super::settings::{QUEUE_PER_WORKER, ranges};
use super::tally::{RequestEvent, Tally, TransferError, TransferObserver, TransferOutcome};
use super::{etag, paths, walk};
use crate::plan::TransferSettings;
use crate::pool::{QueueWorker, spawn_pool};
use keystorm_s3::S3Client;
use keystorm_types::{ErrorClass, OpKind};

#[derive(Debug, Clone)]
pub struct UploadJob {
    pub dir: PathBuf,
    pub bucket: String,
    /// Put in front of every key.
    pub prefix: String,
    pub settings: TransferSettings,
    /// Upload what symbolic links point to (under the link's path) instead of skipping
    /// them; a link back to a folder above it is still skipped.
    pub follow_symlinks: bool,
}

/// Uploads every regular file under the job's folder (symbolic links are counted and
/// skipped unless the job follows them).
pub async fn upload(
    client: &S3Client,
    job: &UploadJob,
    observer: Arc<dyn TransferObserver>,
    stop: CancellationToken,
) -> Result<TransferOutcome, TransferError> {
    if !job.dir.is_dir() {
        return Err(TransferError::Folder(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{} is not a folder", job.dir.display()),
        )));
    }
    match client.bucket_exists(&job.bucket).await {
        Ok(true) => {}
        Ok(false) => {
            return Err(TransferError::Bucket(format!(
                "{:?} does not exist (create it first)",
                job.bucket
            )));
        }
        Err(e) => return Err(TransferError::Bucket(format!("{}: {e}", job.bucket))),
    }
    let tally = Arc::new(Tally::new());
    let workers = (0..job.settings.in_flight.max(1) as usize)
        .map(|worker| Worker {
            worker,
            client: client.clone(),
            job: job.clone(),
            observer: observer.clone(),
            tally: tally.clone(),
        })
        .collect();
    let (tx, mut set) = spawn_pool(workers, QUEUE_PER_WORKER, &stop);
    let walked = walk::walk(&job.dir, job.follow_symlinks, &tx, &stop, &tally).await;
    drop(tx);
    while set.join_next().await.is_some() {}
    walked.map_err(TransferError::Folder)?;
    Ok(tally.outcome("upload", !stop.is_cancelled()))
}

struct Worker {
    worker: usize,
    client: S3Client,
    job: UploadJob,
    observer: Arc<dyn TransferObserver>,
    tally: Arc<Tally>,
}

impl QueueWorker<(PathBuf, u64)> for Worker {
    type Done = ();

    async fn one(&mut self, (path, size): (PathBuf, u64)) -> bool {
        self.handle(&path, size).await;
        true
    }

    fn done(self) {}
}

impl Worker {
    async fn handle(&self, path: &Path, size: u64) {
        let key = match paths::path_to_key(&self.job.dir, path) {
            Ok(rel) => format!("{}{rel}", self.job.prefix),
            Err(e) => return self.tally.failed(e.to_string()),
        };
        if self.job.settings.resume && self.already_there(&key, path, size).await {
            return self.tally.skipped(size);
        }
        let started = Instant::now();
        let r = if size > self.job.settings.parts_above {
            self.multipart(&key, path, size).await
        } else {
            self.single(&key, path).await
        };
        match r {
            Ok(()) => self.tally.moved(size, started),
            Err(e) => self.tally.failed(format!("{}: {e}", path.display())),
        }
    }

    /// Whether the object exists with this file's size and ETag.
    async fn already_there(&self, key: &str, path: &Path, size: u64) -> bool {
        let start = Instant::now();
        let head = self.client.head_object(&self.job.bucket, key).await;
        // Not found is an answer, not a failure: the file is new.
        self.record(
            OpKind::Head,
            start,
            match &head {
                Err(e) if e.class != ErrorClass::Http(404) => Err(e.class),
                _ => Ok(0),
            },
        );
        let Ok(head) = head else { return false };
        let Some(remote) = head.etag.filter(|_| head.size == size) else {
            return false;
        };
        let (p, part) = (path.to_path_buf(), self.job.settings.part_size);
        tokio::task::spawn_blocking(move || etag::matches(&p, size, &remote, part))
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or(false)
    }

    async fn single(&self, key: &str, path: &Path) -> Result<(), ObjectError> {
        let p = path.to_path_buf();
        let data = tokio::task::spawn_blocking(move || std::fs::read(p))
            .await
            .map_err(|source| ObjectError::Task {
                what: "a file read",
                source,
            })?
            .map_err(ObjectError::Read)?;
        let bytes = data.len() as u64;
        let start = Instant::now();
        let r = self
            .client
            .put_object(&self.job.bucket, key, Bytes::from(data), &[])
            .await;
        self.record(
            OpKind::Put,
            start,
            r.as_ref().map(|_| bytes).map_err(|e| e.class),
        );
        Ok(r?)
    }

    /// Parts of `part_size`, `parts_in_flight` in flight; the upload is aborted if a
    /// part or the completion fails.
    async fn multipart(&self, key: &str, path: &Path, size: u64) -> Result<(), ObjectError> {
        let bucket = &self.job.bucket;
        let file = Arc::new(std::fs::File::open(path).map_err(ObjectError::Open)?);
        let id = self
            .client
            .create_multipart_upload(bucket, key, &[])
            .await?;
        let uploaded = self.parts(key, &id, file, size).await;
        let completed = match uploaded {
            Ok(mut parts) => {
                parts.sort_by_key(|(n, _)| *n);
                let start = Instant::now();
                let r = self
                    .client
                    .complete_multipart_upload(bucket, key, &id, &parts)
                    .await;
                self.record(
                    OpKind::Put,
                    start,
                    r.as_ref().map(|_| 0).map_err(|e| e.class),
                );
                r.map(|_| ()).map_err(ObjectError::Request)
            }
            Err(e) => Err(e),
        };
        if completed.is_err() {
            let _ = self.client.abort_multipart_upload(bucket, key, &id).await;
        }
        completed
    }

    async fn parts(
        &self,
        key: &str,
        id: &str,
        file: Arc<std::fs::File>,
        size: u64,
    ) -> Result<Vec<(u32, String)>, ObjectError> {
        let mut pending = ranges(size, self.job.settings.part_size).enumerate();
        let mut running = JoinSet::new();
        let mut done = Vec::new();
        let mut failure = None;
        loop {
            while failure.is_none()
                && running.len() < self.job.settings.parts_in_flight.max(1) as usize
            {
                let Some((i, (a, b))) = pending.next() else {
                    break;
                };
                let number = i as u32 + 1;
                let (client, bucket, key, id) = (
                    self.client.clone(),
                    self.job.bucket.clone(),
                    key.to_string(),
                    id.to_string(),
                );
                let (file, observer, worker) = (file.clone(), self.observer.clone(), self.worker);
                running.spawn(async move {
                    let len = (b - a + 1) as usize;
                    let body = tokio::task::spawn_blocking(move || {
                        let mut buf = vec![0u8; len];
                        file.read_exact_at(&mut buf, a).map(|()| buf)
                    })
                    .await
                    .map_err(|source| ObjectError::Task {
                        what: "a part read",
                        source,
                    })?
                    .map_err(|source| ObjectError::ReadPart { number, source })?;
                    let start = Instant::now();
                    let r = client
                        .upload_part(&bucket, &key, &id, number, Bytes::from(body))
                        .await;
                    observer.request(RequestEvent {
                        worker,
                        op: OpKind::Put,
                        start,
                        end: Instant::now(),
                        outcome: r.as_ref().map(|_| len as u64).map_err(|e| e.class),
                    });
                    r.map(|etag| (number, etag))
                        .map_err(|source| ObjectError::Part { number, source })
                });
            }
            match running.join_next().await {
                None => break,
                Some(Ok(Ok(part))) => done.push(part),
                Some(Ok(Err(e))) => {
                    failure.get_or_insert(e);
                }
                Some(Err(e)) => {
                    failure.get_or_insert(ObjectError::Task {
                        what: "a part upload",
                        source: e,
                    });
                }
            }
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(done),
        }
    }

    fn record(&self, op: OpKind, start: Instant, outcome: Result<u64, ErrorClass>) {
        self.observer.request(RequestEvent {
            worker: self.worker,
            op,
            start,
            end: Instant::now(),
            outcome,
        });
    }
}
