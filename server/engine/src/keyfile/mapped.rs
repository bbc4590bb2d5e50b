//! A key file mapped into memory, read-only and shared by a run's workers, so that a
//! random pick finds its block's index entry and its block without a system call (a
//! `pread` of each added 0.4 to 0.8 µs to picks of 0.4 to 1 µs, `key_picks` bench). The
//! mapping holds no copy of the file: its pages are the page cache's, which the kernel
//! fills as they are read and reclaims as it needs, as it does for a file read with
//! `pread`. Unlike those a `pread` brings in, the pages a pick touched count in the
//! process's resident set (VmHWM) until they are unmapped; the anonymous part of it,
//! which a run records too, leaves them out.
//!
//! The file must not be cut short while it is mapped (reading a page past its end
//! would stop the process); keystorm never does, since it writes a key file under
//! another name and renames it into place.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// A whole file mapped read-only.
pub(crate) struct Mapped {
    ptr: *const u8,
    len: usize,
}

// The mapping is read-only and lives until it is dropped: its bytes may be read from
// any thread.
unsafe impl Send for Mapped {}
unsafe impl Sync for Mapped {}

impl Mapped {
    /// Maps the first `len` bytes of `file` (non-empty), advising the kernel that it
    /// will be read at random, so a page read from disk brings no read-ahead with it.
    pub fn new(file: &File, len: u64) -> io::Result<Mapped> {
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l > 0)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no bytes to map"))?;
        // SAFETY: a fresh read-only shared mapping of an open file; the kernel picks
        // the address, and nothing else refers to it until `Mapped` hands out slices.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the range is the mapping just made. Advice is only a hint: a failure
        // leaves the mapping as it is.
        unsafe { libc::madvise(ptr, len, libc::MADV_RANDOM) };
        Ok(Mapped {
            ptr: ptr.cast_const().cast(),
            len,
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is a live read-only mapping of `len` bytes until `drop`, and
        // the slice cannot outlive `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once; no slice of it outlives
        // `self`.
        unsafe { libc::munmap(self.ptr.cast_mut().cast(), self.len) };
    }
}

impl std::fmt::Debug for Mapped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mapped({} bytes)", self.len)
    }
}
