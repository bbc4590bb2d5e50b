//! The event log read from async code (the live event stream), with the same decoding
//! as [`super::EventReader`].

use std::path::Path;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, BufReader};

use super::line::{self, EventHead, Logged, RawEvent};
use crate::EVENTS_FILE;

/// [`super::EventReader`] over tokio's I/O: line by line, skipping torn lines and
/// unknown events.
pub struct AsyncEventReader<R> {
    input: R,
    line: Vec<u8>,
}

impl AsyncEventReader<BufReader<tokio::fs::File>> {
    /// The run folder's log; `None` before the run has logged anything.
    pub async fn open(dir: &Path) -> Option<Self> {
        let file = tokio::fs::File::open(dir.join(EVENTS_FILE)).await.ok()?;
        Some(AsyncEventReader::new(BufReader::new(file)))
    }
}

impl<R: AsyncBufRead + Unpin> AsyncEventReader<R> {
    pub fn new(input: R) -> Self {
        AsyncEventReader {
            input,
            line: Vec::new(),
        }
    }

    /// The next event this version knows.
    pub async fn next_event(&mut self) -> Option<Logged> {
        self.next_decoded(|l| line::decode(l, None)).await
    }

    /// The next well-formed line, whatever its event.
    pub async fn next_raw(&mut self) -> Option<RawEvent> {
        self.next_decoded(line::decode_raw).await
    }

    /// The id and name of the next well-formed line.
    pub async fn next_head(&mut self) -> Option<EventHead> {
        self.next_decoded(line::decode_head).await
    }

    async fn next_decoded<T>(&mut self, mut decode: impl FnMut(&[u8]) -> Option<T>) -> Option<T> {
        loop {
            self.line.clear();
            match self.input.read_until(b'\n', &mut self.line).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            if let Some(t) = decode(&self.line) {
                return Some(t);
            }
        }
    }
}
