//! The command line run in this process through the library entry point
//! (`keystorm::run_captured`), the way oha's tests call its `run()`: no binary to
//! spawn, output and exit code checked directly. Tests that need a process of their own
//! (signals, environment, closed pipes, kill -9) spawn the binary instead.

#![allow(dead_code)]

use std::ffi::OsString;

pub use keystorm::Finished;

/// A `keystorm` command line being put together.
pub struct Keystorm {
    args: Vec<OsString>,
}

/// `keystorm` with no arguments yet.
pub fn keystorm() -> Keystorm {
    Keystorm {
        args: vec!["keystorm".into()],
    }
}

impl Keystorm {
    pub fn arg(mut self, arg: impl Into<OsString>) -> Keystorm {
        self.args.push(arg.into());
        self
    }

    pub fn args<I, T>(mut self, args: I) -> Keystorm
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Runs it; panics with what it printed unless it exits with `code`.
    pub fn code(self, code: u8) -> Finished {
        let shown = format!("{:?}", self.args);
        let finished = keystorm::run_captured(self.args);
        assert_eq!(
            finished.code,
            code,
            "keystorm {shown}\n--- stdout\n{}\n--- stderr\n{}",
            finished.stdout(),
            finished.stderr()
        );
        finished
    }

    /// Runs it; panics with what it printed unless it succeeds.
    pub fn success(self) -> Finished {
        self.code(0)
    }
}
