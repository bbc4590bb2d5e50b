//! Printing for a tool whose output is piped: `keystorm openapi | head -2` closes the
//! pipe after two lines, and std's `println!` panics on the broken pipe. Everything the
//! commands print goes through these macros instead: standard output ends the process
//! quietly once its reader is gone, the way `cat` does (killed by SIGPIPE); standard
//! error drops what cannot be written, so a closed stderr never stops a run.
//!
//! SIGPIPE itself stays ignored, as Rust sets it up: a peer closing one of the S3 or
//! HTTP sockets (`serve`, `sim`, a run) is an error on that connection, never the end
//! of the process. Only a failed write to standard output restores its default action,
//! just before raising it.

use std::fmt;
use std::io::{self, Write};

/// `print!` that never panics: see the module documentation.
macro_rules! stdout {
    ($($arg:tt)*) => {
        $crate::output::out(format_args!($($arg)*))
    };
}

/// `println!` that never panics: see the module documentation.
macro_rules! stdoutln {
    () => {
        $crate::output::out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that never panics: what cannot be written is dropped.
macro_rules! stderr {
    ($($arg:tt)*) => {
        $crate::output::err(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics: what cannot be written is dropped.
macro_rules! stderrln {
    () => {
        $crate::output::err(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::err(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes to standard output; a closed pipe ends the process like `cat`.
pub fn out(args: fmt::Arguments) {
    let result = io::stdout().lock().write_fmt(args);
    if let Err(e) = result {
        stdout_failed(e);
    }
}

/// Writes to standard error, dropping what cannot be written.
pub fn err(args: fmt::Arguments) {
    let _ = io::stderr().lock().write_fmt(args);
}

/// Flushes standard output (what `print!` left without a newline) before exiting.
pub fn flush() {
    let result = io::stdout().lock().flush();
    if let Err(e) = result {
        stdout_failed(e);
    }
}

/// Standard output as a [`Write`] (for streams such as `list --keys -`): a closed pipe
/// ends the process like `cat`; other errors are returned to the caller.
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stdout().lock().write(buf).map_err(quit_on_broken_pipe)
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stdout().lock().flush().map_err(quit_on_broken_pipe)
    }
}

fn quit_on_broken_pipe(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        die_of_sigpipe();
    }
    e
}

fn stdout_failed(e: io::Error) -> ! {
    let e = quit_on_broken_pipe(e);
    err(format_args!(
        "error: cannot write to standard output: {e}\n"
    ));
    std::process::exit(i32::from(crate::exit::FAILED));
}

/// Ends the process the way a writer to a closed pipe ends by default.
fn die_of_sigpipe() -> ! {
    #[cfg(unix)]
    // SAFETY: plain libc calls; the process ends here, so no other thread's socket
    // write can be surprised by the restored default action for long.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::raise(libc::SIGPIPE);
    }
    // SIGPIPE blocked by the parent, or not unix: the shell's code for that death.
    std::process::exit(128 + 13);
}
