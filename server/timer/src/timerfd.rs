//! A Linux timerfd: a timer the kernel signals through a file descriptor, so the
//! runtime's own poll (epoll) wakes for it. Waiting on it costs the thread that would
//! park anyway one wake-up, where waking through another thread costs two. The kernel
//! ends it on its high-resolution clock without timer slack.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// A non-blocking `CLOCK_MONOTONIC` timerfd.
pub(crate) struct TimerFd(OwnedFd);

impl TimerFd {
    pub fn new() -> io::Result<TimerFd> {
        // SAFETY: timerfd_create takes two integer arguments and returns a new
        // descriptor or -1.
        let fd = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a descriptor just returned to us and owned by nobody else.
        Ok(TimerFd(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Arms the timer to expire once, `after` from now (at least a nanosecond: zero
    /// would disarm it).
    pub fn arm(&self, after: Duration) -> io::Result<()> {
        let after = after.max(Duration::from_nanos(1));
        let spec = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: after.as_secs() as libc::time_t,
                tv_nsec: after.subsec_nanos() as libc::c_long,
            },
        };
        // SAFETY: the descriptor is a timerfd we own; `spec` lives across the call and
        // the old value is not asked for.
        let r =
            unsafe { libc::timerfd_settime(self.0.as_raw_fd(), 0, &spec, std::ptr::null_mut()) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Reads the expiry count, clearing the descriptor's readiness; `WouldBlock` when
    /// the timer has not expired since the last read.
    pub fn read(&self) -> io::Result<u64> {
        let mut count = 0u64;
        // SAFETY: reads 8 bytes into a u64 that lives across the call.
        let n = unsafe {
            libc::read(
                self.0.as_raw_fd(),
                (&mut count as *mut u64).cast(),
                std::mem::size_of::<u64>(),
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(count)
    }
}

impl AsRawFd for TimerFd {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}
