//! Moving data in bulk between a bucket and a local folder: one stream tops out at
//! tens of MB/s, so many objects move at once, and large ones in parallel parts
//! (ranged GETs down, multipart uploads up). Transfers resume: a file or object that is
//! already complete — same size, same ETag computed locally — is skipped. Keys become
//! paths through [`paths`], which keeps every key inside the folder.
//!
//! Memory is bounded by the settings (objects in flight × parts in flight × part size),
//! not by the number of objects: keys stream from a listing (down) or a folder walk
//! (up) through bounded queues.

mod download;
pub mod etag;
mod object_error;
pub mod paths;
mod settings;
mod tally;
mod upload;
mod walk;

pub use download::{DownloadJob, download};
pub use settings::PARTIAL_SUFFIX;
pub(crate) use settings::ranges;
pub(crate) use tally::TransferOutcome;
pub use tally::{RequestEvent, TransferError, TransferObserver};
pub use upload::{UploadJob, upload};
