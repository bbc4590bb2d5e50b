//! `GET /api/runs/{id}/events`: the run's events as server-sent events. The log on
//! disk is replayed first (from `Last-Event-ID` on), then live events follow from the
//! hub; a client that falls behind the hub re-reads the log, so none is missed. A
//! finished run's stream ends after its log.

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::extract::{Path as UrlPath, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use keystorm_engine::results::EVENTS_FILE;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use super::AppState;
use super::error::{ApiResult, ErrorBody};
use super::hub::LiveEvent;
use super::run_files::run_dir;

#[utoipa::path(get, path = "/api/runs/{id}/events", operation_id = "run_events", tag = "live",
    params(("id" = String, Path, description = "run id"),
        ("Last-Event-ID" = Option<u64>, Header, description = "resume after this event id")),
    responses((status = 200, description = "text/event-stream of run events (see RunEvent)", content_type = "text/event-stream"),
        (status = 404, body = ErrorBody)))]
pub async fn stream(
    State(state): State<AppState>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    let after = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    // Subscribe before reading the log so nothing falls between the two.
    let live = state.active.hub_of(&id).map(|hub| hub.subscribe());
    let (tx, rx) = mpsc::channel(256);
    tokio::spawn(pump(dir, after, live, tx));
    let stream = ReceiverStream::new(rx).map(|e: LiveEvent| {
        Ok(Event::default()
            .id(e.id.to_string())
            .event(e.name)
            .data(e.data))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// Sends the log after `after`, then live events, until the run finishes or the client
/// goes away.
async fn pump(
    dir: PathBuf,
    after: Option<u64>,
    live: Option<broadcast::Receiver<std::sync::Arc<LiveEvent>>>,
    tx: mpsc::Sender<LiveEvent>,
) {
    let mut next = after.map_or(0, |a| a + 1);
    match replay(&dir, &mut next, &tx).await {
        Replay::Finished | Replay::ClientGone => return,
        Replay::More => {}
    }
    let Some(mut live) = live else { return };
    loop {
        match live.recv().await {
            Ok(e) => {
                if e.id < next {
                    continue;
                }
                if e.id > next {
                    // A gap (should not happen): the log has what was missed.
                    match replay(&dir, &mut next, &tx).await {
                        Replay::Finished | Replay::ClientGone => return,
                        Replay::More => continue,
                    }
                }
                next = e.id + 1;
                let last = e.is_final();
                if tx.send((*e).clone()).await.is_err() || last {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Lagged(_)) => {
                match replay(&dir, &mut next, &tx).await {
                    Replay::Finished | Replay::ClientGone => return,
                    Replay::More => {}
                }
            }
            Err(broadcast::error::RecvError::Closed) => {
                // The run is over: whatever it logged last is on disk.
                replay(&dir, &mut next, &tx).await;
                return;
            }
        }
    }
}

enum Replay {
    /// The log ended with the run's `finished` event.
    Finished,
    ClientGone,
    /// The run goes on.
    More,
}

/// Streams the log line by line (constant memory, however long the run).
async fn replay(dir: &Path, next: &mut u64, tx: &mpsc::Sender<LiveEvent>) -> Replay {
    use tokio::io::AsyncBufReadExt;
    let Ok(file) = tokio::fs::File::open(dir.join(EVENTS_FILE)).await else {
        return Replay::More;
    };
    let mut lines = tokio::io::BufReader::new(file).lines();
    let mut finished = false;
    while let Ok(Some(line)) = lines.next_line().await {
        let line = line.as_str();
        let Some(e) = LiveEvent::from_log_line(line) else {
            continue;
        };
        finished = e.is_final();
        if e.id < *next {
            continue;
        }
        *next = e.id + 1;
        if tx.send(e).await.is_err() {
            return Replay::ClientGone;
        }
    }
    if finished {
        Replay::Finished
    } else {
        Replay::More
    }
}
