//! An inventory fed from async tasks: they send rows into a bounded queue that one
//! blocking thread drains into the writer (encoding and file writes stay off the
//! runtime's workers, and senders wait while the queue is full). When the writer fails,
//! the queue closes, which stops the senders.

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::error::InventoryError;
use super::row::Row;
use super::writer::{InventoryWriter, Written};

/// Rows waiting for the writer.
const QUEUE: usize = 4096;

/// The writer's thread, draining its queue.
pub struct Feed {
    path: String,
    thread: JoinHandle<Result<InventoryWriter, InventoryError>>,
}

impl Feed {
    /// Starts the writer's thread; rows (or anything that makes one) go to the sender.
    pub fn start<T>(writer: InventoryWriter) -> (mpsc::Sender<T>, Feed)
    where
        T: Into<Row> + Send + 'static,
    {
        let (tx, mut rx) = mpsc::channel::<T>(QUEUE);
        let path = writer.path().display().to_string();
        let thread = tokio::task::spawn_blocking(move || {
            let mut writer = writer;
            while let Some(row) = rx.blocking_recv() {
                writer.push(row.into())?;
            }
            Ok(writer)
        });
        (tx, Feed { path, thread })
    }

    /// Once every sender is gone: the inventory put in place when `complete`, or
    /// dropped (its partial file removed) when not.
    pub async fn finish(self, complete: bool) -> Result<Option<Written>, InventoryError> {
        let stopped = |e: tokio::task::JoinError| InventoryError::Stopped {
            path: self.path.clone(),
            message: e.to_string(),
        };
        let writer = self.thread.await.map_err(stopped)??;
        if !complete {
            return Ok(None);
        }
        tokio::task::spawn_blocking(move || writer.finish())
            .await
            .map_err(stopped)?
            .map(Some)
    }
}
