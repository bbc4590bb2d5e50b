//! Key files: a bucket's listing on local disk, compact enough for a billion keys and
//! quick to pick from, so a bucket is listed once and read many times.
//!
//! Version 2, all integers little-endian, varints LEB128:
//!
//! ```text
//! header   "KSTMKEYS"  u32 version (2)  u32 entries per block (E)
//! blocks   each an LZ4 block (its uncompressed length first, u32) of up to E entries,
//!          in key order; an entry is
//!            varint shared      bytes it shares with the key before it in the block
//!            varint suffix len, suffix bytes
//!            varint size
//!            varint ETag code   0: none; 1: an MD5, its 16 bytes follow; 2: a
//!                               multipart MD5, its 16 bytes and a varint part count
//!                               follow; n >= 3: n - 3 bytes of ETag text follow
//!            varint last-modified (milliseconds since the epoch + 1; 0: unknown)
//! index    per block: u64 offset of the block, u32 its compressed length
//! footer   u64 offset of the index, u64 blocks, u64 keys, "KSTMKEYS"
//! ```
//!
//! Version 1, still read, differs only in the ETag: its length and its text (0: none).
//! An MD5 ETag does not compress, so its 16 bytes rather than 32 hex digits take a
//! file of such keys from 48.7 to 34.1 bytes a key in blocks of 128 (35.2 in blocks
//! of 32; `key_picks` bench).
//!
//! Every block but the last holds exactly E entries (32 as written now; any E is
//! read), so key number `i` is in block `i / E` without a search: a random pick finds
//! its block's index entry and the block in the file mapped into memory
//! ([`KeyFile::mapped`]), decompresses the block and walks its entries up to `i`,
//! making strings only for `i`; a pass reads each block once; and a reader holds one
//! decompressed block whatever the key count (the index is read where needed). The
//! writer takes keys in any order (a parallel listing's) and sorts them through runs
//! on disk ([`writer`]), keeping the index in a file of its own until the end, so its
//! memory does not grow either.

mod cursor;
mod entry;
mod error;
mod format;
mod listed;
mod mapped;
mod plan_files;
mod reader;
mod runs;
#[cfg(test)]
mod test_files;
mod writer;

pub use cursor::Cursor;
pub use entry::KeyEntry;
pub use error::KeyFileError;
pub use format::{ENTRIES_PER_BLOCK, VERSION};
pub use listed::{ListedError, entry_of, list_into, list_into_resumable};
pub use plan_files::check_key_files;
pub use reader::KeyFile;
pub use writer::{KeyFileWriter, KeysCut, Written, runs_dir};
