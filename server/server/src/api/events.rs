//! `GET /api/runs/{id}/events`: the run's events as server-sent events. The log on
//! disk is replayed first (from `Last-Event-ID` on), then live events follow from the
//! hub; a client that falls behind the hub re-reads the log, so none is missed. A
//! finished run's stream ends after its log. A client that only draws the recent past
//! (`recent=N`) is spared the older per-second events of a run that has gone on for
//! days.

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use keystorm_results::AsyncEventReader;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use utoipa::IntoParams;

use super::error::{ApiError, ApiPath, ApiQuery, ApiResult, ErrorBody};
use super::hub::LiveEvent;
use super::params::RunIdParam;
use super::run_files::run_dir;
use super::state::AppState;

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Of the per-second events (`interval`, `cleanup`, `thresholds_so_far`) already
    /// logged, send only the last `recent` of each kind; every other event is sent.
    /// Applies to a stream started without `Last-Event-ID` (a reconnect gets everything
    /// after its id).
    #[param(format = Int64, minimum = 0, maximum = 4294967295_u32)]
    pub recent: Option<u32>,
}

#[utoipa::path(get, path = "/api/runs/{id}/events", operation_id = "run_events", tag = "live",
    params(RunIdParam, EventsQuery,
        ("Last-Event-ID" = Option<i64>, Header, nullable = false, minimum = 0,
            description = "resume after this event id")),
    responses((status = 200, description = "text/event-stream of run events (see RunEvent)", content_type = "text/event-stream"),
        (status = 404, body = ErrorBody)))]
pub async fn stream(
    State(state): State<AppState>,
    ApiPath(RunIdParam { id }): ApiPath<RunIdParam>,
    ApiQuery(query): ApiQuery<EventsQuery>,
    headers: HeaderMap,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    let after = last_event_id(&headers)?;
    // Subscribe before reading the log so nothing falls between the two.
    let live = state.active.hub_of(&id).map(|hub| hub.subscribe());
    let (tx, rx) = mpsc::channel(256);
    // Without a position to resume from, the per-second events older than the last
    // `recent` of their kind are left out of the replay.
    let recent = query.recent.map(u64::from).filter(|_| after.is_none());
    tokio::spawn(pump(dir, after, recent, live, tx));
    let stream = ReceiverStream::new(rx).map(|e: LiveEvent| {
        Ok(Event::default()
            .id(e.id.to_string())
            .event(e.name)
            .data(e.data))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// The event id a reconnecting client has seen last: none without the header; anything
/// but an event id (an empty value too, which a browser never sends) is a 400 rather
/// than a replay from a position the client did not ask for.
fn last_event_id(headers: &HeaderMap) -> ApiResult<Option<u64>> {
    let Some(value) = headers.get("last-event-id") else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or("\u{fffd}").trim();
    match text.parse::<i64>() {
        Ok(id) if id >= 0 => Ok(Some(id as u64)),
        _ => Err(ApiError::bad_request(format!(
            "Last-Event-ID {text:?} is not an event id (a whole number from 0)"
        ))),
    }
}

/// Sends the log after `after` (without the older per-second events when `recent` is
/// given), then live events, until the run finishes or the client goes away.
async fn pump(
    dir: PathBuf,
    after: Option<u64>,
    recent: Option<u64>,
    live: Option<broadcast::Receiver<std::sync::Arc<LiveEvent>>>,
    tx: mpsc::Sender<LiveEvent>,
) {
    let mut next = after.map_or(0, |a| a + 1);
    let mut skip = match recent {
        Some(n) => Skip::older_than_last(&dir, n).await,
        None => Skip::default(),
    };
    match replay_skipping(&dir, &mut next, &mut skip, &tx).await {
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

/// How many of each per-second kind of event a replay leaves out, from the start.
#[derive(Default)]
struct Skip {
    interval: u64,
    cleanup: u64,
    thresholds_so_far: u64,
}

impl Skip {
    /// The counts that leave the last `keep` events of each kind: the log is read once
    /// to count them (line by line).
    async fn older_than_last(dir: &Path, keep: u64) -> Skip {
        let mut counts = Skip::default();
        if let Some(mut log) = AsyncEventReader::open(dir).await {
            while let Some(head) = log.next_head().await {
                if let Some(n) = counts.counter(&head.name) {
                    *n += 1;
                }
            }
        }
        Skip {
            interval: counts.interval.saturating_sub(keep),
            cleanup: counts.cleanup.saturating_sub(keep),
            thresholds_so_far: counts.thresholds_so_far.saturating_sub(keep),
        }
    }

    fn counter(&mut self, name: &str) -> Option<&mut u64> {
        match name {
            "interval" => Some(&mut self.interval),
            "cleanup" => Some(&mut self.cleanup),
            "thresholds_so_far" => Some(&mut self.thresholds_so_far),
            _ => None,
        }
    }

    /// Whether to leave this event out (counting it against its kind's allowance).
    fn takes(&mut self, name: &str) -> bool {
        match self.counter(name) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }
}

async fn replay(dir: &Path, next: &mut u64, tx: &mpsc::Sender<LiveEvent>) -> Replay {
    replay_skipping(dir, next, &mut Skip::default(), tx).await
}

/// Streams the log, leaving out what `skip` says.
async fn replay_skipping(
    dir: &Path,
    next: &mut u64,
    skip: &mut Skip,
    tx: &mpsc::Sender<LiveEvent>,
) -> Replay {
    let Some(mut log) = AsyncEventReader::open(dir).await else {
        return Replay::More;
    };
    let mut finished = false;
    while let Some(e) = log.next_raw().await.map(LiveEvent::from) {
        finished = e.is_final();
        if e.id < *next {
            continue;
        }
        *next = e.id + 1;
        if skip.takes(&e.name) {
            continue;
        }
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
