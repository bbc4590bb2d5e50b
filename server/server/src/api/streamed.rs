//! Response bodies written on a blocking thread and handed to the client in chunks
//! through a small queue: an export of a run that went on for days (hundreds of MB of
//! histogram log) streams in constant memory, and stops being read when the client
//! goes away.

use std::io::Write;

use axum::body::Body;
use bytes::Bytes;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

/// Bytes gathered before a chunk goes out.
const CHUNK: usize = 64 * 1024;
/// Chunks queued between the writer and the connection.
const QUEUED: usize = 4;

/// A body that `produce` writes. An error it returns after the response started
/// aborts the transfer (the client sees a truncated body, never a wrong one).
pub fn body(produce: impl FnOnce(&mut Chunks) -> std::io::Result<()> + Send + 'static) -> Body {
    let (tx, rx) = mpsc::channel(QUEUED);
    tokio::task::spawn_blocking(move || {
        let mut chunks = Chunks {
            tx,
            buf: Vec::with_capacity(CHUNK),
        };
        let outcome = produce(&mut chunks).and_then(|()| chunks.flush());
        if let Err(e) = outcome {
            let _ = chunks.tx.blocking_send(Err(e));
        }
    });
    Body::from_stream(ReceiverStream::new(rx))
}

/// Where a streamed body is written.
pub struct Chunks {
    tx: mpsc::Sender<std::io::Result<Bytes>>,
    buf: Vec<u8>,
}

impl Write for Chunks {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        self.tx
            .blocking_send(Ok(chunk))
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "client gone"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bodies_arrive_whole_over_many_chunks_and_errors_cut_them_short() {
        let expected: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
        let data = expected.clone();
        let got = axum::body::to_bytes(
            body(move |out| {
                for piece in data.chunks(7_777) {
                    out.write_all(piece)?;
                }
                Ok(())
            }),
            usize::MAX,
        )
        .await
        .unwrap();
        assert_eq!(got.as_ref(), expected.as_slice());

        let failing = body(|out| {
            out.write_all(&[1; 3 * CHUNK])?;
            Err(std::io::Error::other("disk gone"))
        });
        assert!(axum::body::to_bytes(failing, usize::MAX).await.is_err());
    }
}
