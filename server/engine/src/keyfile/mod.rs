//! Key files: a bucket's listing on local disk, compact enough for a billion keys and
//! quick to pick from, so a bucket is listed once and read many times.
//!
//! Version 3, all integers little-endian, varints LEB128:
//!
//! ```text
//! header   "KSTMKEYS"  u32 version (3)  u32 entries per block (E)
//! blocks   each of up to E entries, in key order: a u32, then the entries as they
//!          are if its top bit is set (the other bits: their length), or else an LZ4
//!          block of them (the u32: their length uncompressed); an entry is
//!            varint shared      bytes it shares with the key before it in the block
//!            varint suffix len, suffix bytes
//!            varint size
//!            varint ETag code   0: none; 1: an MD5, its 16 bytes follow; 2: a
//!                               multipart MD5, its 16 bytes and a varint part count
//!                               follow; n >= 3: n - 3 bytes of ETag text follow
//!            varint last-modified (milliseconds since the epoch + 1; 0: unknown)
//! index    per block: u64 offset of the block, u32 its length in the file
//! footer   u64 offset of the index, u64 blocks, u64 keys, "KSTMKEYS"
//! ```
//!
//! A block is stored as it is unless LZ4 makes it an eighth smaller: the MD5 ETags and
//! times of a fill's objects do not repeat from key to key, and a block stored as it is
//! is walked where it lies, with nothing to decompress (version 2, still read, makes
//! every block an LZ4 block). Version 1, still read, also differs in the ETag: its
//! length and its text (0: none), where version 2 on keeps an MD5's 16 bytes rather than
//! its 32 hex digits (48.7 against 34.1 bytes a key in blocks of 128; `key_picks` bench).
//!
//! Every block but the last holds exactly E entries (16 as written now; any E is
//! read), so key number `i` is in block `i / E` without a search: a random pick finds
//! its block's index entry and the block in the file mapped into memory
//! ([`KeyFile::mapped`]), walks its entries up to `i` (decompressing the block first
//! if it is compressed), making strings only for `i`; a pass reads each block once; and
//! a reader holds one block whatever the key count (the index is read where needed). The
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
mod read_ahead;
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
