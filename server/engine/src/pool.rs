//! A fixed set of workers draining one bounded queue: what a listing feeds (HEAD
//! scans, downloads) or a folder walk feeds (uploads). The bound keeps memory fixed and
//! lets the producer run only as far ahead as the workers follow.

use std::sync::Arc;

use tokio::sync::{Mutex as AsyncMutex, mpsc};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// One worker of a pool: handles one queued item at a time.
pub(crate) trait QueueWorker<T>: Send + 'static {
    /// What the worker hands back when the queue is done (its own totals, say).
    type Done: Send + 'static;

    /// Handles `item`; `false` stops this worker (the others go on).
    fn one(&mut self, item: T) -> impl Future<Output = bool> + Send;

    fn done(self) -> Self::Done;
}

/// Starts `workers` on a queue of `per_worker` items each; they stop when the queue is
/// closed and empty, or at `stop`. Returns the queue's sender and the workers.
pub(crate) fn spawn_pool<T: Send + 'static, W: QueueWorker<T>>(
    workers: Vec<W>,
    per_worker: usize,
    stop: &CancellationToken,
) -> (mpsc::Sender<T>, JoinSet<W::Done>) {
    let (tx, rx) = mpsc::channel::<T>((workers.len() * per_worker).max(1));
    let rx = Arc::new(AsyncMutex::new(rx));
    let mut set = JoinSet::new();
    for mut w in workers {
        let (rx, stop) = (rx.clone(), stop.clone());
        set.spawn(async move {
            loop {
                let next = tokio::select! {
                    item = async { rx.lock().await.recv().await } => item,
                    _ = stop.cancelled() => None,
                };
                let Some(item) = next else {
                    return w.done();
                };
                if !w.one(item).await {
                    return w.done();
                }
            }
        });
    }
    (tx, set)
}
