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
//!
//! A command run in-process by `keystorm::run_captured` (the way tests call the command
//! line) prints into the buffers of a [`Captured`] instead: the task that runs the
//! command carries them, and the tasks it starts with [`spawn`] inherit them.
//!
//! Whatever is printed goes out with the secrets of the runs going in this process
//! redacted (`keystorm_results::secrets`), and so does the log ([`LogWriter`]).

use std::fmt;
use std::io::{self, IsTerminal, Write};
use std::sync::{Arc, Mutex};

/// `print!` that never panics: see the module documentation.
#[macro_export]
macro_rules! stdout {
    ($($arg:tt)*) => {
        $crate::output::out(format_args!($($arg)*))
    };
}

/// `println!` that never panics: see the module documentation.
#[macro_export]
macro_rules! stdoutln {
    () => {
        $crate::output::out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that never panics: what cannot be written is dropped.
#[macro_export]
macro_rules! stderr {
    ($($arg:tt)*) => {
        $crate::output::err(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics: what cannot be written is dropped.
#[macro_export]
macro_rules! stderrln {
    () => {
        $crate::output::err(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::err(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// What a command run in-process printed: its standard output and standard error.
#[derive(Debug, Default)]
pub struct Captured {
    stdout: Mutex<Vec<u8>>,
    stderr: Mutex<Vec<u8>>,
}

impl Captured {
    /// Takes what was printed so far: (standard output, standard error).
    pub fn take(&self) -> (Vec<u8>, Vec<u8>) {
        (
            std::mem::take(&mut *lock(&self.stdout)),
            std::mem::take(&mut *lock(&self.stderr)),
        )
    }
}

fn lock(buffer: &Mutex<Vec<u8>>) -> std::sync::MutexGuard<'_, Vec<u8>> {
    buffer
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

tokio::task_local! {
    static CAPTURE: Arc<Captured>;
}

/// Runs `command` with everything it prints going into `captured`.
pub async fn capture<F: Future>(captured: Arc<Captured>, command: F) -> F::Output {
    CAPTURE.scope(captured, command).await
}

/// `tokio::spawn` for a task that prints: it prints where its parent does.
pub fn spawn<F>(task: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match CAPTURE.try_with(Arc::clone) {
        Ok(captured) => tokio::spawn(CAPTURE.scope(captured, task)),
        Err(_) => tokio::spawn(task),
    }
}

/// Where the current task prints, kept by an object whose methods other tasks call
/// (the run's progress observer), so that what it prints goes where its owner's does.
#[derive(Clone, Debug, Default)]
pub struct Printer(Option<Arc<Captured>>);

impl Printer {
    /// Where the calling task prints now.
    pub fn current() -> Printer {
        Printer(CAPTURE.try_with(Arc::clone).ok())
    }

    /// Runs `f`, its printing going where this printer's does.
    pub fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.0 {
            Some(captured) => CAPTURE.sync_scope(Arc::clone(captured), f),
            None => f(),
        }
    }
}

/// Whether standard error is a terminal a person watches (never for captured output).
pub fn stderr_is_terminal() -> bool {
    CAPTURE.try_with(|_| ()).is_err() && io::stderr().is_terminal()
}

/// Writes to standard output; a closed pipe ends the process like `cat`.
pub fn out(args: fmt::Arguments) {
    let text = redacted(args);
    if CAPTURE
        .try_with(|c| lock(&c.stdout).write_all(text.as_bytes()))
        .is_ok()
    {
        return;
    }
    let result = io::stdout().lock().write_all(text.as_bytes());
    if let Err(e) = result {
        stdout_failed(e);
    }
}

/// Writes to standard error, dropping what cannot be written.
pub fn err(args: fmt::Arguments) {
    let text = redacted(args);
    if CAPTURE
        .try_with(|c| lock(&c.stderr).write_all(text.as_bytes()))
        .is_ok()
    {
        return;
    }
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// The text, with the secrets of the runs going replaced.
fn redacted(args: fmt::Arguments) -> String {
    let text = args.to_string();
    match keystorm_results::secrets::active().redact(&text) {
        std::borrow::Cow::Owned(redacted) => redacted,
        std::borrow::Cow::Borrowed(_) => text,
    }
}

/// Where the log (`tracing`) writes: standard error, each event's line redacted like
/// everything else printed.
pub struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let redacted = keystorm_results::secrets::active()
            .redact(&text)
            .into_owned();
        io::stderr().lock().write_all(redacted.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().lock().flush()
    }
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
        if let Ok(written) = CAPTURE.try_with(|c| lock(&c.stdout).write(buf)) {
            return written;
        }
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
