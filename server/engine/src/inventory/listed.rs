//! A listing written into an inventory as it goes: the listers (any mode) hand their
//! entries to the writer's thread; the file is put in place once the listing is
//! complete (a listing that failed or was stopped leaves none).

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::error::InventoryError;
use super::feed::Feed;
use super::writer::{InventoryWriter, Written};
use crate::listing::{self, ListError, ListJob, ListOutcome, ListOutputs, PageObserver};
use keystorm_s3::S3Client;
use keystorm_types::ListEntry;

#[derive(Debug, thiserror::Error)]
pub enum ListedError {
    #[error(transparent)]
    List(#[from] ListError),
    #[error(transparent)]
    Inventory(#[from] InventoryError),
}

/// Lists `job` into `inventory`; the listing's outcome, and what was written when it
/// completed.
pub async fn list_into(
    client: &S3Client,
    job: &ListJob,
    observer: Arc<dyn PageObserver>,
    inventory: InventoryWriter,
    stop: CancellationToken,
) -> Result<(ListOutcome, Option<Written>), ListedError> {
    let (tx, feed) = Feed::start::<ListEntry>(inventory);
    let outputs = ListOutputs {
        entries: Some(tx),
        ..ListOutputs::default()
    };
    let listed = listing::list(client, job, observer, outputs, stop).await;
    let complete = matches!(&listed, Ok(o) if o.complete);
    // The writer's failure first: it is why the listing stopped.
    let written = feed.finish(complete).await?;
    Ok((listed?, written))
}
