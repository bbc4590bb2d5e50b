//! The run's event log, `events.jsonl`: one `{"id", "event", "data"}` object a line,
//! ids counting from 0. Its types, its one writer and its one reader live here, so the
//! engine, `keystorm show` and the HTTP API all read the log the same way: line by line
//! (constant memory, however long the run), past a line a killed run left half-written,
//! and past events a newer keystorm added.

mod async_reader;
mod line;
mod reader;
mod redacted;
mod types;
mod writer;

pub use async_reader::AsyncEventReader;
pub use line::{EventHead, Logged, RawEvent};
pub use reader::EventReader;
pub use types::{AtOnce, IntegrityEvent, MetadataScanEvent, PhaseProgress, RunEvent};
pub use writer::EventWriter;

#[cfg(test)]
mod tests;
